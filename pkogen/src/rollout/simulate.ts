/**
 * Follows a rollout Template through every hop to the Packages it creates:
 *   oc process (saasherder parameters) → hive: SSS clusterDeploymentSelector → service clusters
 *   → ACM: PlacementBinding → PlacementRule/Placement decision → management clusters
 *   → config-policy-controller: namespaceSelector fan-out, object-templates (ObjectTemplate
 *     rendered by PKO with its sources) → one Package per HCP namespace → PKO renders it.
 * Pure: the fleet, the Go template engine and the package renderer come in as values.
 */
import { redactLeaves } from '../pko/redact.js';
import type { PackageEnvironment } from '../pko/types.js';
import { parseYaml11, YamlParseError } from '../yaml/parse.js';
import type { Fleet, FleetManagedCluster, FleetNamespace } from './fleet.js';
import { DISABLE_TEMPLATES_ANNOTATION } from './generate.js';
import type { Finding } from '../core/errors.js';
import type { TemplateRenderer } from './rules/context.js';
import { isPkoPackage, lintRolloutTemplate, LintResult, SchemaValidator } from './lint.js';
import { fillLikeSaasherder, processTemplate, readParameters } from './process.js';
import { isEmptySelector, matchesSelector, selectNamespaces } from './selectors.js';
import { getJsonPath, setJsonPath } from './jsonpath.js';
import { resolveRawObjectTemplates } from './acm-templates.js';
import { C2, C4, C5, C6 } from './rules/configurationpolicy.js';
import { K1 } from './rules/package.js';
import { B1, B2 } from './rules/placement.js';
import { P1, P3 } from './rules/policy.js';
import { S2, S3 } from './rules/selectorsyncset.js';
import { T1, T3, T4 } from './rules/template.js';
import { isObj, str } from '../core/guards.js';

type Obj = Record<string, unknown>;
function nameOf(o: Obj): string {
  return str(isObj(o.metadata) ? o.metadata.name : undefined) ?? '';
}
function nsOf(o: Obj): string | undefined {
  return str(isObj(o.metadata) ? o.metadata.namespace : undefined);
}

/** Renders a Go text/template (PKO's function set) with data; throws on template errors. */
export type GoTemplateRenderer = TemplateRenderer;

export interface PackageRenderRequest {
  name: string;
  namespace: string;
  image: string;
  config: Record<string, unknown>;
  environment: PackageEnvironment;
}
/** Renders and validates the package for one Package object (render/validate branches). */
export type PackageRenderer = (req: PackageRenderRequest) => { objects: number; findings: Finding[] };

export interface SimulatedPackage {
  serviceCluster: string;
  managementCluster: string;
  namespace: string;
  policy: string;
  /**
   * What created the Package: the ConfigurationPolicy directly (`Package`; a ClusterPackage too,
   * with `namespace` ''), an ObjectTemplate PKO
   * rendered into one, a HostedClusterPackage, or hive itself from the SelectorSyncSet (the
   * classic rollout, a ClusterPackage or a Package in a fixed namespace; `namespace` '' for a ClusterPackage),
   * or the SaaS deployment itself (`Template`: a (Cluster)Package at the Template's top level, applied
   * to the SaaS target cluster).
   */
  via: 'Package' | 'ObjectTemplate' | 'HostedClusterPackage' | 'SelectorSyncSet' | 'Template';
  /** The object in the Template that placed this row, named as lint-rollout names it (its object chain). */
  object: string;
  package?: { name: string; image: string; config: Record<string, unknown> };
  rendered?: { objects: number };
  findings: Finding[];
}

export interface SimulationResult {
  lint: LintResult;
  /** Findings about the chain that belong to no single namespace. */
  findings: Finding[];
  hops: { selectorSyncSet: string; serviceClusters: string[]; policies: { policy: string; hub: string; managedClusters: string[] }[] }[];
  packages: SimulatedPackage[];
}

export interface SimulateOptions {
  parameters: Record<string, string>;
  fleet: Fleet;
  /** Base PKO environment (kubernetes/openShift versions, proxy); hyperShift is set per namespace. */
  environment?: PackageEnvironment;
  schema?: SchemaValidator;
  renderTemplate?: GoTemplateRenderer;
  renderPackage?: PackageRenderer;
}

/** A Package's config as a report shows it: its keys, every value replaced (no config value reaches an output). */
export function redactConfig(config: Record<string, unknown>): Record<string, unknown> {
  return redactLeaves(config);
}

