/**
 * Checks run on every generation (the full validator is `pkogen validate`): the phase graph,
 * duplicates, scope placement, and that the config schema matches what templates read.
 */
import { Finding } from '../core/errors.js';
import { FileMap, toText } from '../core/filemap.js';
import { PHASE_ANNOTATION, JSONSchemaProps } from '../pko/types.js';
import { defaultObjectPath, PackageDefinition } from './package.js';
import { groupOf, isClusterScoped } from '../schema/scope.js';
import { TEMPLATE_SUFFIX } from './synthesize.js';
import { GoTemplateError, referencedFields, TemplateSet } from '../gotemplate/index.js';
import { pkoFuncMap } from '../gotemplate/funcs/index.js';

export interface CheckOptions {
  /** `group/Kind` keys of CRD kinds that are cluster-scoped. */
  clusterScopedKinds?: ReadonlySet<string>;
}

function err(rule: string, message: string, file?: string, path?: string): Finding {
  return { severity: 'error', rule, message, file, path };
}

export function checkDefinition(def: PackageDefinition, files: FileMap, opts: CheckOptions = {}): Finding[] {
  const findings: Finding[] = [];
  const phaseNames = def.phases.map((p) => p.name);
  const phaseClass = new Map(def.phases.map((p) => [p.name, p.class ?? '']));
  const seenPhases = new Set<string>();
  for (const [i, n] of phaseNames.entries()) {
    if (phaseNames.indexOf(n) !== i) findings.push(err('phase-unique', `phase "${n}" is declared twice`, 'manifest.yaml', `spec.phases[${i}].name`));
  }
  const used = new Set<string>();
  const identities = new Map<string, string>();
  const namespaced = def.scopes.includes('Namespaced') && !def.scopes.includes('Cluster');
  for (const o of def.objects) {
    const file = o.file ?? defaultObjectPath(o);
    const id = `${o.object.kind} ${o.object.metadata.name}`;
    const annotations = (o.object.metadata.annotations ?? {}) as Record<string, unknown>;
    if (annotations[PHASE_ANNOTATION] !== undefined && annotations[PHASE_ANNOTATION] !== o.phase) {
      findings.push(err('phase-annotation', `${id}: phase annotation "${String(annotations[PHASE_ANNOTATION])}" contradicts phase "${o.phase}"`, file, `metadata.annotations`));
    }
    if (!phaseClass.has(o.phase)) {
      findings.push(err('phase-declared', `${id}: phase "${o.phase}" is not declared in the manifest (declared: ${phaseNames.join(', ')})`, file));
      continue;
    }
    used.add(o.phase);
    seenPhases.add(o.phase);
    const ns = o.object.metadata.namespace;
    const key = `${groupOf(o.object.apiVersion)}/${o.object.kind}/${typeof ns === 'string' ? ns : ''}/${o.object.metadata.name}`;
    if (identities.has(key)) findings.push(err('duplicate-object', `${id}: duplicate of the object in ${identities.get(key)}`, file));
    else identities.set(key, file);
    const cls = phaseClass.get(o.phase)!;
    const cluster = isClusterScoped(o.object.apiVersion, o.object.kind, opts.clusterScopedKinds);
    if (cls === '') {
      if (cluster) findings.push(err('scope', `${id}: cluster-scoped object in phase "${o.phase}", which has no class; only a hosted-cluster phase may hold it`, file));
      else if (namespaced && ns !== undefined) findings.push(err('scope', `${id}: objects in the HCP namespace must not set metadata.namespace (PKO places them in the Package's namespace)`, file, 'metadata.namespace'));
    } else if (cluster && cls !== 'hosted-cluster') {
      findings.push(err('scope', `${id}: cluster-scoped objects belong in a hosted-cluster phase, not class "${cls}"`, file));
    }
  }
  def.phases.forEach((p, i) => {
    // PKO accepts an empty phase and drops it when it renders the ObjectSet (package-operator e03279db,
    // packagerender/objectsettemplate.go Collect): a warning, since a bundle slip is the likelier cause.
    if (!used.has(p.name)) findings.push({ ...err('phase-empty', `phase "${p.name}" has no objects`, 'manifest.yaml', `spec.phases[${i}]`), severity: 'warning' });
  });
  findings.push(...checkConfigReferences(def.config, files));
  if (def.config) findings.push(...checkDescriptions(def.config, 'spec.config.openAPIV3Schema'));
  return findings;
}

