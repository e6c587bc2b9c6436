/**
 * Lints a rollout Template (docs/rollout-reference.md §10, rules T1–K1) after filling its
 * parameters the way app-interface does (§2), so what is checked is what hive, ACM and PKO get.
 * Every finding names the object chain, the field path in the Template and the source line.
 */
import type { Finding, Severity } from '../core/errors.js';
import {
  CLUSTER_SCOPED_KINDS, COMPLIANCE, EVALUATION_INTERVAL, KNOWN_FIELDS, METADATA_COMPLIANCE, NAMESPACED_KINDS,
  OBJECT_TEMPLATE_ITEM_FIELDS, PRUNE, REMEDIATION, SEVERITY,
} from './fields.js';
import { ACM_POLICY_NAMESPACE, CLUSTER_TYPE_LABEL, DISABLE_TEMPLATES_ANNOTATION, HCP_NAMESPACE_LABEL, MANAGEMENT_CLUSTER_LABEL, POLICY_NAME_BUDGET } from './generate.js';
import { fillLikeSaasherder, parameterUses, processTemplate, readParameters } from './process.js';
import { globMatch, isEmptySelector, matchesSelector } from './selectors.js';
import { formatPath, lineOf, LoadedTemplate, loadTemplate, Path } from './source.js';
import { setJsonPath } from './jsonpath.js';
import { redactFor } from '../pko/redact.js';
import { parseYaml11, YamlParseError } from '../yaml/parse.js';

/** A CRD validator for one object: problems (path relative to the object), or undefined for an unknown kind. */
export type SchemaValidator = (obj: Record<string, unknown>) => { path: Path; message: string }[] | undefined;

export interface LintOptions {
  /** Parameters as the SaaS file gives them (`-p NAME=VALUE`). */
  parameters?: Record<string, string>;
  /** Strict CRD validation of every nested object; the built-in field table is used besides. */
  schema?: SchemaValidator;
  hashLength?: number;
  /** Go template engine (PKO functions) to render ObjectTemplates with sample sources. */
  renderTemplate?: (name: string, text: string, data: Record<string, unknown>) => string;
  /**
   * The package the (Cluster)Packages point at: checks one Package object's scope and config
   * against the package manifest (`--package`). Problems are relative to the Package object.
   */
  checkPackage?: PackageObjectCheck;
}

/** Checks a Package or ClusterPackage object against its package: problems with a path below the object. */
export type PackageObjectCheck = (obj: Record<string, unknown>) => { path: Path; message: string }[];

export interface LintResult {
  findings: Finding[];
  /** Parameter values used, with their origin (secrets are never in a Template parameter default we print). */
  parameters: Record<string, { value: string; origin: string }>;
  /** Processed objects (for simulate), undefined when the file could not be read. */
  objects?: unknown[];
  template?: LoadedTemplate;
}

type Obj = Record<string, unknown>;
function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
function objName(o: unknown): string {
  if (!isObj(o)) return '?';
  const md = isObj(o.metadata) ? o.metadata : {};
  return `${str(o.kind) ?? '?'}/${str(md.name) ?? '?'}`;
}

const PARAM_NAME = /^[a-zA-Z0-9_]+$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** An OSD/ROSA HCP namespace name, for checking include globs (§1). */
const SAMPLE_HCP_NAMESPACE = 'ocm-production-24o19ba52km496nvegb629918l9gbnvu-my-cluster';
const DIGEST_REF = /^[^@\s]+@sha256:[0-9a-f]{64}$/;

/** A PKO Package or ClusterPackage (the objects that take an image and a config). */
export function isPkoPackage(o: Obj): boolean {
  return (o.kind === 'Package' || o.kind === 'ClusterPackage') && typeof o.apiVersion === 'string' && o.apiVersion.startsWith('package-operator.run/');
}

class Linter {
  readonly findings: Finding[] = [];
  /** ConfigurationPolicy name → first Policy path using it (P4 across policies). */
  private readonly cfgPolicyNames = new Map<string, string>();
  private readonly deferred: { obj: Obj; path: Path; chain: string; rule: string }[] = [];
  /** Package/ClusterPackage objects seen (in Policies or carried directly), for the package checks. */
  readonly packages: { obj: Obj; path: Path; chain: string }[] = [];

  constructor(readonly t: LoadedTemplate, readonly schema?: SchemaValidator, readonly renderTemplate?: LintOptions['renderTemplate'], readonly checkPackage?: PackageObjectCheck) {}

  report(severity: Severity, rule: string, path: Path, message: string, object?: string): void {
    this.findings.push({ severity, rule, message, file: this.t.file, path: formatPath(path) || undefined, line: lineOf(this.t, path), object });
  }

  /** Unknown fields at the levels listed in KNOWN_FIELDS, plus the schema validator if given. */
  fields(obj: Obj, path: Path, chain: string, rule: string): void {
    const kind = str(obj.kind);
    const table = kind ? KNOWN_FIELDS[kind] : undefined;
    const reported = new Set<string>();
    if (table) {
      for (const [sub, known] of Object.entries(table)) {
        const subPath = sub === '' ? [] : sub.split('.');
        let v: unknown = obj;
        for (const p of subPath) v = isObj(v) ? v[p] : undefined;
        if (!isObj(v)) continue;
        for (const k of Object.keys(v)) {
          if (!known.includes(k)) {
            const full = [...path, ...subPath, k];
            reported.add(formatPath(full));
            this.report('error', rule, full, `unknown field "${[...subPath, k].join('.')}" in ${kind} (the API server rejects it with strict field validation, older ones drop it silently)`, chain);
          }
        }
      }
    }
    if (this.schema) this.deferred.push({ obj, path, chain, rule });
  }

  /** CRD validation runs last so that a rule's own, more specific finding on a path wins. */
  schemaChecks(): void {
    if (!this.schema) return;
    const taken = new Set(this.findings.filter((f) => f.severity === 'error').map((f) => f.path ?? ''));
    for (const d of this.deferred) {
      let problems: { path: Path; message: string }[] | undefined;
      try {
        problems = this.schema(d.obj);
      } catch (e) {
        this.report('error', d.rule, d.path, `schema validation failed: ${redactFor(d.obj, '', (e as Error).message)}`, d.chain);
        continue;
      }
      if (problems === undefined) {
        this.report('info', d.rule, d.path, `no CRD known for ${String(d.obj.apiVersion)} ${String(d.obj.kind)}: not schema-checked`, d.chain);
        continue;
      }
      for (const p of problems) {
        const full = formatPath([...d.path, ...p.path]);
        if (taken.has(full) || [...taken].some((t) => t !== '' && full.startsWith(t + '.'))) continue;
        taken.add(full);
        this.report('error', d.rule, [...d.path, ...p.path], `${redactFor(d.obj, formatPath(p.path), p.message)} (CRD ${String(d.obj.kind)})`, d.chain);
      }
    }
  }