function decide(spec: Obj | undefined, kind: string, clusters: FleetManagedCluster[], hasSetBinding: (set: string) => boolean): FleetManagedCluster[] {
  if (!spec) spec = {};
  if (kind === 'PlacementRule') {
    if (Array.isArray(spec.clusters) && spec.clusters.length > 0) {
      const names = new Set(spec.clusters.map((c) => (isObj(c) ? String(c.name) : String(c))));
      return clusters.filter((c) => names.has(c.name));
    }
    return clusters.filter((c) => matchesSelector(spec!.clusterSelector, c.labels)); // empty ⇒ all
  }
  // Placement: only clusters of bound sets; predicates OR-ed; none ⇒ all in the sets.
  const sets = Array.isArray(spec.clusterSets) && spec.clusterSets.length > 0 ? spec.clusterSets.map(String) : null;
  const eligible = clusters.filter((c) => (c.clusterSets ?? []).some((s) => hasSetBinding(s) && (sets === null || sets.includes(s))));
  const preds = Array.isArray(spec.predicates) ? spec.predicates.filter(isObj) : [];
  if (preds.length === 0) return eligible;
  return eligible.filter((c) =>
    preds.some((p) => {
      const rcs = isObj(p.requiredClusterSelector) ? p.requiredClusterSelector : {};
      return matchesSelector(rcs.labelSelector, c.labels);
    }),
  );
}

export function simulateRollout(file: string, text: string, opts: SimulateOptions): SimulationResult {
  const lint = lintRolloutTemplate(file, text, { parameters: opts.parameters, schema: opts.schema, renderTemplate: opts.renderTemplate });
  const result: SimulationResult = { lint, findings: [], hops: [], packages: [] };
  if (!lint.template) return result;
  // Strict processing: what oc process does with exactly the parameters given.
  const declared = readParameters(lint.template.value);
  const fill = fillLikeSaasherder({ given: opts.parameters, declared, placeholders: false });
  for (const p of fill.problems) result.findings.push({ severity: 'error', rule: T3.id, message: p.message });
  const processed = processTemplate(lint.template.value, fill.values);
  for (const p of processed.problems) result.findings.push({ severity: 'error', rule: T1.id, message: `${p.message} (give it with -p)` });
  if (result.findings.some((f) => f.severity === 'error')) return result;

  // A (Cluster)Package at the top level: saasherder applies it to the SaaS target cluster itself.
  for (const o of processed.objects) if (isObj(o) && isPkoPackage(o)) result.packages.push(targetPackage(o, opts));
  processed.objects.forEach((sss) => {
    if (!isObj(sss) || sss.kind !== 'SelectorSyncSet' || !isObj(sss.spec)) return;
    const sssName = `SelectorSyncSet/${nameOf(sss)}`;
    const sel = sss.spec.clusterDeploymentSelector;
    // Lint reports an empty selector with its line; said again here only when lint could not see it.
    if (isEmptySelector(sel) && !lint.findings.some((f) => f.rule === S2.id && f.object === sssName)) result.findings.push({ severity: 'error', rule: S2.id, object: sssName, message: 'empty clusterDeploymentSelector: applied to every ClusterDeployment on the shard' });
    let cds;
    try {
      cds = opts.fleet.clusterDeployments.filter((cd) => matchesSelector(sel, cd.labels));
    } catch (e) {
      result.findings.push({ severity: 'error', rule: S2.id, object: sssName, message: (e as Error).message });
      return;
    }
    const hop: SimulationResult['hops'][number] = { selectorSyncSet: nameOf(sss), serviceClusters: cds.map((c) => c.name), policies: [] };
    result.hops.push(hop);
    const resources = (Array.isArray(sss.spec.resources) ? sss.spec.resources : []).filter(isObj);
    const hasAcm = resources.some((r) => r.kind === 'Policy');
    if (cds.length === 0) result.findings.push({ severity: 'warning', rule: S3.id, object: sssName, message: 'the SelectorSyncSet selects no ClusterDeployment of the fleet: nothing is applied' });
    const direct = resources.filter(isPkoPackage);
    for (const cd of cds) {
      // The classic rollout: hive applies the (Cluster)Package itself on every selected cluster.
      for (const r of direct) result.packages.push(directPackage(r, cd.name, sssName, opts));
      if (!cd.managedClusters) {
        if (hasAcm) result.findings.push({ severity: 'error', rule: S3.id, object: sssName, message: `applied to ${cd.name}, which is not an ACM hub: the Policy kinds are unknown there (ClusterSync UnknownObject)` });
        continue;
      }
      hubRollout(resources, cd.name, cd.managedClusters, sssName, hop, opts, result);
    }
  });
  if (result.packages.length === 0 && !lint.findings.some((f) => f.rule === T4.id)) {
    result.findings.push({ severity: 'error', rule: T4.id, message: 'no Package or ClusterPackage is placed anywhere in the fleet: the rollout installs nothing (see the hops above)' });
  }
  return result;
}

