/**
 * What a team has today → a PackageDefinition. Pure: sources come in as FileMaps, the result is
 * the definition plus a report naming every input object that was not converted and why.
 * Two kinds of input: one PKO package directory (kept as it is: phases, probes, config, test
 * cases; `.gotmpl` files stay Go templates, carried as files), or any number of plain manifest
 * files and directories (multi-document YAML, `List`s, OpenShift `Template`s' objects).
 */
import { type FileMap, toText } from '../core/filemap.js';
import { formatLocation, UserError } from '../core/errors.js';
import { buildPackage } from '../model/build-package.js';
import type { KubeObject, PackageDefinition, PackageObject } from '../model/package.js';
import { crdEstablishedProbe, deploymentAvailabilityProbe } from '../model/hypershift.js';
import { groupOf } from '../schema/scope.js';
import { LOCK_FILES, MANIFEST_FILES, loadPackage } from '../pko/loader.js';
import { isObjectFile } from '../pko/objects.js';
import { isTemplateFile, stripTemplateSuffix } from '../pko/render.js';
import { TEMPLATE_SUFFIX } from '../model/synthesize.js';
import { configKeysUsed, testCaseFromSchema } from './testcase.js';
import { parametrize, type ParametrizeOption } from './parametrize.js';
import { splitTemplateFile, type TemplatedDoc } from './templated.js';
import { FIXTURES_DIR } from '../pko/template-tests.js';
import { type ObjectSetProbe, PHASE_ANNOTATION, type PackageManifestScope, Violation } from '../pko/types.js';
import { parseAllYaml11, parseYaml11, splitPkoDocuments, YamlParseError } from '../yaml/parse.js';
import { ORDERED_PHASES, phaseFor } from './phases.js';

export interface KickstartSource {
  /** As the user named it (for messages). */
  name: string;
  /** A directory's files, or a single file under its base name. */
  files: FileMap;
  isDirectory: boolean;
}

export interface NotConverted {
  file: string;
  /** 0-based document index in the file, when the problem is one document. */
  doc?: number;
  /** `Kind name`, when known. */
  object?: string;
  reason: string;
}

export interface KickstartOptions {
  /** Package name for plain manifests (default: `my-package`). */
  name?: string;
  /** Scopes for plain manifests (default: both, as `kubectl package kickstart` writes). */
  scopes?: PackageManifestScope[];
  /** Plain manifests: what to turn into config, as `kubectl package kickstart --parametrize`. */
  parametrize?: ParametrizeOption[];
}

export interface KickstartResult {
  from: 'pko-package' | 'manifests';
  definition: PackageDefinition;
  /** Generation-check rules the input breaks; the emitted bundle reports them as warnings. */
  relaxRules: string[];
  converted: number;
  notConverted: NotConverted[];
  warnings: string[];
  /** What kickstart added (not a problem): printed with the summary. */
  notes?: string[];
}

/** Metadata the API server fills in; copying it into a package would make PKO fight the server. */
const SERVER_METADATA = ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields', 'selfLink'];
const MAX_OBJECTS = 10_000;

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const where = (n: NotConverted) => formatLocation({ file: n.file, doc: n.doc });

/** A file that builds an image or a package, not one the package holds. */
export function isBuildFile(p: string): boolean {
  const base = p.split('/').pop() ?? p;
  return /^(Dockerfile|Containerfile)([.-].*)?$/i.test(base) || /\.(Dockerfile|Containerfile)$/i.test(base) || /^(Makefile|GNUmakefile)$/.test(base) || /^\.(docker|container)ignore$/.test(base);
}

export function formatNotConverted(n: NotConverted): string {
  return `${where(n)}: ${n.object ? n.object + ': ' : ''}${n.reason}`;
}

function parseStatic(text: string, file: string): unknown {
  try {
    return parseYaml11(text, file);
  } catch (e) {
    if (!(e instanceof YamlParseError)) throw e;
    throw new UserError(`cannot kickstart this package: invalid YAML: ${e.message}`, { file, line: e.line, column: e.column });
  }
}

function decodeUtf8(file: string, bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UserError('not UTF-8 text', { file });
  }
}

/** A Secret whose data would be copied into the package (and so into an image and git). */
function secretWithData(o: Record<string, unknown>): boolean {
  if (o.kind !== 'Secret' || groupOf(String(o.apiVersion ?? '')) !== '') return false;
  const filled = (v: unknown) => isMap(v) && Object.keys(v).length > 0;
  return filled(o.data) || filled(o.stringData);
}