  name(obj: Obj, path: Path, chain: string, rule: string): string | undefined {
    const md = obj.metadata;
    const n = isObj(md) ? md.name : undefined;
    if (typeof n !== 'string' || n === '') {
      this.report('error', rule, [...path, 'metadata', 'name'], 'metadata.name is missing', chain);
      return undefined;
    }
    if (n.length > 253 || !DNS_SUBDOMAIN.test(n)) {
      this.report('error', rule, [...path, 'metadata', 'name'], `metadata.name ${JSON.stringify(n)} is not a DNS-1123 subdomain (lowercase alphanumerics, '-', '.', at most 253 characters)`, chain);
    }
    return n;
  }

  template(): LintResult['objects'] {
    const v = this.t.value;
    if (!isObj(v)) {
      this.report('error', 'T1', [], 'a Template must be a YAML mapping');
      return undefined;
    }
    // T1: kind, apiVersion, parameters.
    if (v.kind !== 'Template') this.report('error', 'T1', ['kind'], `kind must be Template, not ${JSON.stringify(v.kind)}`);
    if (v.apiVersion !== 'v1' && v.apiVersion !== 'template.openshift.io/v1') this.report('error', 'T1', ['apiVersion'], `apiVersion must be v1 or template.openshift.io/v1, not ${JSON.stringify(v.apiVersion)}`);
    if (v.parameters !== undefined && v.parameters !== null && !Array.isArray(v.parameters)) this.report('error', 'T1', ['parameters'], 'parameters must be a list');
    const seen = new Map<string, number>();
    (Array.isArray(v.parameters) ? v.parameters : []).forEach((p, i) => {
      if (!isObj(p) || typeof p.name !== 'string') {
        this.report('error', 'T1', ['parameters', i], 'a parameter needs a name');
        return;
      }
      if (!PARAM_NAME.test(p.name)) this.report('error', 'T1', ['parameters', i, 'name'], `parameter name ${JSON.stringify(p.name)} must match [a-zA-Z0-9_]+`);
      if (seen.has(p.name)) this.report('error', 'T1', ['parameters', i, 'name'], `parameter ${p.name} is declared twice (first at parameters[${seen.get(p.name)}])`);
      else seen.set(p.name, i);
      if (p.generate !== undefined && p.generate !== 'expression') this.report('error', 'T1', ['parameters', i, 'generate'], `generate must be "expression", not ${JSON.stringify(p.generate)}`);
    });
    if (v.objects !== undefined && v.objects !== null && !Array.isArray(v.objects)) {
      this.report('error', 'T1', ['objects'], 'objects must be a list');
      return undefined;
    }
    if (!Array.isArray(v.objects) || v.objects.length === 0) {
      // A Template emptied on purpose (a rollout being retired) is valid for oc process.
      this.report('warning', 'T1', ['objects'], 'objects is empty: this Template deploys nothing');
      return undefined;
    }
    // T2: used vs declared, on the unprocessed objects.
    const declared = readParameters(v);
    const declaredNames = new Set(declared.map((p) => p.name));
    const uses = parameterUses(v.objects, ['objects']);
    const used = new Set(uses.map((u) => u.name));
    const undeclaredSeen = new Set<string>();
    for (const u of uses) {
      if (declaredNames.has(u.name) || undeclaredSeen.has(u.name)) continue;
      undeclaredSeen.add(u.name);
      this.report('warning', 'T2', u.path, `\${${u.name}} is not a declared parameter: oc process leaves it verbatim`);
    }
    for (const p of declared) {
      if (!used.has(p.name)) this.report('warning', 'T2', ['parameters', p.index], `parameter ${p.name} is declared but never used`);
    }
    return v.objects;
  }

  run(given: Record<string, string>, hashLength?: number): LintResult {
    const rawObjects = this.template();
    if (!rawObjects) return { findings: this.findings, parameters: {}, template: this.t };
    const declared = readParameters(this.t.value);
    const fill = fillLikeSaasherder({ given, declared, placeholders: true, hashLength });
    for (const p of fill.problems) this.report('error', 'T3', p.path, p.message);
    // T3: the digest parameters work only when the SaaS file supplies REGISTRY_IMG.
    const digestParam = declared.find((p) => p.name === 'IMAGE_DIGEST' || p.name === 'REPO_DIGEST');
    if (digestParam && fill.origin.REGISTRY_IMG === 'placeholder') {
      this.report('info', 'T3', ['parameters', digestParam.index], `${digestParam.name} is computed by saasherder from REGISTRY_IMG:IMAGE_TAG: the SaaS resourceTemplate must set REGISTRY_IMG and its imagePatterns must cover it`);
    }
    for (const p of declared) {
      if (fill.origin[p.name] === 'placeholder' && p.name !== 'REGISTRY_IMG') {
        this.report('info', 'T2', ['parameters', p.index], `parameter ${p.name} is required and has no value here: the SaaS file must set it (linted with ${JSON.stringify(fill.values[p.name])})`);
      }
    }
    const declaredNames = new Set(declared.map((p) => p.name));
    for (const k of Object.keys(given).sort()) {
      // oc process --ignore-unknown-parameters: a SaaS parameter the Template does not declare is dropped.
      if (!declaredNames.has(k) && k !== 'REGISTRY_IMG' && k !== 'COMMIT_SHA' && k !== 'IMAGE_TAG') this.report('info', 'T2', ['parameters'], `-p ${k} is not a parameter of this Template: oc process ignores it`);
    }
    const processed = processTemplate(this.t.value, fill.values);
    for (const p of processed.problems) this.report('error', 'T1', p.path, p.message);
    const parameters: LintResult['parameters'] = {};
    for (const [k, val] of Object.entries(processed.values)) parameters[k] = { value: val, origin: fill.origin[k] ?? (given[k] !== undefined ? 'given' : 'default') };

    processed.objects.forEach((o, i) => {
      const path: Path = ['objects', i];
      if (!isObj(o)) {
        this.report('error', 'T1', path, 'an object must be a mapping');
        return;
      }
      if (o.kind !== 'SelectorSyncSet') {
        // §11 #15: saasherder keeps only managedResourceTypes. Whether this SaaS file lists the kind
        // is not in the Template (Templates applied directly to a cluster carry a ClusterPackage or
        // ConfigMap at top level on purpose), so this is advice, not a defect.
        this.report('info', 'S1', path, `${objName(o)} is applied only if the SaaS file lists ${String(o.kind)} in managedResourceTypes (HyperShift Policy rollouts list only SelectorSyncSet)`);
        if (isPkoPackage(o)) this.packageObject(o, path, objName(o));
        return;
      }
      this.selectorSyncSet(o, path);
    });
    this.schemaChecks();
    if (this.checkPackage) {
      for (const p of this.packages) {
        for (const problem of this.checkPackage(p.obj)) this.report('error', 'K2', [...p.path, ...problem.path], problem.message, p.chain);
      }
    }
    return { findings: this.findings, parameters, objects: processed.objects, template: this.t };
  }