/** The SaaS target cluster, for a (Cluster)Package at the Template's top level. */
export const SAAS_TARGET = '(saas target)';

function targetPackage(r: Obj, opts: SimulateOptions): SimulatedPackage {
  // A Package without namespace goes to the SaaS target's namespace, which the Template does not name.
  const namespace = r.kind === 'ClusterPackage' ? '' : (nsOf(r) ?? 'default');
  const object = `${String(r.kind)}/${nameOf(r)}`;
  const entry: SimulatedPackage = { serviceCluster: SAAS_TARGET, managementCluster: SAAS_TARGET, namespace, policy: object, via: 'Template', object, findings: [] };
  return finishPackage(entry, r, { name: namespace, labels: {} }, opts);
}

/** A (Cluster)Package a SelectorSyncSet carries, as installed on one selected cluster. */
function directPackage(r: Obj, cluster: string, sssName: string, opts: SimulateOptions): SimulatedPackage {
  const namespace = r.kind === 'ClusterPackage' ? '' : (nsOf(r) ?? 'default');
  // A Package without namespace lands in "default" (lint's S5 reports it once).
  const entry: SimulatedPackage = { serviceCluster: cluster, managementCluster: cluster, namespace, policy: sssName, via: 'SelectorSyncSet', object: `${sssName} > ${String(r.kind)}/${nameOf(r)}`, findings: [] };
  return finishPackage(entry, r, { name: namespace, labels: {} }, opts);
}

function hubRollout(
  resources: Obj[],
  hub: string,
  clusters: FleetManagedCluster[],
  sssName: string,
  hop: SimulationResult['hops'][number],
  opts: SimulateOptions,
  result: SimulationResult,
): void {
  const find = (kind: string, name: unknown, ns: string | undefined) => resources.find((r) => r.kind === kind && nameOf(r) === name && nsOf(r) === ns);
  const setBindings = new Set(resources.filter((r) => r.kind === 'ManagedClusterSetBinding').map((r) => `${nsOf(r)}/${nameOf(r)}`));
  const targets = new Map<Obj, Set<FleetManagedCluster>>();
  for (const b of resources.filter((r) => r.kind === 'PlacementBinding')) {
    const ns = nsOf(b);
    const ref = isObj(b.placementRef) ? b.placementRef : undefined;
    const placement = ref ? find(String(ref.kind), ref.name, ns) : undefined;
    if (!placement) continue; // lint B1 reports it
    const decided = decide(isObj(placement.spec) ? placement.spec : undefined, String(placement.kind), clusters, (s) => setBindings.has(`${ns}/${s}`));
    for (const s of Array.isArray(b.subjects) ? b.subjects.filter(isObj) : []) {
      const policy = find(String(s.kind), s.name, ns);
      if (!policy || policy.kind !== 'Policy') continue;
      const set = targets.get(policy) ?? new Set();
      decided.forEach((c) => set.add(c));
      targets.set(policy, set);
    }
  }
  for (const policy of resources.filter((r) => r.kind === 'Policy')) {
    const pname = `${sssName} > Policy/${nameOf(policy)}`;
    const chosen = [...(targets.get(policy) ?? [])].sort((a, b) => a.name.localeCompare(b.name));
    hop.policies.push({ policy: nameOf(policy), hub, managedClusters: chosen.map((c) => c.name) });
    const spec = isObj(policy.spec) ? policy.spec : {};
    if (spec.disabled === true) {
      result.findings.push({ severity: 'warning', rule: P1.id, object: pname, message: 'the Policy is disabled: nothing is propagated' });
      continue;
    }
    if (chosen.length === 0) result.findings.push({ severity: 'warning', rule: B1.id, object: pname, message: `on hub ${hub} the Policy is placed on no ManagedCluster` });
    for (const mc of chosen) {
      if (Object.keys(mc.labels).some((k) => k === 'hypershift.open-cluster-management.io/hosted-cluster') && JSON.stringify(policy).includes('package-operator.run')) {
        result.findings.push({ severity: 'error', rule: B2.id, object: pname, message: `placed on hosted cluster ${mc.name}, which has no PKO Package CRD: the policy is NonCompliant there` });
        continue;
      }
      const templates = Array.isArray(spec['policy-templates']) ? spec['policy-templates'].filter(isObj) : [];
      for (const t of templates) {
        const cp = isObj(t.objectDefinition) ? t.objectDefinition : undefined;
        if (cp?.kind !== 'ConfigurationPolicy') continue;
        configurationPolicy(cp, str(spec.remediationAction), hub, mc, `${pname} > ConfigurationPolicy/${nameOf(cp)}`, nameOf(policy), opts, result);
      }
    }
  }
}

