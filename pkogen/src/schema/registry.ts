import type { Ajv, ValidateFunction } from 'ajv';
import { UserError } from '../core/errors.js';
import { isBuiltinKind, LABEL_SELECTOR_SHAPE, OBJECT_META_SHAPE, prepareBuiltinKinds, validateBuiltin } from './builtin.js';
import { crdKey, crdVersionToJsonSchema, type BundledCrd, type ConversionNotes } from './crd.js';
import { loadCrdFiles } from './crdfiles.js';
import { celCounts, type CelStats } from './cel.js';
import { renderAjvErrors } from './errors.js';
import { ajvFactory, loadAjv } from './ajv-loader.js';
import { BUNDLED_CRDS } from './generated/crds.js';
import { OPENSHIFT_CRDS } from './generated/openshift-crds.js';
import { LABEL_SELECTOR_ID, objectMetaId, ownSchemas, type NameRule } from './objectmeta.js';
import { PRECOMPILED } from './precompiled.js';
import { PRECOMPILED_CRDS } from './precompiled-crds.js';
import { removedApiMessage } from './removed.js';
import { groupOf, scopeOf } from './scope.js';
import type { SchemaIssue, SchemaResult, Scope } from './types.js';
import { isObj } from '../core/guards.js';

export type { SchemaIssue, SchemaResult, Scope } from './types.js';
export { loadCrdFiles } from './crdfiles.js';

export interface SchemaRegistryOptions {
  /** Extra CRD YAML files, or directories searched recursively for *.yaml/*.yml. Later ones override bundled CRDs of the same group/kind. */
  crdFiles?: string[];
  /** Evaluate x-kubernetes-validations (CEL) rules that use standard CEL only (default true). */
  cel?: boolean;
}

export interface SchemaRegistry {
  /**
   * Loads what validating these objects needs (every built-in kind and ajv's compiler without
   * objects). The bundled CLI loads a built-in kind's validator only here, so await it before
   * `validate`; unbundled (the library, tests) the kinds are loaded already. A bundled CRD's
   * precompiled validator (make build) is loaded here for the objects given, never without.
   */
  prepare?(objects?: readonly unknown[]): Promise<void>;
  /** Strictly validates one object. `known: false` when no schema exists for its apiVersion/kind. */
  validate(obj: unknown): SchemaResult;
  /** Namespaced/Cluster for built-in kinds and known CRDs; undefined when unknown. */
  scopeOf(apiVersion: string, kind: string): Scope | undefined;
  /** True when a schema exists for apiVersion/kind (a served CRD version or a built-in kind). */
  knows(apiVersion: string, kind: string): boolean;
  /** What a CRD's conversion could not carry over (unparseable regexes, CEL rules), by "apiVersion/Kind". */
  notes(apiVersion: string, kind: string): ConversionNotes | undefined;
  /** CEL rule evaluations so far: run, or skipped (oldSelf, Kubernetes-only library, runtime error). */
  celStats(): CelStats;
  /**
   * CRDs a package ships, for this registry's run: they replace bundled ones of the same
   * group/kind but never the `crdFiles` a user named (those were chosen on purpose).
   * Returns the "group/Kind" keys that were added.
   */
  addPackageCrds(crds: readonly BundledCrd[]): string[];
}

/** Kinds whose metadata.name the API server validates differently from the DNS-subdomain default. */
const NAME_RULES: Record<string, NameRule> = {
  '/Namespace': 'label',
  '/Service': 'label',
  'rbac.authorization.k8s.io/Role': 'path-segment',
  'rbac.authorization.k8s.io/ClusterRole': 'path-segment',
  'rbac.authorization.k8s.io/RoleBinding': 'path-segment',
  'rbac.authorization.k8s.io/ClusterRoleBinding': 'path-segment',
};

interface CrdEntry {
  crd: BundledCrd;
  version: string;
  /** The version itself: its schema is read (in the bundle: parsed) only when first compiled. */
  def: BundledCrd['versions'][number];
  compiled?: ValidateFunction;
  notes?: ConversionNotes;
}

/** The CRDs precompiled-crds.ts has validators for: the bundled ones, not a package's or --crd files'. */
const PRECOMPILABLE = new Set<BundledCrd>([...BUNDLED_CRDS, ...OPENSHIFT_CRDS]);
/** Precompiled validators loaded so far, by key (shared by registries: they hold no registry state). */
const precompiledLoaded = new Map<string, ValidateFunction>();


/** metadata and metadata.name (or generateName) must be set: every object pkogen handles is applied by name. */
function presenceIssues(obj: Record<string, unknown>): SchemaIssue[] {
  const meta = obj.metadata;
  if (meta === undefined || meta === null) {
    return [{ path: 'metadata', message: 'missing required field "metadata"', keyword: 'required' }];
  }
  if (isObj(meta) && (meta.name === undefined || meta.name === null || meta.name === '') && !meta.generateName) {
    return [{ path: 'metadata.name', message: 'missing required field "name"', keyword: 'required' }];
  }
  return [];
}