/** Checks the shape PKO needs and returns a cleaned copy, or the reason it cannot be used. */
function asKubeObject(v: unknown, warnings: string[], at: string): KubeObject | string {
  if (!isMap(v)) return 'document is not a mapping';
  if (typeof v.apiVersion !== 'string' || v.apiVersion === '') return 'missing apiVersion';
  if (typeof v.kind !== 'string' || v.kind === '') return 'missing kind';
  if (!isMap(v.metadata)) return 'missing metadata';
  if (typeof v.metadata.name !== 'string' || v.metadata.name === '') return 'missing metadata.name (generateName is not supported by PKO)';
  if (secretWithData(v)) return 'Secret with data is not copied into a package (it would end up in git and in the image): create it out of band, or template it from the package config';
  const { status, ...rest } = v;
  const metadata = { ...(v.metadata as Record<string, unknown>) };
  const dropped = SERVER_METADATA.filter((k) => k in metadata);
  for (const k of dropped) delete metadata[k];
  if (status !== undefined) dropped.push('status');
  if (dropped.length) warnings.push(`${at}: ${v.kind} ${String(metadata.name)}: dropped server-set ${dropped.join(', ')}`);
  return { ...rest, metadata } as KubeObject;
}

const identity = (o: KubeObject) => `${groupOf(o.apiVersion)}/${o.kind}/${typeof o.metadata.namespace === 'string' ? o.metadata.namespace : ''}/${o.metadata.name}`;

/** Rules the definition breaks (as errors) in pkogen's generation checks. */
async function brokenRules(def: PackageDefinition): Promise<string[]> {
  const { findings } = await buildPackage(def);
  return [...new Set(findings.filter((f) => f.severity === 'error').map((f) => f.rule))].sort();
}

export async function kickstart(sources: KickstartSource[], opts: KickstartOptions = {}): Promise<KickstartResult> {
  if (sources.length === 0) throw new UserError('kickstart: no sources');
  const pkoDirs = sources.filter((s) => s.isDirectory && MANIFEST_FILES.some((m) => s.files.has(m)));
  if (pkoDirs.length > 0) {
    if (sources.length > 1) throw new UserError('a PKO package directory must be the only source', { file: pkoDirs[0].name });
    if (opts.parametrize?.length) throw new UserError('--parametrize applies to plain manifests: a PKO package directory is already templated', { file: pkoDirs[0].name });
    return fromPkoPackage(pkoDirs[0]);
  }
  return fromManifests(sources, opts);
}

// ---- plain manifests -------------------------------------------------------------------------

