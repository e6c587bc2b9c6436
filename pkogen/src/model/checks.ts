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
import { fieldReads, GoTemplateError, TemplateSet } from '../gotemplate/index.js';
import { pkoFuncMap } from '../gotemplate/funcs/index.js';

export interface CheckOptions {
  /** `group/Kind` keys of CRD kinds that are cluster-scoped. */
  clusterScopedKinds?: ReadonlySet<string>;
}

function err(rule: string, message: string, file?: string, path?: string): Finding {
  return { severity: 'error', rule, message, file, path };
}

/** One generation check as a value: what it reports, and a run over the definition. */
export interface GenerationCheck {
  readonly id: string;
  readonly docs: string;
  readonly rules: readonly string[];
  run(def: PackageDefinition, files: FileMap, opts: CheckOptions): Finding[];
}

/** The checks every generation runs, in order. */
export const GENERATION_CHECKS: readonly GenerationCheck[] = [
  {
    id: 'phase-names',
    docs: 'phase names are unique in the manifest (PKO validates the manifest the same way)',
    rules: ['phase-unique'],
    run(def) {
      const names = def.phases.map((p) => p.name);
      return names.flatMap((n, i) => (names.indexOf(n) !== i ? [err('phase-unique', `phase "${n}" is declared twice`, 'manifest.yaml', `spec.phases[${i}].name`)] : []));
    },
  },
  {
    id: 'objects',
    docs: 'each object: its phase annotation and phase, no duplicate identity, and a phase its scope fits (PKO\'s install-time preflight)',
    rules: ['phase-annotation', 'phase-declared', 'duplicate-object', 'scope'],
    run: checkObjects,
  },
  {
    id: 'phases-used',
    docs: 'PKO accepts an empty phase and drops it when it renders the ObjectSet (package-operator e03279db, packagerender/objectsettemplate.go Collect): a warning, since a bundle slip is the likelier cause',
    rules: ['phase-empty'],
    run(def) {
      const declared = new Set(def.phases.map((p) => p.name));
      const used = new Set(def.objects.map((o) => o.phase).filter((p) => declared.has(p)));
      // Objects in files carried as template text (kickstart keeps what it cannot convert) name their phase too.
      for (const text of Object.values(def.files ?? {})) for (const m of text.matchAll(/^\s*package-operator\.run\/phase:\s*['"]?([A-Za-z0-9_.-]+)['"]?\s*$/gm)) used.add(m[1]);
      return def.phases.flatMap((p, i) => (used.has(p.name) ? [] : [{ ...err('phase-empty', `phase "${p.name}" has no objects`, 'manifest.yaml', `spec.phases[${i}]`), severity: 'warning' as const }]));
    },
  },
  {
    id: 'config-references',
    docs: 'what the templates read under .config (parse trees) against the config schema: defined, and required or defaulted where read unguarded (missingkey=error)',
    rules: ['template-parse', 'config-schema', 'config-required'],
    run: (def, files) => checkConfigReferences(def.config, files),
  },
  {
    id: 'config-descriptions',
    docs: 'every config field has a description (the schema is the package\'s user documentation)',
    rules: ['config-description'],
    run: (def) => (def.config ? checkDescriptions(def.config, 'spec.config.openAPIV3Schema') : []),
  },
];

export function checkDefinition(def: PackageDefinition, files: FileMap, opts: CheckOptions = {}): Finding[] {
  return GENERATION_CHECKS.flatMap((c) => c.run(def, files, opts));
}

function checkObjects(def: PackageDefinition, _files: FileMap, opts: CheckOptions): Finding[] {
  const findings: Finding[] = [];
  const phaseNames = def.phases.map((p) => p.name);
  const phaseClass = new Map(def.phases.map((p) => [p.name, p.class ?? '']));
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
    const ns = o.object.metadata.namespace;
    const key = `${groupOf(o.object.apiVersion)}/${o.object.kind}/${typeof ns === 'string' ? ns : ''}/${o.object.metadata.name}`;
    if (identities.has(key)) findings.push(err('duplicate-object', `${id}: duplicate of the object in ${identities.get(key)}`, file));
    else identities.set(key, file);
    const cls = phaseClass.get(o.phase)!;
    const cluster = isClusterScoped(o.object.apiVersion, o.object.kind, opts.clusterScopedKinds);
    // The scope rule is HyperShift's (a package in the HCP namespace): a package PKO may install
    // cluster-wide (scope Cluster, a ClusterPackage) holds cluster-scoped objects in any phase.
    if (!namespaced) continue;
    if (cls === '') {
      if (cluster) findings.push(err('scope', `${id}: cluster-scoped object in phase "${o.phase}", which has no class; only a hosted-cluster phase may hold it`, file));
      else if (namespaced && ns !== undefined) findings.push(err('scope', `${id}: objects in the HCP namespace must not set metadata.namespace (PKO places them in the Package's namespace)`, file, 'metadata.namespace'));
    } else if (cluster && cls !== 'hosted-cluster') {
      findings.push(err('scope', `${id}: cluster-scoped objects belong in a hosted-cluster phase, not class "${cls}"`, file));
    }
  }
  return findings;
}

/** What one template file reads under `.config`. */
interface ConfigReads {
  /** Field chains below `.config` (`['a', 'b']` for `.config.a.b`; `*` for a range element). */
  chains: string[][];
  /** Top-level keys looked up through `hasKey .config "k"` or `dig "k" … .config`: guarded reads. */
  guarded: Set<string>;
}

/**
 * What the templates read under `.config`, from the Go template parse trees (so reads through
 * `$`, variables, `with`, `range`, `include` and `template` count), per file. A template that
 * does not parse is a finding, and `complete` is false: what it reads is unknown.
 */
export function templateConfigReads(files: FileMap, findings: Finding[] = []): { reads: Map<string, ConfigReads>; complete: boolean } {
  const reads = new Map<string, ConfigReads>();
  const set = new TemplateSet({
    missingKey: 'error',
    funcs: pkoFuncMap({ executeTemplate: () => '', files, cel: () => false }),
  });
  const names: string[] = [];
  let complete = true;
  for (const [p, bytes] of files) {
    if (!p.endsWith(TEMPLATE_SUFFIX)) continue;
    try {
      set.parse(p, toText(bytes));
      names.push(p);
    } catch (e) {
      if (!(e instanceof GoTemplateError)) throw e;
      complete = false;
      findings.push({ severity: 'error', rule: 'template-parse', message: e.message, file: p, line: e.line || undefined, column: e.column });
    }
  }
  const underConfig = (chains: string[][]) => chains.filter((c) => c[0] === 'config' && c.length > 1).map((c) => c.slice(1));
  for (const p of names) {
    const r = fieldReads(set, { entries: [p] });
    reads.set(p, { chains: underConfig(r.read), guarded: new Set(underConfig(r.guarded).map((c) => c[0])) });
  }
  return { reads, complete };
}

function checkConfigReferences(schema: JSONSchemaProps | undefined, files: FileMap): Finding[] {
  const findings: Finding[] = [];
  const props = schema?.properties ?? {};
  const required = new Set(schema?.required ?? []);
  const needed = new Set<string>();
  const { reads, complete } = templateConfigReads(files, findings);
  for (const [p, { chains, guarded }] of reads) {
    // A range element ('*') is checked up to the ranged field; a chain through a leading '*' not at all.
    for (const chain of chains.filter((c) => c[0] !== '*').map((c) => (c.includes('*') ? c.slice(0, c.indexOf('*')) : c))) {
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
    for (const c of chains) if (!guarded.has(c[0])) needed.add(c[0]);
  }
  for (const k of needed) {
    if (props[k] && !required.has(k) && props[k].default === undefined) {
      findings.push(err('config-required', `templates read .config.${k} unguarded, so it must be required or have a default (missingkey=error)`, 'manifest.yaml', `spec.config.openAPIV3Schema.properties.${k}`));
    }
  }
  for (const k of required) {
    // With a template that does not parse, what is read is unknown (its parse error is reported).
    if (!needed.has(k) && complete) findings.push(err('config-required', `.config.${k} is required but no template reads it`, 'manifest.yaml', `spec.config.openAPIV3Schema.required`));
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