  selectorSyncSet(sss: Obj, path: Path): void {
    const chain = objName(sss);
    if (sss.apiVersion !== 'hive.openshift.io/v1') this.report('error', 'S1', [...path, 'apiVersion'], `apiVersion must be hive.openshift.io/v1, not ${JSON.stringify(sss.apiVersion)}`, chain);
    this.name(sss, path, chain, 'S1');
    this.fields(sss, path, chain, 'S1');
    const spec = sss.spec;
    if (!isObj(spec)) {
      this.report('error', 'S1', [...path, 'spec'], 'spec is missing', chain);
      return;
    }
    const mode = spec.resourceApplyMode;
    if (mode !== undefined && mode !== 'Upsert' && mode !== 'Sync') this.report('error', 'S1', [...path, 'spec', 'resourceApplyMode'], `resourceApplyMode must be Upsert or Sync, not ${JSON.stringify(mode)} (hive webhook)`, chain);
    else if (mode !== 'Sync') this.report('warning', 'S1', [...path, 'spec', 'resourceApplyMode'], 'resourceApplyMode is Upsert: resources removed from the list stay on the hub; use Sync', chain);
    if (spec.applyBehavior !== undefined && !['', 'Apply', 'CreateOnly', 'CreateOrUpdate'].includes(String(spec.applyBehavior))) {
      this.report('error', 'S1', [...path, 'spec', 'applyBehavior'], `applyBehavior must be one of Apply, CreateOnly, CreateOrUpdate`, chain);
    }
    // S2
    const cds = spec.clusterDeploymentSelector;
    if (isEmptySelector(cds)) {
      const why = cds === null ? ' (the key is there but empty: check the indentation of matchLabels/matchExpressions)' : '';
      this.report('error', 'S2', [...path, 'spec', 'clusterDeploymentSelector'], `clusterDeploymentSelector is empty${why}: hive applies this SelectorSyncSet to every ClusterDeployment on the shard`, chain);
    } else {
      this.selectorOperators(cds, [...path, 'spec', 'clusterDeploymentSelector'], chain, 'S2');
    }
    const resources = Array.isArray(spec.resources) ? spec.resources : [];
    // Hive: resources, patches and secretMappings are all optional (SyncSetCommonSpec).
    const present = (k: string) => spec[k] !== undefined && spec[k] !== null;
    if (present('resources') && !Array.isArray(spec.resources)) this.report('error', 'S1', [...path, 'spec', 'resources'], 'resources must be a list', chain);
    else if (!present('resources') && !present('patches') && !present('secretMappings')) {
      this.report('warning', 'S1', [...path, 'spec'], 'the SelectorSyncSet has no resources, patches or secretMappings: it syncs nothing', chain);
    }
    const carriesPolicies = resources.some((r) => isObj(r) && r.kind === 'Policy');
    // S3
    if (carriesPolicies && !isEmptySelector(cds)) this.serviceClusterTarget(cds as Obj, [...path, 'spec', 'clusterDeploymentSelector'], chain);
    // S4
    if (spec.enableResourceTemplates === true && JSON.stringify(resources).includes('{{')) {
      this.report('error', 'S4', [...path, 'spec', 'enableResourceTemplates'], 'enableResourceTemplates is true and the resources contain {{ }}: hive would execute the ACM/PKO templates itself', chain);
    }
    const byKind = new Map<string, { obj: Obj; path: Path; name: string; ns?: string }[]>();
    resources.forEach((r, j) => {
      const rp: Path = [...path, 'spec', 'resources', j];
      if (!isObj(r)) {
        this.report('error', 'S5', rp, 'a resource must be a mapping', chain);
        return;
      }
      const rchain = `${chain} > ${objName(r)}`;
      if (typeof r.apiVersion !== 'string' || r.apiVersion === '') this.report('error', 'S5', [...rp, 'apiVersion'], 'apiVersion is missing', rchain);
      if (typeof r.kind !== 'string' || r.kind === '') {
        this.report('error', 'S5', [...rp, 'kind'], 'kind is missing', rchain);
        return;
      }
      const name = this.name(r, rp, rchain, 'S5');
      const md = isObj(r.metadata) ? r.metadata : {};
      const ns = str(md.namespace);
      if (NAMESPACED_KINDS.has(r.kind) && !ns) {
        this.report('error', 'S5', [...rp, 'metadata'], `${r.kind} is namespaced and has no metadata.namespace: hive applies it into "default"`, rchain);
      }
      if (ns && CLUSTER_SCOPED_KINDS.has(r.kind)) this.report('warning', 'S5', [...rp, 'metadata', 'namespace'], `${r.kind} is cluster-scoped; metadata.namespace is ignored`, rchain);
      if (['Policy', 'PlacementRule', 'PlacementBinding', 'Placement', 'ManagedClusterSetBinding', 'PolicySet'].includes(r.kind) && ns && ns !== ACM_POLICY_NAMESPACE) {
        this.report('warning', 'S5', [...rp, 'metadata', 'namespace'], `${r.kind} in namespace ${ns}: the hubs' policy namespace is ${ACM_POLICY_NAMESPACE} (created by managed-cluster-config); another namespace may not exist there`, rchain);
      }
      // S6
      if (r.kind === 'Namespace' && name === ACM_POLICY_NAMESPACE) {
        this.report('warning', 'S6', rp, `do not ship Namespace ${ACM_POLICY_NAMESPACE}: managed-cluster-config's Sync SelectorSyncSet owns it`, rchain);
      }
      if (name) {
        const list = byKind.get(r.kind) ?? [];
        list.push({ obj: r, path: rp, name, ns });
        byKind.set(r.kind, list);
      }
      switch (r.kind) {
        case 'Policy':
          this.policy(r, rp, rchain);
          break;
        case 'PlacementRule':
          this.placementRule(r, rp, rchain);
          break;
        case 'Placement':
        case 'ManagedClusterSetBinding':
        case 'PlacementBinding':
          this.fields(r, rp, rchain, r.kind === 'PlacementBinding' ? 'B1' : 'B3');
          break;
        case 'ClusterPackage':
        case 'Package':
          // The classic rollout: hive applies the (Cluster)Package on every selected cluster.
          if (isPkoPackage(r)) this.packageObject(r, rp, rchain);
          else this.fields(r, rp, rchain, 'S5');
          break;
        default:
          this.fields(r, rp, rchain, 'S5');
      }
      this.delimiters(r, rp, rchain);
    });
    this.bindings(byKind, chain);
  }