async function fromManifests(sources: KickstartSource[], opts: KickstartOptions): Promise<KickstartResult> {
  const notConverted: NotConverted[] = [];
  const warnings: string[] = [];
  const objects: PackageObject[] = [];
  const seen = new Map<string, string>();
  const add = (raw: unknown, file: string, doc: number) => {
    const at = formatLocation({ file, doc });
    const o = asKubeObject(raw, warnings, at);
    const label = isMap(raw) && isMap(raw.metadata) ? `${String(raw.kind)} ${String(raw.metadata.name)}` : undefined;
    if (typeof o === 'string') return void notConverted.push({ file, doc, object: label, reason: o });
    const id = identity(o);
    if (seen.has(id)) return void notConverted.push({ file, doc, object: label, reason: `duplicate of the object at ${seen.get(id)}` });
    if (objects.length >= MAX_OBJECTS) return void notConverted.push({ file, doc, object: label, reason: `more than ${MAX_OBJECTS} objects` });
    seen.set(id, at);
    objects.push({ phase: phaseFor(o.apiVersion, o.kind), object: o });
  };
  for (const src of sources) {
    for (const [p, bytes] of [...src.files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const file = src.isDirectory ? `${src.name.replace(/\/+$/, '')}/${p}` : src.name;
      if (!/\.(ya?ml|json)$/.test(p)) {
        if (!src.isDirectory) notConverted.push({ file, reason: 'not a .yaml, .yml or .json file' });
        continue;
      }
      let docs: unknown[];
      try {
        docs = parseAllYaml11(decodeUtf8(file, bytes), file);
      } catch (e) {
        if (!(e instanceof YamlParseError)) throw e;
        throw new UserError(`invalid YAML: ${e.message}`, { file, line: e.line, column: e.column });
      }
      docs.forEach((d, i) => {
        if (d === null || d === undefined) return;
        if (isMap(d) && d.kind === 'List' && Array.isArray(d.items)) return d.items.forEach((it) => add(it, file, i));
        if (isMap(d) && d.kind === 'Template' && (d.apiVersion === 'template.openshift.io/v1' || d.apiVersion === 'v1')) {
          const params = Array.isArray(d.parameters) ? d.parameters.length : 0;
          if (params) warnings.push(`${formatLocation({ file, doc: i })}: Template parameters (${params}) are not converted: \${NAME} references stay literal text; move them into the package config`);
          return (Array.isArray(d.objects) ? d.objects : []).forEach((it) => add(it, file, i));
        }
        add(d, file, i);
      });
    }
  }
  if (objects.length === 0) throw new UserError(`no Kubernetes objects found in ${sources.map((s) => s.name).join(', ')}${notConverted.length ? ` (${notConverted.map(formatNotConverted).join('; ')})` : ''}`);
  const used = new Set(objects.map((o) => o.phase));
  const scopes = opts.scopes ?? ['Cluster', 'Namespaced'];
  const name = opts.name ?? 'my-package';
  // Stable order: by phase, then as the inputs listed them.
  const order = (p: string) => ORDERED_PHASES.indexOf(p as (typeof ORDERED_PHASES)[number]);
  objects.sort((a, b) => order(a.phase) - order(b.phase));
  const param = opts.parametrize?.length ? parametrize(objects, new Set(opts.parametrize)) : undefined;
  const definition: PackageDefinition = {
    name,
    scopes,
    phases: ORDERED_PHASES.filter((p) => used.has(p)).map((p) => ({ name: p })),
    ...(param && Object.keys(param.schema.properties ?? {}).length ? { config: param.schema } : {}),
    objects: param ? param.objects : objects,
    availabilityProbes: probesFor(objects),
    // One test case so that `pkogen generate` writes fixtures a reviewer can diff.
    testCases: [{ name: 'default', context: { package: { metadata: { name, namespace: scopes.includes('Namespaced') ? name : '' } }, environment: {} } }],
  };
  return { from: 'manifests', definition, relaxRules: await brokenRules(definition), converted: objects.length, notConverted, warnings };
}

/** Availability probes for the kinds pkogen knows how to probe (upstream kickstart probes more kinds). */
function probesFor(objects: PackageObject[]): ObjectSetProbe[] {
  const has = (group: string, kind: string) => objects.some((o) => o.object.kind === kind && groupOf(o.object.apiVersion) === group);
  const probes: ObjectSetProbe[] = [];
  if (has('apiextensions.k8s.io', 'CustomResourceDefinition')) probes.push(crdEstablishedProbe());
  if (has('apps', 'Deployment')) probes.push(deploymentAvailabilityProbe());
  return probes;
}

// ---- PKO package directory -------------------------------------------------------------------

async function fromPkoPackage(src: KickstartSource): Promise<KickstartResult> {
  const refuse = (reason: string, file = 'manifest.yaml'): never => {
    throw new UserError(`cannot kickstart this package: ${reason}`, { file: `${src.name.replace(/\/+$/, '')}/${file}` });
  };
  let pkg;
  try {
    pkg = loadPackage(src.files);
  } catch (e) {
    if (e instanceof Violation) refuse(`PKO rejects it: ${e.message}`);
    throw e;
  }
  const m = pkg.manifest;
  const s = m.spec;

  const warnings: string[] = [];
  const notes: string[] = [];
  const objects: PackageObject[] = [];
  const files: Record<string, string> = {};
  const phases = new Set(s.phases.map((p) => p.name));
  for (const [p, bytes] of [...src.files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (MANIFEST_FILES.includes(p) || p.startsWith(`${FIXTURES_DIR}/`)) continue;
    // A multi-component package's components are packages of their own: carried as they are.
    if ((pkg.components || s.components != null) && p.startsWith('components/')) {
      if (isBuildFile(p)) {
        warnings.push(`${p}: not carried: a build file, not part of the package (it would ship in the package image)`);
        continue;
      }
      files[p] = decodeUtf8(p, bytes);
      continue;
    }
    // Files that build the package image (Dockerfile.pko, Containerfile, Makefile, ignore files)
    // live beside many packages; carried, they would ship inside the package image.
    if (isBuildFile(p)) {
      warnings.push(`${p}: not carried: a build file, not part of the package (it would ship in the package image); keep it beside the generated package/`);
      continue;
    }
    const text = decodeUtf8(p, bytes);
    const templated = isTemplateFile(p) && isObjectFile(stripTemplateSuffix(p));
    // Helpers, lock file, docs: carried unchanged. Static YAML holding `{{` is carried too,
    // because the model would turn it into a template and change what it means.
    if (LOCK_FILES.includes(p) || (!templated && (isTemplateFile(p) || !isObjectFile(p) || text.includes('{{')))) {
      files[p] = text;
      continue;
    }
    const docs: TemplatedDoc[] = templated ? [] : splitPkoDocuments(text).map((d) => ({ kind: 'object' as const, value: d.text === '' ? null : parseStatic(d.text, `${src.name.replace(/\/+$/, '')}/${p}`), line: d.line }));
    if (templated) {
      const t = splitTemplateFile(text, s.config?.openAPIV3Schema);
      if (t.whole) {
        warnings.push(`${formatLocation({ file: p, line: t.whole.line })}: kept as template text: ${t.whole.reason}`);
        files[p] = text;
        continue;
      }
      docs.push(...t.docs);
    }
    const kept: string[] = [];
    const fromFile: PackageObject[] = [];
    for (const [i, d] of docs.entries()) {
      if (d.kind === 'empty' || (d.kind === 'object' && (d.value === null || d.value === undefined))) continue;
      if (d.kind === 'template') {
        const label = /^kind:\s*(\S+)/m.exec(d.text)?.[1];
        warnings.push(`${formatLocation({ file: p, line: d.line })}: document ${i}${label ? ` (${label})` : ''}: kept as template text: ${d.reason}`);
        kept.push(d.text + '\n');
        continue;
      }
      const o = asKubeObject(d.value, warnings, formatLocation({ file: p, doc: i }));
      if (typeof o === 'string') refuse(`document ${i}: ${o}`, p);
      const obj = o as KubeObject;
      const { [PHASE_ANNOTATION]: phase, ...annotations } = (obj.metadata.annotations ?? {}) as Record<string, unknown>;
      if (typeof phase !== 'string' || !phases.has(phase)) refuse(`document ${i}: ${obj.kind} ${obj.metadata.name}: phase annotation missing or not a declared phase`, p);
      const metadata = { ...obj.metadata };
      if (Object.keys(annotations).length) metadata.annotations = annotations as KubeObject['metadata'][string];
      else delete metadata.annotations;
      fromFile.push({ phase: phase as string, file: stripTemplateSuffix(p), object: { ...obj, metadata } });
    }
    objects.push(...fromFile);
    if (kept.length) {
      // Documents kept as text go to a file of their own when converted objects take the path.
      const keptPath = fromFile.length === 0 ? p : stripTemplateSuffix(p).replace(/(\.ya?ml)$/, '.templated$1') + TEMPLATE_SUFFIX;
      files[keptPath] = kept.join('---\n');
    }
  }
  const definition: PackageDefinition = { name: m.metadata.name ?? '', scopes: s.scopes, phases: s.phases, objects };
  if (s.availabilityProbes?.length) definition.availabilityProbes = s.availabilityProbes;
  if (s.config?.openAPIV3Schema) definition.config = s.config.openAPIV3Schema;
  if (s.images?.length) definition.images = s.images;
  if (s.constraints?.length) definition.constraints = s.constraints;
  if (s.filter !== undefined) definition.filter = s.filter;
  if (s.repositories?.length) definition.repositories = s.repositories;
  if (s.dependencies?.length) definition.dependencies = s.dependencies;
  if (pkg.components || s.components != null) definition.components = true;
  if (m.test?.kubeconform) definition.kubeconform = m.test.kubeconform;
  if (m.test?.template?.length) definition.testCases = m.test.template;
  else {
    // No test case: one from the config schema's required keys (and the keys the templates use
    // without a default), so that fixtures are written and
    // `make test` renders the package.
    const ns = s.scopes.includes('Namespaced') ? (/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(definition.name) ? definition.name : 'kickstart') : '';
    const templates = [...src.files].filter(([p]) => isTemplateFile(p)).map(([p, b]) => decodeUtf8(p, b));
    const { testCase, unsure } = testCaseFromSchema(definition.name, ns, definition.config, configKeysUsed(templates));
    definition.testCases = [testCase];
    notes.push(`manifest.yaml: test.template: added test case "kickstart" with the config schema's required keys and the keys its templates use that have no default`);
    if (unsure.length) warnings.push(`manifest.yaml: test.template: test case "kickstart": check the values of ${unsure.join(', ')} (no value surely fits the schema)`);
  }
  if (Object.keys(files).length) definition.files = files;
  return { from: 'pko-package', definition, relaxRules: await brokenRules(definition), converted: objects.length + Object.keys(files).length, notConverted: [], warnings, notes };
}