function configurationPolicy(
  cp: Obj,
  policyRemediation: string | undefined,
  hub: string,
  mc: FleetManagedCluster,
  chain: string,
  policyName: string,
  opts: SimulateOptions,
  result: SimulationResult,
): void {
  const spec = isObj(cp.spec) ? cp.spec : {};
  const remediation = (policyRemediation ?? str(spec.remediationAction) ?? 'inform').toLowerCase();
  const annotations = isObj(cp.metadata) && isObj(cp.metadata.annotations) ? cp.metadata.annotations : {};
  const templatesDisabled = annotations[DISABLE_TEMPLATES_ANNOTATION] === 'true';
  let ots: Obj[];
  const raw = spec['object-templates-raw'];
  if (typeof raw === 'string') {
    if (templatesDisabled) {
      // §6.2 trap (a): the raw string is never parsed.
      result.findings.push({ severity: 'error', rule: C5.id, object: chain, message: `on ${mc.name}: templates are disabled, so object-templates-raw yields nothing (Compliant, silently)` });
      return;
    }
    try {
      ots = resolveRawObjectTemplates(raw, mc).filter(isObj);
    } catch (e) {
      result.findings.push({ severity: 'error', rule: C5.id, object: chain, message: `on ${mc.name}: object-templates-raw: ${(e as Error).message}` });
      return;
    }
    if (ots.length === 0) result.findings.push({ severity: 'warning', rule: C2.id, object: chain, message: `on ${mc.name}: object-templates-raw yields no object template (Compliant, nothing created)` });
  } else ots = Array.isArray(spec['object-templates']) ? spec['object-templates'].filter(isObj) : [];
  for (const ot of ots) {
    const od = isObj(ot.objectDefinition) ? ot.objectDefinition : undefined;
    if (!od) continue;
    const ochain = `${chain} > ${String(od.kind)}/${nameOf(od)}`;
    // A resolved raw list is not templated again; an object-templates entry is, unless disabled.
    if (typeof raw !== 'string' && !templatesDisabled && JSON.stringify(od).includes('{{')) {
      result.findings.push({ severity: 'error', rule: C4.id, object: ochain, message: `on ${mc.name}: ACM executes the {{ }} in this objectDefinition (no ${DISABLE_TEMPLATES_ANNOTATION} annotation); the policy reports a template error` });
      continue;
    }
    if (String(ot.complianceType).toLowerCase() === 'mustnothave') {
      result.findings.push({ severity: 'warning', rule: C6.id, object: ochain, message: `on ${mc.name}: mustnothave: the object is deleted, not created` });
      continue;
    }
    if (remediation !== 'enforce') {
      result.findings.push({ severity: 'warning', rule: P3.id, object: ochain, message: `on ${mc.name}: remediation is inform: nothing is created, only reported` });
      continue;
    }
    const base = { serviceCluster: hub, managementCluster: mc.name, policy: policyName, object: ochain };
    if (od.kind === 'HostedClusterPackage') {
      const hspec = isObj(od.spec) ? od.spec : {};
      const tmpl = isObj(hspec.template) && isObj(hspec.template.spec) ? hspec.template.spec : {};
      for (const ns of mc.namespaces.filter((n) => n.hostedCluster)) {
        if (!matchesSelector(hspec.hostedClusterSelector, ns.hostedCluster!.labels ?? {})) continue;
        result.packages.push(finishPackage({ ...base, namespace: ns.name, via: 'HostedClusterPackage', findings: [] }, { apiVersion: 'package-operator.run/v1alpha1', kind: 'Package', metadata: { name: nameOf(od) }, spec: tmpl }, ns, opts));
      }
      continue;
    }
    if (od.kind === 'ClusterPackage') {
      // Cluster-scoped: one per managed cluster, whatever the namespaceSelector says.
      result.packages.push(finishPackage({ ...base, namespace: '', via: 'Package', findings: [] }, od, { name: '', labels: {} }, opts));
      continue;
    }
    if (od.kind !== 'Package' && od.kind !== 'ObjectTemplate') continue;
    let namespaces: string[];
    const fixed = nsOf(od);
    if (fixed) namespaces = [fixed];
    else {
      const sel = selectNamespaces(spec.namespaceSelector, mc.namespaces);
      if (sel === null || sel.length === 0) {
        result.findings.push({ severity: 'error', rule: C2.id, object: ochain, message: `on ${mc.name}: namespaced object ${nameOf(od)} of kind ${String(od.kind)} has no namespace specified from the policy namespaceSelector nor the object metadata (NonCompliant)` });
        continue;
      }
      namespaces = sel;
    }
    const byName = new Map(mc.namespaces.map((n) => [n.name, n]));
    for (const nsName of namespaces) {
      const ns = byName.get(nsName) ?? { name: nsName, labels: {} };
      const entry: SimulatedPackage = { ...base, namespace: nsName, via: od.kind === 'Package' ? 'Package' : 'ObjectTemplate', findings: [] };
      if (!ns.hostedCluster) entry.findings.push({ severity: 'warning', rule: C2.id, object: ochain, message: `namespace ${nsName} is not a hosted control plane namespace` });
      if (ns.terminating) {
        // §11 #18: terminatingInclusion defaults to IfMatch.
        entry.findings.push({ severity: 'warning', rule: C2.id, object: ochain, message: `namespace ${nsName} is terminating: creating the ${String(od.kind)} fails and the policy is NonCompliant until it is gone (namespaceSelector.terminatingInclusion: Never avoids it)` });
        result.packages.push(entry);
        continue;
      }
      if (od.kind === 'Package') result.packages.push(finishPackage(entry, od, ns, opts));
      else {
        const pkg = renderObjectTemplate(od, ns, entry, ochain, opts);
        result.packages.push(pkg ? finishPackage(entry, pkg, ns, opts) : entry);
      }
    }
  }
}