  selectorOperators(sel: unknown, path: Path, chain: string, rule: string): void {
    if (!isObj(sel)) return;
    (Array.isArray(sel.matchExpressions) ? sel.matchExpressions : []).forEach((e, i) => {
      const op = isObj(e) ? e.operator : undefined;
      if (!['In', 'NotIn', 'Exists', 'DoesNotExist'].includes(String(op))) {
        this.report('error', rule, [...path, 'matchExpressions', i, 'operator'], `operator must be In, NotIn, Exists or DoesNotExist, not ${JSON.stringify(op)}`, chain);
      } else if ((op === 'In' || op === 'NotIn') && !(isObj(e) && Array.isArray(e.values) && e.values.length > 0)) {
        this.report('error', rule, [...path, 'matchExpressions', i, 'values'], `operator ${String(op)} needs a non-empty values list`, chain);
      }
    });
  }

  serviceClusterTarget(sel: Obj, path: Path, chain: string): void {
    const probe = (type: string, extra: Record<string, string> = {}): boolean => {
      try {
        return matchesSelector(sel, { [CLUSTER_TYPE_LABEL]: type, 'api.openshift.com/managed': 'true', ...extra });
      } catch {
        return false;
      }
    };
    if (!probe('service-cluster')) {
      const hitsMgmt = probe('management-cluster') || probe('management-cluster-v2');
      this.report(
        'warning',
        'S3',
        path,
        hitsMgmt
          ? 'this SelectorSyncSet carries ACM Policies but targets management clusters: Policies belong on the ACM hubs, the service clusters (ext-hypershift.openshift.io/cluster-type In [service-cluster])'
          : 'this SelectorSyncSet carries ACM Policies but does not select service clusters (ext-hypershift.openshift.io/cluster-type In [service-cluster])',
        chain,
      );
      return;
    }
    const keys = new Set<string>([...Object.keys(isObj(sel.matchLabels) ? sel.matchLabels : {}), ...(Array.isArray(sel.matchExpressions) ? sel.matchExpressions.map((e) => String(isObj(e) ? e.key : '')) : [])]);
    if (!keys.has('api.openshift.com/managed')) this.report('info', 'S3', path, 'consider api.openshift.com/managed In ["true"] to keep the rollout to OSD-managed service clusters', chain);
    if (!keys.has('api.openshift.com/fedramp')) this.report('info', 'S3', path, 'consider api.openshift.com/fedramp NotIn ["true"] unless this is meant for FedRAMP', chain);
  }

  policy(p: Obj, path: Path, chain: string): void {
    this.fields(p, path, chain, 'P5');
    const md = isObj(p.metadata) ? p.metadata : {};
    const name = str(md.name);
    const ns = str(md.namespace);
    // P2: runes, like utf8.RuneCount.
    if (name && ns && [...name].length + [...ns].length > POLICY_NAME_BUDGET) {
      this.report('error', 'P2', [...path, 'metadata', 'name'], `the combined length of the policy namespace and name cannot exceed ${POLICY_NAME_BUDGET} characters: ${ns} (${[...ns].length}) + ${name} (${[...name].length}) = ${[...ns].length + [...name].length}`, chain);
    }
    const spec = p.spec;
    if (!isObj(spec)) {
      this.report('error', 'P1', [...path, 'spec'], 'spec is missing', chain);
      return;
    }
    if (typeof spec.disabled !== 'boolean') this.report('error', 'P1', [...path, 'spec', 'disabled'], spec.disabled === undefined ? 'spec.disabled is required by the Policy CRD' : 'spec.disabled must be a boolean', chain);
    if (spec.remediationAction !== undefined && !REMEDIATION.includes(String(spec.remediationAction))) {
      this.report('error', 'P1', [...path, 'spec', 'remediationAction'], `remediationAction must be one of ${REMEDIATION.join(', ')}`, chain);
    }
    const templates = spec['policy-templates'];
    if (!Array.isArray(templates) || templates.length === 0) {
      this.report('error', 'P1', [...path, 'spec', 'policy-templates'], 'policy-templates must be a non-empty list', chain);
      return;
    }
    const seen = new Map<string, number>();
    let allCfgSetRemediation = true;
    let effective: string[] = [];
    templates.forEach((t, i) => {
      const tp: Path = [...path, 'spec', 'policy-templates', i];
      if (!isObj(t) || !isObj(t.objectDefinition)) {
        this.report('error', 'P1', tp, 'a policy template needs objectDefinition', chain);
        allCfgSetRemediation = false;
        return;
      }
      for (const k of Object.keys(t)) if (!['objectDefinition', 'extraDependencies', 'ignorePending'].includes(k)) this.report('error', 'P5', [...tp, k], `unknown field "${k}" in a policy template`, chain);
      const od = t.objectDefinition;
      const odPath = [...tp, 'objectDefinition'];
      const key = `${String(od.kind)}/${String(isObj(od.metadata) ? od.metadata.name : '')}`;
      if (seen.has(key)) this.report('error', 'P4', odPath, `All policy-template names must be unique within a policy: ${key} also at policy-templates[${seen.get(key)}]`, chain);
      else seen.set(key, i);
      if (od.kind === 'ConfigurationPolicy') {
        const cname = str(isObj(od.metadata) ? od.metadata.name : undefined);
        if (cname) {
          const first = this.cfgPolicyNames.get(cname);
          if (first !== undefined && first !== formatPath(path)) {
            this.report('error', 'P4', [...odPath, 'metadata', 'name'], `Template name must be unique: ConfigurationPolicy ${cname} is also in the Policy at ${first}; both land in the same managed cluster namespace`, chain);
          } else this.cfgPolicyNames.set(cname, formatPath(path));
        }
        const cra = isObj(od.spec) ? od.spec.remediationAction : undefined;
        if (cra === undefined) allCfgSetRemediation = false;
        effective.push(String(spec.remediationAction ?? cra ?? 'inform'));
        this.configurationPolicy(od, odPath, `${chain} > ${objName(od)}`);
      } else {
        this.fields(od, odPath, `${chain} > ${objName(od)}`, 'P5');
      }
    });
    // P3
    if (spec.remediationAction === undefined && !allCfgSetRemediation) {
      this.report('error', 'P3', [...path, 'spec', 'remediationAction'], 'RemediationAction field of the policy and policy template cannot both be unset', chain);
    } else if (effective.some((e) => e.toLowerCase() !== 'enforce')) {
      this.report('warning', 'P3', [...path, 'spec', 'remediationAction'], 'the effective remediationAction is inform: ACM reports the Package missing but never creates it', chain);
    }
    effective = [];
  }