/** `.config.X` (and `$.config.X`) read by template text; `hasKey .config "X"` / `dig "X" … .config` reads count as guarded. */
export function configReferences(text: string): { direct: Set<string>; guarded: Set<string>; chains: string[][] } {
  const direct = new Set<string>();
  const guarded = new Set<string>();
  const chains: string[][] = [];
  const actions = text.match(/\{\{[\s\S]*?\}\}/g) ?? [];
  for (const a of actions) {
    for (const m of a.matchAll(/(^|[^A-Za-z0-9_.)\]])\$?\.config((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)) {
      const chain = m[2].slice(1).split('.');
      chains.push(chain);
      direct.add(chain[0]);
    }
    for (const m of a.matchAll(/hasKey\s+\$?\.config\s+"([^"]+)"/g)) guarded.add(m[1]);
    for (const m of a.matchAll(/dig\s+"([^"]+)"[^}]*?\$?\.config\b/g)) guarded.add(m[1]);
  }
  return { direct, guarded, chains };
}

/**
 * Field chains under `.config` that the templates read, from the Go template parse trees (so
 * reads through `$`, variables, `with`, `range`, `include` and `template` count), per file.
 * A template that does not parse is a finding.
 */
function templateConfigChains(files: FileMap, findings: Finding[]): Map<string, string[][]> {
  const out = new Map<string, string[][]>();
  const set = new TemplateSet({
    missingKey: 'error',
    funcs: pkoFuncMap({ executeTemplate: () => '', files, cel: () => false }),
  });
  const names: string[] = [];
  for (const [p, bytes] of files) {
    if (!p.endsWith(TEMPLATE_SUFFIX)) continue;
    try {
      set.parse(p, toText(bytes));
      names.push(p);
    } catch (e) {
      if (!(e instanceof GoTemplateError)) throw e;
      findings.push({ severity: 'error', rule: 'template-parse', message: e.message, file: p, line: e.line || undefined, column: e.column });
    }
  }
  for (const p of names) {
    out.set(p, referencedFields(set, { entries: [p] }).filter((c) => c[0] === 'config' && c.length > 1).map((c) => c.slice(1)));
  }
  return out;
}

function checkConfigReferences(schema: JSONSchemaProps | undefined, files: FileMap): Finding[] {
  const findings: Finding[] = [];
  const props = schema?.properties ?? {};
  const required = new Set(schema?.required ?? []);
  const needed = new Set<string>();
  const parsedChains = templateConfigChains(files, findings);
  for (const [p, bytes] of files) {
    if (!p.endsWith(TEMPLATE_SUFFIX)) continue;
    const refs = configReferences(toText(bytes));
    // The parse trees see every read; the text scan only tells which reads are guarded.
    const chains = parsedChains.get(p) ?? refs.chains;
    for (const chain of chains.filter((c) => !c.includes('*') || c.indexOf('*') > 0).map((c) => c.slice(0, c.includes('*') ? c.indexOf('*') : c.length))) {
      let s: JSONSchemaProps | undefined = schema;
      const walked: string[] = [];
      for (const k of chain) {
        walked.push(k);
        if (!s || s['x-kubernetes-preserve-unknown-fields'] || (s.additionalProperties && !s.properties)) break;
        s = s.properties?.[k];
        if (!s) {
          findings.push(err('config-schema', `template reads .config.${walked.join('.')}, which the config schema does not define`, p));
          break;
        }
      }
    }
    for (const c of chains) if (!refs.guarded.has(c[0])) needed.add(c[0]);
    for (const k of refs.direct) if (!refs.guarded.has(k)) needed.add(k);
    for (const k of refs.guarded) if (!props[k]) findings.push(err('config-schema', `template reads .config.${k}, which the config schema does not define`, p));
  }
  for (const k of needed) {
    if (props[k] && !required.has(k) && props[k].default === undefined) {
      findings.push(err('config-required', `templates read .config.${k} unguarded, so it must be required or have a default (missingkey=error)`, 'manifest.yaml', `spec.config.openAPIV3Schema.properties.${k}`));
    }
  }
  for (const k of required) {
    if (!needed.has(k)) findings.push(err('config-required', `.config.${k} is required but no template reads it`, 'manifest.yaml', `spec.config.openAPIV3Schema.required`));
    if (props[k]?.default !== undefined) findings.push(err('config-required', `.config.${k} is both required and defaulted: PKO still demands it in every test case`, 'manifest.yaml', `spec.config.openAPIV3Schema.properties.${k}`));
  }
  return findings;
}

function checkDescriptions(s: JSONSchemaProps, path: string): Finding[] {
  const out: Finding[] = [];
  for (const [k, v] of Object.entries(s.properties ?? {})) {
    const p = `${path}.properties.${k}`;
    if (!v.description) out.push(err('config-description', `config field "${k}" has no description`, 'manifest.yaml', p));
    out.push(...checkDescriptions(v, p));
  }
  const nested: [JSONSchemaProps | undefined, string][] = [
    [s.items, `${path}.items`],
    [typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined, `${path}.additionalProperties`],
  ];
  for (const [child, p] of nested) {
    if (!child) continue;
    if (!child.description) out.push(err('config-description', `config schema ${p} has no description`, 'manifest.yaml', p));
    out.push(...checkDescriptions(child, p));
  }
  return out;
}
