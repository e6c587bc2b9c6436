/**
 * PKO rules (K1, K2): Package, ClusterPackage, ObjectTemplate and HostedClusterPackage objects
 * wherever the rollout carries them (rollout reference §7), and, with `--package`, the package
 * they point at.
 */
import { GoTemplateError, referencedFields, TemplateSet } from '../../gotemplate/index.js';
import { pkoFuncMap } from '../../gotemplate/funcs/index.js';
import { parseYaml11, YamlParseError } from '../../yaml/parse.js';
import { balance } from '../delimiters.js';
import { setJsonPath } from '../jsonpath.js';
import { formatPath, type Path } from '../source.js';
import { isObj, type LintContext, type Obj, type RolloutRule } from './context.js';

export const K1: RolloutRule = {
  id: 'K1',
  severity: 'error',
  summary: 'Package/ClusterPackage/ObjectTemplate/HostedClusterPackage against their CRDs, wherever they are (in a ConfigurationPolicy, or carried by the SelectorSyncSet itself: the classic rollout); image `repo@sha256:<64 hex>` (`:sha256:` is an error, a tag a warning); each ObjectTemplate rendered with PKO\'s engine and every source present',
  docs: 'rollout reference §7: PKO re-unpacks only when the Package spec changes',
};
export const K2: RolloutRule = {
  id: 'K2',
  severity: 'error',
  summary: 'with `--package DIR`: each Package/ClusterPackage written in the Template against the package: the scope its kind needs (`Namespaced` / `Cluster`) and its config through PKO\'s admission (prune, default, validate against `spec.config.openAPIV3Schema`)',
  docs: "pko reference: the package's scopes and config schema, as PKO's admission applies them",
};

export const PACKAGE_RULES: readonly RolloutRule[] = [K1, K2];

const DIGEST_REF = /^[^@\s]+@sha256:[0-9a-f]{64}$/;

/** A PKO Package or ClusterPackage (the objects that take an image and a config). */
export function isPkoPackage(o: Obj): boolean {
  return (o.kind === 'Package' || o.kind === 'ClusterPackage') && typeof o.apiVersion === 'string' && o.apiVersion.startsWith('package-operator.run/');
}

/** Checks one Package or ClusterPackage object against its package: problems with a path below the object. */
export type PackageObjectCheck = (obj: Record<string, unknown>) => { path: Path; message: string }[];

function checkImage(ctx: LintContext, img: unknown, path: Path, chain: string): void {
  if (typeof img !== 'string' || img === '') {
    ctx.report('error', K1, path, 'spec.image is required', chain);
    return;
  }
  if (/:sha256:/.test(img) && !img.includes('@')) {
    ctx.report('error', K1, path, `image ${JSON.stringify(img)} joins repository and digest with ":"; a digest reference is repo@sha256:<hex> (\${REGISTRY_IMG}@\${IMAGE_DIGEST})`, chain);
    return;
  }
  if (img.includes('@')) {
    if (!DIGEST_REF.test(img)) ctx.report('error', K1, path, `image ${JSON.stringify(img)} is not repo@sha256:<64 hex>`, chain);
    return;
  }
  const lastColon = img.lastIndexOf(':');
  if (lastColon <= img.lastIndexOf('/')) {
    ctx.report('error', K1, path, `image ${JSON.stringify(img)} has neither tag nor digest (PKO would pull :latest and never notice updates)`, chain);
    return;
  }
  ctx.report('warning', K1, path, `image ${JSON.stringify(img)} is pinned by tag: PKO re-unpacks only when the Package spec changes, so a re-pushed tag is never picked up; pin by digest`, chain);
}

export function checkPackageObject(ctx: LintContext, pkg: Obj, path: Path, chain: string): void {
  ctx.fields(pkg, path, chain, K1);
  ctx.packages.push({ obj: pkg, path, chain });
  if (pkg.apiVersion !== 'package-operator.run/v1alpha1') ctx.report('error', K1, [...path, 'apiVersion'], 'apiVersion must be package-operator.run/v1alpha1', chain);
  const spec = isObj(pkg.spec) ? pkg.spec : undefined;
  if (!spec) {
    ctx.report('error', K1, [...path, 'spec'], 'spec is missing', chain);
    return;
  }
  checkImage(ctx, spec.image, [...path, 'spec', 'image'], chain);
  if (spec.config !== undefined && spec.config !== null && !isObj(spec.config)) ctx.report('error', K1, [...path, 'spec', 'config'], 'spec.config must be an object', chain);
  if (spec.paused !== undefined && typeof spec.paused !== 'boolean') ctx.report('error', K1, [...path, 'spec', 'paused'], 'spec.paused must be a boolean', chain);
}