  configurationPolicy(cp: Obj, path: Path, chain: string): void {
    this.fields(cp, path, chain, 'C1');
    if (cp.apiVersion !== 'policy.open-cluster-management.io/v1') this.report('error', 'C1', [...path, 'apiVersion'], `apiVersion must be policy.open-cluster-management.io/v1`, chain);
    const md = isObj(cp.metadata) ? cp.metadata : {};
    if (!str(md.name)) this.report('error', 'C1', [...path, 'metadata', 'name'], 'metadata.name is missing', chain);
    const annotations = isObj(md.annotations) ? md.annotations : {};
    const disableTemplates = annotations[DISABLE_TEMPLATES_ANNOTATION] === 'true';
    const spec = cp.spec;
    if (!isObj(spec)) {
      this.report('error', 'C1', [...path, 'spec'], 'spec is missing', chain);
      return;
    }
    const sp = [...path, 'spec'];
    const enumCheck = (field: string, allowed: string[]) => {
      if (spec[field] !== undefined && !allowed.includes(String(spec[field]))) this.report('error', 'C1', [...sp, field], `${field} must be one of ${allowed.join(', ')}, not ${JSON.stringify(spec[field])}`, chain);
    };
    enumCheck('remediationAction', REMEDIATION);
    enumCheck('severity', SEVERITY);
    enumCheck('pruneObjectBehavior', PRUNE);
    if (isObj(spec.evaluationInterval)) {
      for (const k of ['compliant', 'noncompliant']) {
        const v = spec.evaluationInterval[k];
        if (v !== undefined && !(typeof v === 'string' && EVALUATION_INTERVAL.test(v))) this.report('error', 'C1', [...sp, 'evaluationInterval', k], `evaluationInterval.${k} ${JSON.stringify(v)} is not a duration like 2m, 45s, never or watch`, chain);
      }
    }
    // C3
    if (spec.pruneObjectBehavior !== 'DeleteIfCreated' && spec.pruneObjectBehavior !== 'DeleteAll') {
      this.report('warning', 'C3', sp, 'pruneObjectBehavior is not DeleteIfCreated: removing the policy leaves what it created behind (a Package keeps running in every HCP namespace)', chain);
    }
    const hasOT = spec['object-templates'] !== undefined && spec['object-templates'] !== null;
    const hasRaw = spec['object-templates-raw'] !== undefined && spec['object-templates-raw'] !== null;
    if (hasOT && hasRaw) this.report('error', 'C1', sp, 'spec may only contain one of object-templates and object-templates-raw', chain);
    if (!hasOT && !hasRaw) {
      const why = 'object-templates' in spec ? ' (object-templates is there but empty: check its indentation)' : '';
      this.report('error', 'C1', sp, `spec needs object-templates or object-templates-raw${why}`, chain);
      return;
    }
    if (hasRaw) {
      this.raw(spec['object-templates-raw'], [...sp, 'object-templates-raw'], chain, disableTemplates);
      return;
    }
    const ots = spec['object-templates'];
    if (!Array.isArray(ots) || ots.length === 0) {
      this.report('error', 'C1', [...sp, 'object-templates'], 'object-templates must be a non-empty list', chain);
      return;
    }
    ots.forEach((ot, i) => {
      const op: Path = [...sp, 'object-templates', i];
      if (!isObj(ot)) {
        this.report('error', 'C1', op, 'an object template must be a mapping', chain);
        return;
      }
      for (const k of Object.keys(ot)) if (!OBJECT_TEMPLATE_ITEM_FIELDS.includes(k)) this.report('error', 'C1', [...op, k], `unknown field "${k}" in an object template`, chain);
      if (!COMPLIANCE.includes(String(ot.complianceType))) this.report('error', 'C1', [...op, 'complianceType'], `complianceType must be one of musthave, mustonlyhave, mustnothave (any documented casing), not ${JSON.stringify(ot.complianceType)}`, chain);
      if (ot.metadataComplianceType !== undefined && !METADATA_COMPLIANCE.includes(String(ot.metadataComplianceType))) this.report('error', 'C1', [...op, 'metadataComplianceType'], 'metadataComplianceType must be musthave or mustonlyhave', chain);
      const od = ot.objectDefinition;
      if (!isObj(od)) {
        this.report('error', 'C1', [...op, 'objectDefinition'], 'objectDefinition is missing', chain);
        return;
      }
      const ct = String(ot.complianceType).toLowerCase();
      // C6
      if (ct === 'mustonlyhave' && ot.metadataComplianceType === undefined) this.report('warning', 'C6', [...op, 'metadataComplianceType'], 'mustonlyhave without metadataComplianceType: musthave fights every controller that adds labels or annotations', chain);
      const odp: Path = [...op, 'objectDefinition'];
      const ochain = `${chain} > ${objName(od)}`;
      if (ct === 'mustnothave' && (od.kind === 'Package' || od.kind === 'ObjectTemplate')) this.report('warning', 'C6', [...op, 'complianceType'], `mustnothave deletes the ${String(od.kind)} in every selected namespace`, ochain);
      // C4: ACM executes any {{ }} in an objectDefinition unless templates are disabled.
      if (JSON.stringify(od).includes('{{') && !disableTemplates) {
        this.report('error', 'C4', [...path, 'metadata', 'annotations'], `the objectDefinition contains {{ }} (${od.kind === 'ObjectTemplate' ? 'PKO template' : 'template text'}) and the ConfigurationPolicy lacks annotation ${DISABLE_TEMPLATES_ANNOTATION}: "true": ACM would execute it`, ochain);
      }
      if (od.kind === 'Package' || od.kind === 'ObjectTemplate') this.fanOut(od, odp, ochain, spec.namespaceSelector, [...sp, 'namespaceSelector']);
      if (od.kind === 'Package') this.packageObject(od, odp, ochain);
      else if (od.kind === 'ObjectTemplate') this.objectTemplate(od, odp, ochain);
      else if (od.kind === 'HostedClusterPackage') {
        this.fields(od, odp, ochain, 'K1');
        const tspec = isObj(od.spec) && isObj(od.spec.template) ? od.spec.template.spec : undefined;
        if (!isObj(od.spec) || !isObj(od.spec.template)) this.report('error', 'K1', [...odp, 'spec', 'template'], 'spec.template is required', ochain);
        else if (!isObj(od.spec.strategy)) this.report('error', 'K1', [...odp, 'spec', 'strategy'], 'spec.strategy is required (instant: {} or rollingUpgrade)', ochain);
        if (isObj(tspec)) this.image(tspec.image, [...odp, 'spec', 'template', 'spec', 'image'], ochain);
      } else this.fields(od, odp, ochain, 'C1');
    });
  }