function renderObjectTemplate(ot: Obj, ns: FleetNamespace, entry: SimulatedPackage, chain: string, opts: SimulateOptions): Obj | undefined {
  const spec = isObj(ot.spec) ? ot.spec : {};
  const config: Obj = {};
  for (const src of Array.isArray(spec.sources) ? spec.sources.filter(isObj) : []) {
    const srcNs = str(src.namespace) ?? ns.name;
    const obj = (ns.name === srcNs ? ns.objects ?? [] : []).find((o) => o.kind === src.kind && o.apiVersion === src.apiVersion && o.metadata.name === src.name);
    if (!obj) {
      if (src.optional !== true) {
        entry.findings.push({ severity: 'error', rule: K1.id, object: chain, message: `source ${String(src.kind)} ${srcNs}/${String(src.name)} not found: PKO cannot render the ObjectTemplate` });
        return undefined;
      }
      continue;
    }
    for (const it of Array.isArray(src.items) ? src.items.filter(isObj) : []) {
      try {
        const v = getJsonPath(obj, String(it.key));
        if (v === undefined) {
          entry.findings.push({ severity: 'error', rule: K1.id, object: chain, message: `source ${String(src.kind)}/${String(src.name)}: key ${String(it.key)} not found` });
          return undefined;
        }
        setJsonPath(config, String(it.destination), v);
      } catch (e) {
        entry.findings.push({ severity: 'error', rule: K1.id, object: chain, message: `source item ${String(it.key)} → ${String(it.destination)}: ${(e as Error).message}` });
        return undefined;
      }
    }
  }
  if (!opts.renderTemplate) {
    entry.findings.push({ severity: 'error', rule: K1.id, object: chain, message: 'rendering an ObjectTemplate needs a Go template renderer (SimulateOptions.renderTemplate), and none was given' });
    return undefined;
  }
  let text: string;
  try {
    text = opts.renderTemplate(`${nameOf(ot)}`, String(spec.template ?? ''), { config, environment: {} });
  } catch (e) {
    entry.findings.push({ severity: 'error', rule: K1.id, object: chain, message: `PKO template error: ${(e as Error).message}` });
    return undefined;
  }
  let obj: unknown;
  try {
    obj = parseRenderedText(text);
  } catch (e) {
    const line = e instanceof YamlParseError && e.line ? ` (rendered line ${e.line})` : '';
    entry.findings.push({ severity: 'error', rule: K1.id, object: chain, message: `the rendered ObjectTemplate is not valid YAML${line}: ${(e as Error).message}` });
    return undefined;
  }
  if (!isObj(obj) || obj.kind !== 'Package') {
    entry.findings.push({ severity: 'error', rule: K1.id, object: chain, message: `the ObjectTemplate renders ${isObj(obj) ? `a ${String(obj.kind)}` : 'no object'}, not a Package` });
    return undefined;
  }
  return obj;
}