export function checkHostedClusterPackage(ctx: LintContext, od: Obj, path: Path, chain: string): void {
  ctx.fields(od, path, chain, K1);
  const tspec = isObj(od.spec) && isObj(od.spec.template) ? od.spec.template.spec : undefined;
  if (!isObj(od.spec) || !isObj(od.spec.template)) ctx.report('error', K1, [...path, 'spec', 'template'], 'spec.template is required', chain);
  else if (!isObj(od.spec.strategy)) ctx.report('error', K1, [...path, 'spec', 'strategy'], 'spec.strategy is required (instant: {} or rollingUpgrade)', chain);
  if (isObj(tspec)) checkImage(ctx, tspec.image, [...path, 'spec', 'template', 'spec', 'image'], chain);
}

export function checkObjectTemplate(ctx: LintContext, ot: Obj, path: Path, chain: string): void {
  ctx.fields(ot, path, chain, K1);
  const spec = isObj(ot.spec) ? ot.spec : undefined;
  if (!spec || typeof spec.template !== 'string') {
    ctx.report('error', K1, [...path, 'spec', 'template'], 'ObjectTemplate needs spec.template (a Go template string)', chain);
    return;
  }
  if (!Array.isArray(spec.sources)) ctx.report('error', K1, [...path, 'spec', 'sources'], 'ObjectTemplate needs spec.sources (the CRD requires it; use [] for none)', chain);
  else spec.sources.forEach((s, i) => {
    const sp: Path = [...path, 'spec', 'sources', i];
    if (!isObj(s)) return;
    for (const k of ['apiVersion', 'kind', 'name', 'items']) if (s[k] === undefined) ctx.report('error', K1, [...sp, k], `source needs ${k}`, chain);
    (Array.isArray(s.items) ? s.items : []).forEach((it, j) => {
      if (!isObj(it) || typeof it.key !== 'string' || typeof it.destination !== 'string') ctx.report('error', K1, [...sp, 'items', j], 'a source item needs key and destination', chain);
      else if (!it.destination.startsWith('.')) ctx.report('error', K1, [...sp, 'items', j, 'destination'], `destination ${JSON.stringify(it.destination)} must be a JSONPath starting with "." (it lands under .config)`, chain);
    });
  });
  // The template renders to the Package: check the image line textually (Go template text).
  const text = spec.template;
  const m = /^\s*image:\s*(\S+)\s*$/m.exec(text.replace(/^\s*#.*$/gm, ''));
  const tp: Path = [...path, 'spec', 'template'];
  if (!/kind:\s*Package\b/.test(text)) ctx.report('warning', K1, tp, 'the ObjectTemplate does not render a Package', chain);
  // With the engine the rendered Package is checked instead (renderSample); without it, the text.
  if (!ctx.renderTemplate) {
    if (!m) ctx.report('error', K1, tp, 'the templated Package has no spec.image line', chain);
    else if (!m[1].includes('{{')) checkImage(ctx, m[1].replace(/^["']|["']$/g, ''), tp, chain);
  }
  const foreign = foreignTopLevelReads(text);
  if (foreign.length > 0) {
    ctx.report('warning', K1, tp, `an ObjectTemplate is rendered with .config and .environment only; ${foreign.map((f) => `.${f}`).join(', ')} renders as <no value>`, chain);
  }
  if (ctx.renderTemplate && !balance(text)) renderSample(ctx, text, Array.isArray(spec.sources) ? spec.sources : [], tp, chain);
}

/**
 * Top-level fields other than `.config` and `.environment` the template reads, from its parse
 * tree (so `.name` inside `range .config.items` is the element's, not the root's). A template
 * that does not parse reads nothing here: rendering it reports the parse error.
 */
function foreignTopLevelReads(text: string): string[] {
  const set = new TemplateSet({ funcs: pkoFuncMap({ executeTemplate: () => '', files: new Map() }) });
  try {
    set.parse('objecttemplate', text);
  } catch (e) {
    if (e instanceof GoTemplateError) return [];
    throw e;
  }
  return [...new Set(referencedFields(set).map((c) => c[0]))].filter((k) => k !== 'config' && k !== 'environment');
}

/** Renders the ObjectTemplate as PKO would, with every source present, and checks the Package it yields. */
function renderSample(ctx: LintContext, text: string, sources: unknown[], tp: Path, chain: string): void {
  const config: Obj = {};
  for (const s of sources) {
    if (!isObj(s)) continue;
    for (const it of Array.isArray(s.items) ? s.items : []) {
      if (!isObj(it) || typeof it.destination !== 'string') continue;
      try {
        const sample = `sample value of ${String(s.kind)}/${String(s.name)} ${String(it.key)}`;
        ctx.unknownValues.add(sample);
        setJsonPath(config, it.destination, sample);
      } catch (e) {
        ctx.report('error', K1, tp, `source destination ${JSON.stringify(it.destination)}: ${(e as Error).message}`, chain);
        return;
      }
    }
  }
  let out: string;
  try {
    out = ctx.renderTemplate!('objecttemplate', text, { config, environment: {} });
  } catch (e) {
    ctx.report('error', K1, tp, `PKO cannot render the ObjectTemplate (every source present): ${(e as Error).message}`, chain);
    return;
  }
  let obj: unknown;
  try {
    obj = parseYaml11(out);
  } catch (e) {
    ctx.report('error', K1, tp, `the rendered ObjectTemplate is not valid YAML${e instanceof YamlParseError && e.line ? ` (rendered line ${e.line})` : ''}: ${(e as Error).message}`, chain);
    return;
  }
  if (!isObj(obj) || obj.kind !== 'Package') {
    if (isObj(obj) && typeof obj.kind === 'string') return; // another kind is the author's choice; warned above
    ctx.report('error', K1, tp, 'the rendered ObjectTemplate is not an object', chain);
    return;
  }
  // Paths inside the rendered text do not exist in the Template: findings stay on the template field.
  const pchain = `${chain} > Package/${String(isObj(obj.metadata) ? obj.metadata.name : '?')} (rendered)`;
  const spec = isObj(obj.spec) ? obj.spec : {};
  checkImage(ctx, spec.image, tp, pchain);
  const md = isObj(obj.metadata) ? obj.metadata : {};
  if (md.namespace !== undefined) ctx.report('error', K1, tp, 'the rendered Package sets metadata.namespace; PKO places it in the ObjectTemplate\'s namespace', pchain);
  for (const p of ctx.schema?.({ ...obj, metadata: { ...md, namespace: 'ocm-sample-hcp' } }) ?? []) {
    ctx.report('error', K1, tp, `rendered Package ${formatPath(p.path)}: ${p.message} (CRD Package)`, pchain);
  }
  // Its config against the package (K2, with --package), as simulate checks it in each namespace.
  ctx.packages.push({ obj, path: tp, chain: pchain, rendered: true });
}

/** The top-level config key a K2 problem is about (`config: spec.config.KEY…`), if any. */
function problemKey(message: string): string | undefined {
  return /^config: spec\.config\.([^.:[\s]+)/.exec(message)?.[1];
}

/** K2: every Package object seen, against the package (`--package`). */
export function checkAgainstPackage(ctx: LintContext, check: PackageObjectCheck): void {
  for (const p of ctx.packages) {
    const spec = isObj(p.obj.spec) ? p.obj.spec : {};
    const config = isObj(spec.config) ? spec.config : {};
    // Keys whose value lint made up: the SaaS file (or the cluster) gives the real one.
    const unknown = new Set(Object.keys(config).filter((k) => typeof config[k] === 'string' && ctx.unknownValues.has(config[k] as string)));
    for (const problem of check(p.obj)) {
      const key = problemKey(problem.message);
      if (key !== undefined && unknown.has(key)) continue;
      ctx.report('error', K2, p.rendered ? p.path : [...p.path, ...problem.path], problem.message, p.chain);
    }
  }
}