  fanOut(od: Obj, path: Path, chain: string, sel: unknown, selPath: Path): void {
    const md = isObj(od.metadata) ? od.metadata : {};
    if (!str(md.name)) this.report('error', 'C2', [...path, 'metadata', 'name'], `${String(od.kind)} needs metadata.name`, chain);
    if (md.namespace !== undefined) {
      this.report('error', 'C2', [...path, 'metadata', 'namespace'], `${String(od.kind)} has metadata.namespace: the namespaceSelector is ignored and only that namespace gets it`, chain);
      return;
    }
    if (!isObj(sel) || (isEmptySelector(sel) && !(Array.isArray(sel.include) && sel.include.length > 0))) {
      this.report('error', 'C2', selPath, `namespaceSelector is empty${sel === null ? ' (the key is there but empty: check indentation)' : ''}: no namespace is selected and the policy is NonCompliant ("has no namespace specified from the policy namespaceSelector")`, chain);
      return;
    }
    const ml = isObj(sel.matchLabels) ? sel.matchLabels : {};
    const exprs = Array.isArray(sel.matchExpressions) ? sel.matchExpressions.filter(isObj) : [];
    const byLabel = ml[HCP_NAMESPACE_LABEL] !== undefined || exprs.some((e) => e.key === HCP_NAMESPACE_LABEL);
    if (!byLabel) {
      this.report('warning', 'C2', selPath, `namespaceSelector does not use the label ${HCP_NAMESPACE_LABEL}: "true" that HyperShift puts on every control-plane namespace`, chain);
    } else {
      try {
        const probe = { name: SAMPLE_HCP_NAMESPACE, labels: { [HCP_NAMESPACE_LABEL]: 'true' } };
        if (!matchesSelector({ matchLabels: ml, matchExpressions: exprs as never }, probe.labels)) {
          this.report('error', 'C2', selPath, `namespaceSelector does not match HCP namespaces (label ${HCP_NAMESPACE_LABEL}: "true")`, chain);
        } else if (ml[HCP_NAMESPACE_LABEL] === undefined && exprs.some((e) => e.key === HCP_NAMESPACE_LABEL && e.operator === 'Exists')) {
          this.report('warning', 'C2', selPath, `${HCP_NAMESPACE_LABEL} Exists also matches non-namespace uses of the key; match the value "true"`, chain);
        }
      } catch (e) {
        this.report('error', 'C2', selPath, (e as Error).message, chain);
      }
    }
    if (Array.isArray(sel.include) && sel.include.length > 0) {
      const inc = sel.include.map(String);
      if (!inc.some((p) => globMatch(p, SAMPLE_HCP_NAMESPACE))) {
        this.report('error', 'C2', [...selPath, 'include'], `include ${JSON.stringify(inc)} matches no OSD/ROSA HCP namespace (they are named ocm-<env>-<cluster id>-<name>, e.g. ${SAMPLE_HCP_NAMESPACE})`, chain);
      }
    }
  }

  image(img: unknown, path: Path, chain: string): void {
    if (typeof img !== 'string' || img === '') {
      this.report('error', 'K1', path, 'spec.image is required', chain);
      return;
    }
    if (/:sha256:/.test(img) && !img.includes('@')) {
      this.report('error', 'K1', path, `image ${JSON.stringify(img)} joins repository and digest with ":"; a digest reference is repo@sha256:<hex> (\${REGISTRY_IMG}@\${IMAGE_DIGEST})`, chain);
      return;
    }
    if (img.includes('@')) {
      if (!DIGEST_REF.test(img)) this.report('error', 'K1', path, `image ${JSON.stringify(img)} is not repo@sha256:<64 hex>`, chain);
      return;
    }
    const lastColon = img.lastIndexOf(':');
    if (lastColon <= img.lastIndexOf('/')) {
      this.report('error', 'K1', path, `image ${JSON.stringify(img)} has neither tag nor digest (PKO would pull :latest and never notice updates)`, chain);
      return;
    }
    this.report('warning', 'K1', path, `image ${JSON.stringify(img)} is pinned by tag: PKO re-unpacks only when the Package spec changes, so a re-pushed tag is never picked up; pin by digest`, chain);
  }

  packageObject(pkg: Obj, path: Path, chain: string): void {
    this.fields(pkg, path, chain, 'K1');
    this.packages.push({ obj: pkg, path, chain });
    if (pkg.apiVersion !== 'package-operator.run/v1alpha1') this.report('error', 'K1', [...path, 'apiVersion'], 'apiVersion must be package-operator.run/v1alpha1', chain);
    const spec = isObj(pkg.spec) ? pkg.spec : undefined;
    if (!spec) {
      this.report('error', 'K1', [...path, 'spec'], 'spec is missing', chain);
      return;
    }
    this.image(spec.image, [...path, 'spec', 'image'], chain);
    if (spec.config !== undefined && spec.config !== null && !isObj(spec.config)) this.report('error', 'K1', [...path, 'spec', 'config'], 'spec.config must be an object', chain);
    if (spec.paused !== undefined && typeof spec.paused !== 'boolean') this.report('error', 'K1', [...path, 'spec', 'paused'], 'spec.paused must be a boolean', chain);
  }