/** The API server requires a CRD's name to be <spec.names.plural>.<spec.group>. */
function crdNameIssues(obj: Record<string, unknown>): SchemaIssue[] {
  const meta = obj.metadata;
  const spec = obj.spec;
  if (!isObj(meta) || !isObj(spec) || !isObj(spec.names)) return [];
  const { plural } = spec.names;
  if (typeof meta.name !== 'string' || typeof plural !== 'string' || typeof spec.group !== 'string') return [];
  const want = `${plural}.${spec.group}`;
  return meta.name === want
    ? []
    : [{ path: 'metadata.name', message: `must be spec.names.plural + "." + spec.group ("${want}")`, keyword: 'crd-name' }];
}

export function createSchemaRegistry(opts: SchemaRegistryOptions = {}): SchemaRegistry {
  const cel: CelStats = { evaluated: 0, skipped: 0 };
  // Created on first use: a package whose objects are all built-in kinds never needs ajv's
  // compiler (the own schemas come precompiled in the bundle, precompiled.ts).
  let ajvInstance: Ajv | undefined;
  const ajv = (): Ajv => {
    if (!ajvInstance) {
      const a = ajvFactory()({}, { cel: opts.cel !== false });
      for (const schema of ownSchemas()) a.addSchema(schema);
      ajvInstance = a;
    }
    return ajvInstance;
  };
  const own = new Map<string, ValidateFunction>();
  const ownValidator = (id: string): ValidateFunction => {
    let v = own.get(id);
    if (!v) {
      v = (PRECOMPILED[id] as ValidateFunction | undefined) ?? ajv().getSchema(id)!;
      own.set(id, v);
    }
    return v;
  };
  const metaValidator = (rule: NameRule): ValidateFunction => ownValidator(objectMetaId(rule));

  // "apiVersion/Kind" → served CRD version; "group/Kind" → scope.
  const crdVersions = new Map<string, CrdEntry>();
  const crdScopes = new Map<string, Scope>();
  const crdKeys = new Map<string, string[]>(); // "group/Kind" → its "apiVersion/Kind" keys
  const addCrd = (crd: BundledCrd): void => {
    const gk = `${crd.group}/${crd.kind}`;
    // A later CRD of the same group/kind replaces the earlier one entirely, versions included.
    for (const key of crdKeys.get(gk) ?? []) crdVersions.delete(key);
    const keys: string[] = [];
    crdScopes.set(gk, crd.scope === 'Cluster' ? 'Cluster' : 'Namespaced');
    for (const v of crd.versions) {
      if (!v.served) continue;
      const key = crdKey(crd, v.name);
      crdVersions.set(key, { crd, version: v.name, def: v });
      keys.push(key);
    }
    crdKeys.set(gk, keys);
  };
  for (const crd of [...BUNDLED_CRDS, ...OPENSHIFT_CRDS]) addCrd(crd);
  const explicit = new Set<string>();
  if (opts.crdFiles?.length) {
    for (const crd of loadCrdFiles(opts.crdFiles)) {
      addCrd(crd);
      explicit.add(`${crd.group}/${crd.kind}`);
    }
  }

  const nameRule = (apiVersion: string, kind: string): NameRule =>
    NAME_RULES[`${groupOf(apiVersion)}/${kind}`] ?? 'subdomain';

  // The precompiled validator of a bundled CRD applies when CEL runs (it evaluates rules) and the
  // CRD is the bundled one (a package's or a --crd file's replaces it).
  const precompiledKey = (key: string, entry: CrdEntry): boolean => opts.cel !== false && PRECOMPILABLE.has(entry.crd) && Object.hasOwn(PRECOMPILED_CRDS, key);
  const conversion = (key: string, entry: CrdEntry) => crdVersionToJsonSchema(entry.crd, entry.version, entry.def.schema, `crd:${key}`, 'subdomain');
  const compiled = (key: string, entry: CrdEntry): ValidateFunction => {
    if (!entry.compiled) {
      const pre = precompiledKey(key, entry) ? precompiledLoaded.get(key) : undefined;
      if (pre) return (entry.compiled = pre);
      const { schema, notes } = conversion(key, entry);
      try {
        entry.compiled = ajv().compile(schema);
      } catch (e) {
        throw new UserError(`cannot compile the schema of ${key} from ${entry.crd.source}: ${(e as Error).message}`, {
          file: entry.crd.source,
        });
      }
      entry.notes = notes;
    }
    return entry.compiled;
  };

  const validateMeta = (obj: Record<string, unknown>, rule: NameRule): SchemaIssue[] => {
    const meta = obj.metadata;
    if (meta === undefined || meta === null) return []; // presenceIssues reports it
    if (!isObj(meta)) {
      const got = Array.isArray(meta) ? 'array' : typeof meta;
      return [{ path: 'metadata', message: `must be object, got ${got}`, keyword: 'type' }];
    }
    const v = metaValidator(rule);
    return v(meta) ? [] : renderAjvErrors(v.errors ?? [], meta, 'metadata');
  };

  const knows = (apiVersion: string, kind: string): boolean =>
    crdVersions.has(`${apiVersion}/${kind}`) || isBuiltinKind(apiVersion, kind);

  return {
    knows,
    async prepare(objects) {
      await prepareBuiltinKinds(objects);
      // Without objects: ajv's compiler, for any CRD. With objects: for each CRD they need, a bundled
      // one's precompiled validator when there is one (~6 MB for all of them: only those), else ajv's.
      if (objects === undefined) return loadAjv();
      const keys = [...new Set(objects.filter(isObj).map((o) => `${String(o.apiVersion)}/${String(o.kind)}`))].filter((k) => crdVersions.has(k));
      const pre = keys.filter((k) => precompiledKey(k, crdVersions.get(k)!));
      // One after another: concurrent imports sharing dependencies trip jest's ESM loader.
      for (const k of pre) if (!precompiledLoaded.has(k)) precompiledLoaded.set(k, (await PRECOMPILED_CRDS[k]!()).validate as ValidateFunction);
      if (keys.length > pre.length) await loadAjv();
    },
    celStats: () => ({ ...cel }),
    addPackageCrds(crds) {
      const added: string[] = [];
      for (const crd of crds) {
        const gk = `${crd.group}/${crd.kind}`;
        if (explicit.has(gk) || crd.kind === '') continue;
        addCrd(crd);
        added.push(gk);
      }
      return added;
    },
    scopeOf(apiVersion, kind) {
      return scopeOf(apiVersion, kind, crdScopes, isBuiltinKind(apiVersion, kind));
    },
    notes(apiVersion, kind) {
      const key = `${apiVersion}/${kind}`;
      const entry = crdVersions.get(key);
      if (!entry) return undefined;
      compiled(key, entry);
      // A precompiled validator came without the conversion: its notes are made here.
      entry.notes ??= conversion(key, entry).notes;
      return entry.notes;
    },
    validate(obj) {
      const before = celCounts();
      try {
        return validateObject(obj);
      } catch (e) {
        // A YAML alias cycle (`&a {x: *a}`) or absurd nesting overflows the recursive checks.
        if (!(e instanceof RangeError)) throw e;
        const issue = { path: '', message: 'too deeply nested or self-referencing (a YAML alias cycle?) to validate', keyword: 'depth' };
        if (isObj(obj) && typeof obj.apiVersion === 'string' && typeof obj.kind === 'string' && knows(obj.apiVersion, obj.kind)) {
          const source = crdVersions.has(`${obj.apiVersion}/${obj.kind}`) ? 'crd' : 'builtin';
          return { known: true, source, issues: [issue] };
        }
        return { known: false, issues: [issue], reason: issue.message };
      } finally {
        // CEL validators count in one place for the process; this registry's share is what ran here.
        const after = celCounts();
        cel.evaluated += after.evaluated - before.evaluated;
        cel.skipped += after.skipped - before.skipped;
      }
    },
  };

  function validateObject(obj: unknown): SchemaResult {
    if (!isObj(obj)) return { known: false, issues: [{ path: '', message: 'not an object', keyword: 'type' }], reason: 'not an object' };
    const { apiVersion, kind } = obj;
    if (typeof apiVersion !== 'string' || apiVersion === '' || typeof kind !== 'string' || kind === '') {
      const issues: SchemaIssue[] = [];
      if (typeof apiVersion !== 'string' || apiVersion === '') issues.push({ path: 'apiVersion', message: 'missing required field "apiVersion"', keyword: 'required' });
      if (typeof kind !== 'string' || kind === '') issues.push({ path: 'kind', message: 'missing required field "kind"', keyword: 'required' });
      return { known: false, issues, reason: 'apiVersion or kind missing' };
    }
    const key = `${apiVersion}/${kind}`;
    const entry = crdVersions.get(key);
    if (entry) {
      const v = compiled(key, entry);
      const issues = [...presenceIssues(obj), ...(v(obj) ? [] : renderAjvErrors(v.errors ?? [], obj))];
      return { known: true, source: 'crd', issues };
    }
    if (isBuiltinKind(apiVersion, kind)) {
      const removed = removedApiMessage(apiVersion, kind);
      const issues = [
        ...(removed ? [{ path: 'apiVersion', message: removed, keyword: 'removed-api' }] : []),
        ...presenceIssues(obj),
        ...validateBuiltin(obj, apiVersion, kind, (name, value, path) => {
          const v = name === OBJECT_META_SHAPE ? metaValidator('any') : name === LABEL_SELECTOR_SHAPE ? ownValidator(LABEL_SELECTOR_ID) : undefined;
          if (!v) return undefined;
          // Wrong types are reported by kubernetes-models' validator.
          if (!isObj(value)) return [];
          return v(value) ? [] : renderAjvErrors(v.errors ?? [], value, path);
        }),
        ...validateMeta(obj, nameRule(apiVersion, kind)),
      ];
      if (kind === 'CustomResourceDefinition') issues.push(...crdNameIssues(obj));
      return { known: true, source: 'builtin', issues };
    }
    return { known: false, issues: [], reason: `no schema for ${kind} in ${apiVersion}` };
  }
}