// Namespaces whose sources hold the same values render the same text: it is parsed once, and
// each namespace gets its own copy of the result (callers may change what they get).
const parsedTexts = new Map<string, unknown>();
const MAX_PARSED_TEXTS = 64;

function parseRenderedText(text: string): unknown {
  const hit = parsedTexts.get(text);
  if (hit !== undefined) return copyPlain(hit);
  const obj = parseYaml11(text);
  if (obj !== undefined && isPlain(obj)) {
    if (parsedTexts.size >= MAX_PARSED_TEXTS) parsedTexts.delete(parsedTexts.keys().next().value as string);
    parsedTexts.set(text, copyPlain(obj));
  }
  return obj;
}

/** Only null, strings, numbers, booleans, arrays and plain objects (what copyPlain copies exactly). */
function isPlain(v: unknown): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return true;
  if (Array.isArray(v)) return v.every(isPlain);
  if (typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype) return false;
  return Object.values(v as Obj).every(isPlain);
}

function copyPlain(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(copyPlain);
  const out: Obj = {};
  for (const k of Object.keys(v as Obj)) {
    // `__proto__` as an own key (YAML allows it) must stay a key, not become the prototype
    if (k === '__proto__') Object.defineProperty(out, k, { value: copyPlain((v as Obj)[k]), enumerable: true, writable: true, configurable: true });
    else out[k] = copyPlain((v as Obj)[k]);
  }
  return out;
}

const DIGEST_REF = /^[^@\s]+@sha256:[0-9a-f]{64}$/;

function finishPackage(entry: SimulatedPackage, pkg: Obj, ns: FleetNamespace, opts: SimulateOptions): SimulatedPackage {
  const name = nameOf(pkg);
  const spec = isObj(pkg.spec) ? pkg.spec : {};
  const image = str(spec.image) ?? '';
  const config = isObj(spec.config) ? spec.config : {};
  entry.package = { name, image, config };
  const meta = isObj(pkg.metadata) ? pkg.metadata : {};
  const placed = ns.name === '' ? pkg : { ...pkg, metadata: { ...meta, namespace: ns.name } };
  const kind = String(pkg.kind ?? 'Package');
  if (opts.schema) {
    for (const p of opts.schema(placed) ?? []) entry.findings.push({ severity: 'error', rule: K1.id, message: `${kind} ${p.path.join('.')}: ${p.message}` });
  }
  // A Package written in the Template has its image checked by lint (K1), once; only a rendered one's is new here.
  if (entry.via === 'ObjectTemplate' && !DIGEST_REF.test(image)) entry.findings.push({ severity: image.includes(':sha256:') || image === '' ? 'error' : 'warning', rule: K1.id, message: `${kind} image ${JSON.stringify(image)} is not pinned by digest (repo@sha256:<hex>)` });
  if (opts.renderPackage) {
    const env: PackageEnvironment = {
      ...(opts.environment ?? {}),
      hyperShift: ns.hostedCluster
        ? { hostedCluster: { metadata: { name: ns.hostedCluster.name, namespace: ns.hostedCluster.namespace, labels: ns.hostedCluster.labels, annotations: ns.hostedCluster.annotations }, hostedClusterNamespace: ns.name } }
        : undefined,
    };
    try {
      const r = opts.renderPackage({ name, namespace: ns.name, image, config, environment: env });
      entry.rendered = { objects: r.objects };
      entry.findings.push(...r.findings);
    } catch (e) {
      entry.findings.push({ severity: 'error', rule: K1.id, message: `rendering the package failed: ${(e as Error).message}` });
    }
  }
  return entry;
}