  objectTemplate(ot: Obj, path: Path, chain: string): void {
    this.fields(ot, path, chain, 'K1');
    const spec = isObj(ot.spec) ? ot.spec : undefined;
    if (!spec || typeof spec.template !== 'string') {
      this.report('error', 'K1', [...path, 'spec', 'template'], 'ObjectTemplate needs spec.template (a Go template string)', chain);
      return;
    }
    if (!Array.isArray(spec.sources)) this.report('error', 'K1', [...path, 'spec', 'sources'], 'ObjectTemplate needs spec.sources (the CRD requires it; use [] for none)', chain);
    else spec.sources.forEach((s, i) => {
      const sp: Path = [...path, 'spec', 'sources', i];
      if (!isObj(s)) return;
      for (const k of ['apiVersion', 'kind', 'name', 'items']) if (s[k] === undefined) this.report('error', 'K1', [...sp, k], `source needs ${k}`, chain);
      (Array.isArray(s.items) ? s.items : []).forEach((it, j) => {
        if (!isObj(it) || typeof it.key !== 'string' || typeof it.destination !== 'string') this.report('error', 'K1', [...sp, 'items', j], 'a source item needs key and destination', chain);
        else if (!it.destination.startsWith('.')) this.report('error', 'K1', [...sp, 'items', j, 'destination'], `destination ${JSON.stringify(it.destination)} must be a JSONPath starting with "." (it lands under .config)`, chain);
      });
    });
    // The template renders to the Package: check the image line textually (Go template text).
    const text = spec.template;
    const m = /^\s*image:\s*(\S+)\s*$/m.exec(text.replace(/^\s*#.*$/gm, ''));
    const tp: Path = [...path, 'spec', 'template'];
    if (!/kind:\s*Package\b/.test(text)) this.report('warning', 'K1', tp, 'the ObjectTemplate does not render a Package', chain);
    // With the engine the rendered Package is checked instead (renderSample); without it, the text.
    if (!this.renderTemplate) {
      if (!m) this.report('error', 'K1', tp, 'the templated Package has no spec.image line', chain);
      else if (!m[1].includes('{{')) this.image(m[1].replace(/^["']|["']$/g, ''), tp, chain);
    }
    if (/\{\{[-\s]*\.(?!config\b|environment\b)[A-Za-z]/.test(text)) {
      this.report('warning', 'K1', tp, 'an ObjectTemplate is rendered with .config and .environment only; another top-level field renders as <no value>', chain);
    }
    if (this.renderTemplate && !balance(text)) this.renderSample(text, Array.isArray(spec.sources) ? spec.sources : [], tp, chain);
  }

  /** Renders the ObjectTemplate as PKO would, with every source present, and checks the Package it yields. */
  renderSample(text: string, sources: unknown[], tp: Path, chain: string): void {
    const config: Obj = {};
    for (const s of sources) {
      if (!isObj(s)) continue;
      for (const it of Array.isArray(s.items) ? s.items : []) {
        if (!isObj(it) || typeof it.destination !== 'string') continue;
        try {
          setJsonPath(config, it.destination, `sample value of ${String(s.kind)}/${String(s.name)} ${String(it.key)}`);
        } catch (e) {
          this.report('error', 'K1', tp, `source destination ${JSON.stringify(it.destination)}: ${(e as Error).message}`, chain);
          return;
        }
      }
    }
    let out: string;
    try {
      out = this.renderTemplate!('objecttemplate', text, { config, environment: {} });
    } catch (e) {
      this.report('error', 'K1', tp, `PKO cannot render the ObjectTemplate (every source present): ${(e as Error).message}`, chain);
      return;
    }
    let obj: unknown;
    try {
      obj = parseYaml11(out);
    } catch (e) {
      this.report('error', 'K1', tp, `the rendered ObjectTemplate is not valid YAML${e instanceof YamlParseError && e.line ? ` (rendered line ${e.line})` : ''}: ${(e as Error).message}`, chain);
      return;
    }
    if (!isObj(obj) || obj.kind !== 'Package') {
      if (isObj(obj) && typeof obj.kind === 'string') return; // another kind is the author's choice; warned above
      this.report('error', 'K1', tp, 'the rendered ObjectTemplate is not an object', chain);
      return;
    }
    // Paths inside the rendered text do not exist in the Template: findings stay on the template field.
    const pchain = `${chain} > Package/${String(isObj(obj.metadata) ? obj.metadata.name : '?')} (rendered)`;
    const spec = isObj(obj.spec) ? obj.spec : {};
    this.image(spec.image, tp, pchain);
    const md = isObj(obj.metadata) ? obj.metadata : {};
    if (md.namespace !== undefined) this.report('error', 'K1', tp, 'the rendered Package sets metadata.namespace; PKO places it in the ObjectTemplate\'s namespace', pchain);
    for (const p of this.schema?.({ ...obj, metadata: { ...md, namespace: 'ocm-sample-hcp' } }) ?? []) {
      this.report('error', 'K1', tp, `rendered Package ${formatPath(p.path)}: ${p.message} (CRD Package)`, pchain);
    }
  }

  raw(raw: unknown, path: Path, chain: string, disableTemplates: boolean): void {
    if (typeof raw !== 'string') {
      this.report('error', 'C1', path, 'object-templates-raw must be a string', chain);
      return;
    }
    if (disableTemplates) {
      this.report('error', 'C5', path, `object-templates-raw with ${DISABLE_TEMPLATES_ANNOTATION}: "true": the raw string is never parsed, zero objects are created and the policy reports Compliant`, chain);
    }
    const bal = balance(raw);
    if (bal) this.report('error', 'C5', path, `object-templates-raw: ${bal}`, chain);
    // Inside range, "." is the Namespace: an unescaped PKO expression renders as null.
    for (const m of raw.matchAll(/\{\{-?\s*(?:toJson\s+|toYaml\s+)?\.config\b/g)) {
      this.report('error', 'C5', path, `object-templates-raw contains the PKO expression ${JSON.stringify(m[0] + '…')} unescaped: ACM evaluates it (to null) before PKO sees it; write {{ \`{{ … }}\` }}`, chain);
      break;
    }
    if (!/hosted-control-plane/.test(raw)) this.report('warning', 'C2', path, `object-templates-raw does not look up namespaces by ${HCP_NAMESPACE_LABEL}=true`, chain);
  }

  placementRule(pr: Obj, path: Path, chain: string): void {
    this.fields(pr, path, chain, 'B2');
    const spec = isObj(pr.spec) ? pr.spec : {};
    const clusters = Array.isArray(spec.clusters) && spec.clusters.length > 0;
    if (!clusters && isEmptySelector(spec.clusterSelector)) {
      this.report('error', 'B2', [...path, 'spec', 'clusterSelector'], `PlacementRule has no clusterSelector and no clusters${spec.clusterSelector === null ? ' (the key is there but empty: check indentation)' : ''}: it selects every ManagedCluster, hosted clusters included (they have no Package CRD)`, chain);
    } else if (!clusters) {
      const sel = spec.clusterSelector as Obj;
      this.selectorOperators(sel, [...path, 'spec', 'clusterSelector'], chain, 'B2');
      try {
        if (!matchesSelector(sel, { [MANAGEMENT_CLUSTER_LABEL]: 'true' })) {
          this.report('info', 'B2', [...path, 'spec', 'clusterSelector'], `the clusterSelector does not select ${MANAGEMENT_CLUSTER_LABEL}: "true" (management clusters); fine if this policy is meant for other clusters`, chain);
        }
      } catch {
        // operator errors are reported above
      }
      const keys = [...Object.keys(isObj(sel.matchLabels) ? sel.matchLabels : {}), ...(Array.isArray(sel.matchExpressions) ? sel.matchExpressions.map((e) => String(isObj(e) ? e.key : '')) : [])];
      if (keys.some((k) => k.startsWith('cluster.open-cluster-management.io/clusterset'))) {
        this.report('warning', 'B2', [...path, 'spec', 'clusterSelector'], 'selecting by ManagedClusterSet label picks a cluster set, not the management clusters', chain);
      }
    }
    if (spec.clusterConditions !== undefined) {
      this.report('warning', 'B2', [...path, 'spec', 'clusterConditions'], 'clusterConditions makes the decision flap with cluster health (and with pruning deletes Packages); the fleet templates dropped it', chain);
    }
  }

  bindings(byKind: Map<string, { obj: Obj; path: Path; name: string; ns?: string }[]>, sssChain: string): void {
    const find = (kind: string, name: unknown, ns: string | undefined) => (byKind.get(kind) ?? []).find((x) => x.name === name && x.ns === ns);
    const bound = new Set<string>();
    for (const b of byKind.get('PlacementBinding') ?? []) {
      const chain = `${sssChain} > PlacementBinding/${b.name}`;
      const spec = isObj(b.obj.spec) ? b.obj.spec : undefined;
      const ref = b.obj.placementRef ?? spec?.placementRef;
      const subjects = b.obj.subjects ?? spec?.subjects;
      if (spec && (spec.placementRef !== undefined || spec.subjects !== undefined)) {
        this.report('error', 'B1', [...b.path, 'spec'], 'placementRef and subjects are top-level fields of a PlacementBinding, not under spec', chain);
      }
      if (!isObj(ref)) this.report('error', 'B1', [...b.path, 'placementRef'], 'placementRef is required', chain);
      else {
        const kind = ref.kind;
        const groupOk = (kind === 'PlacementRule' && ref.apiGroup === 'apps.open-cluster-management.io') || (kind === 'Placement' && ref.apiGroup === 'cluster.open-cluster-management.io');
        if (!groupOk) this.report('error', 'B1', [...b.path, 'placementRef'], 'placementRef must be {apiGroup: apps.open-cluster-management.io, kind: PlacementRule} or {apiGroup: cluster.open-cluster-management.io, kind: Placement}', chain);
        else if (!find(String(kind), ref.name, b.ns)) this.report('error', 'B1', [...b.path, 'placementRef', 'name'], `${String(kind)} ${JSON.stringify(ref.name)} is not in this SelectorSyncSet in namespace ${b.ns ?? '(none)'}`, chain);
      }
      if (!Array.isArray(subjects) || subjects.length === 0) this.report('error', 'B1', [...b.path, 'subjects'], 'subjects must be a non-empty list', chain);
      else subjects.forEach((s, i) => {
        const sp: Path = [...b.path, 'subjects', i];
        if (!isObj(s) || s.apiGroup !== 'policy.open-cluster-management.io' || (s.kind !== 'Policy' && s.kind !== 'PolicySet')) {
          this.report('error', 'B1', sp, 'a subject is {apiGroup: policy.open-cluster-management.io, kind: Policy|PolicySet, name}', chain);
          return;
        }
        if (!find(String(s.kind), s.name, b.ns)) this.report('error', 'B1', [...sp, 'name'], `${String(s.kind)} ${JSON.stringify(s.name)} is not in this SelectorSyncSet in namespace ${b.ns ?? '(none)'}`, chain);
        else bound.add(`${String(s.kind)}/${String(s.name)}`);
      });
    }
    for (const p of byKind.get('Policy') ?? []) {
      if (!bound.has(`Policy/${p.name}`)) this.report('error', 'B1', p.path, `Policy ${p.name} is not bound by any PlacementBinding in this SelectorSyncSet: it is never propagated`, `${sssChain} > Policy/${p.name}`);
    }
    // B3: a Placement needs a ManagedClusterSetBinding in its namespace.
    for (const pl of byKind.get('Placement') ?? []) {
      const chain = `${sssChain} > Placement/${pl.name}`;
      const sets = isObj(pl.obj.spec) && Array.isArray(pl.obj.spec.clusterSets) ? pl.obj.spec.clusterSets.map(String) : [];
      const bindings = (byKind.get('ManagedClusterSetBinding') ?? []).filter((x) => x.ns === pl.ns);
      if (bindings.length === 0) this.report('warning', 'B3', pl.path, `a Placement selects nothing unless a ManagedClusterSetBinding binds a cluster set to namespace ${pl.ns ?? '(none)'}; none is in this SelectorSyncSet`, chain);
      for (const s of sets) if (bindings.length > 0 && !bindings.some((x) => x.name === s)) this.report('warning', 'B3', [...pl.path, 'spec', 'clusterSets'], `cluster set ${s} has no ManagedClusterSetBinding here`, chain);
      const preds = isObj(pl.obj.spec) && Array.isArray(pl.obj.spec.predicates) ? pl.obj.spec.predicates : [];
      if (preds.length === 0) this.report('error', 'B2', [...pl.path, 'spec', 'predicates'], 'Placement without predicates selects every cluster of its sets, hosted clusters included', chain);
    }
    for (const b of byKind.get('ManagedClusterSetBinding') ?? []) {
      const cs = isObj(b.obj.spec) ? b.obj.spec.clusterSet : undefined;
      if (cs !== b.name) this.report('error', 'B3', [...b.path, 'spec', 'clusterSet'], `a ManagedClusterSetBinding's metadata.name must equal spec.clusterSet (${JSON.stringify(b.name)} vs ${JSON.stringify(cs)})`, `${sssChain} > ManagedClusterSetBinding/${b.name}`);
    }
  }

  /** `{{`/`}}` balance of every string in a hub resource (the layers nest: oc, hive, ACM, PKO). */
  delimiters(v: unknown, path: Path, chain: string): void {
    const visit = (x: unknown, p: Path) => {
      if (typeof x === 'string') {
        if (p[p.length - 1] === 'object-templates-raw') return; // checked by C5
        const b = balance(x);
        if (b) this.report('error', 'C5', p, `template delimiters: ${b}`, chain);
      } else if (Array.isArray(x)) x.forEach((y, i) => visit(y, [...p, i]));
      else if (isObj(x)) for (const [k, y] of Object.entries(x)) visit(y, [...p, k]);
    };
    visit(v, path);
  }
}

/** Describes the first `{{`/`}}` imbalance in a Go template text, or '' when balanced. */
export function balance(s: string): string {
  let depth = 0;
  let line = 1;
  let openLine = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\n') line++;
    else if (c === '{' && s[i + 1] === '{') {
      if (depth > 0) return `"{{" on line ${line} opens inside the action opened on line ${openLine}`;
      depth++;
      openLine = line;
      i++;
    } else if (c === '}' && s[i + 1] === '}') {
      if (depth === 0) return `"}}" on line ${line} closes nothing`;
      depth--;
      i++;
    } else if (depth > 0 && (c === '"' || c === '`')) {
      // skip string literals inside an action, where `{{` may legitimately appear (escaping)
      const end = c === '`' ? s.indexOf('`', i + 1) : findQuoteEnd(s, i + 1);
      if (end < 0) return `unterminated ${c === '`' ? 'raw string' : 'string'} in the action opened on line ${openLine}`;
      for (let k = i; k < end; k++) if (s[k] === '\n') line++;
      i = end;
    }
  }
  return depth > 0 ? `"{{" on line ${openLine} is never closed` : '';
}

function findQuoteEnd(s: string, from: number): number {
  for (let i = from; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '"') return i;
    else if (s[i] === '\n') return -1;
  }
  return -1;
}

/** Lints one Template text. Never throws for bad input: problems are findings. */
export function lintRolloutTemplate(file: string, text: string, opts: LintOptions = {}): LintResult {
  const loaded = loadTemplate(file, text);
  if (!('value' in loaded)) {
    return { findings: [{ severity: 'error', rule: 'T1', message: loaded.message, file, line: loaded.line, column: loaded.column }], parameters: {} };
  }
  const l = new Linter(loaded, opts.schema, opts.renderTemplate, opts.checkPackage);
  const res = l.run(opts.parameters ?? {}, opts.hashLength);
  res.findings.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || a.rule.localeCompare(b.rule) || a.message.localeCompare(b.message));
  return res;
}

export { countBySeverity } from '../core/errors.js';

/**
 * For a generation run: errors and warnings (info is advice for people, not a generation check),
 * with the rule id prefixed `rollout/` so it cannot be taken for a package rule.
 */
export function asFindings(findings: Finding[]): Finding[] {
  return findings.filter((f) => f.severity !== 'info').map((f) => ({ ...f, rule: `rollout/${f.rule}` }));
}
