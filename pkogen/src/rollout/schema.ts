/**
 * Strict CRD validation of every object of a rollout (SelectorSyncSet, Policy, the nested
 * ConfigurationPolicy, Package/ObjectTemplate/HostedClusterPackage, placements) through the
 * schema registry (src/schema/). Done the way the API server sees the object: nulls dropped
 * and CRD defaults that make a field optional in practice applied first (docs/rollout-reference.md §10).
 */
import { createSchemaRegistry, SchemaRegistry } from '../schema/registry.js';
import { crdApiVersion } from '../schema/crd.js';
import { BUNDLED_CRDS } from '../schema/generated/crds.js';
import { ROLLOUT_KINDS, type SchemaValidator } from './lint.js';
import type { Path } from './source.js';
import { parsePath } from '../core/field-path.js';
import { isObj } from '../core/guards.js';
import { parseAllYaml11 } from '../yaml/parse.js';


/** The API server drops null values of non-nullable fields before validation. */
function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (isObj(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = dropNulls(x);
    return out;
  }
  return v;
}


// The validator below is synchronous: prepareRolloutKinds loads the precompiled validators (make
// build) of the kinds a rollout is made of (the library entry src/public/rollout.ts awaits it at
// import), prepareRolloutSchemas those and the kinds a Template nests. Unbundled (dist/src, tests)
// every built-in kind and ajv are there already (src/schema/validator-loader.ts, ajv-loader.ts):
// a validator used unprepared compiles a rollout kind's CRD schema with ajv instead, with the same
// results. Only the bundled CLI loads them on demand, and its commands prepare first. No top-level
// await here: simulate's CommonJS bundle (hack/bundle.mjs) cannot have one.
const registry: SchemaRegistry = createSchemaRegistry();
let rolloutKinds: Promise<void> | undefined;

/** Loads the validators of the kinds every rollout is made of (once). */
export function prepareRolloutKinds(): Promise<void> {
  rolloutKinds ??= Promise.resolve(registry.prepare?.(ROLLOUT_KINDS.flatMap((kind) => BUNDLED_CRDS.filter((c) => c.kind === kind).flatMap((c) => c.versions.filter((v) => v.served).map((v) => ({ apiVersion: crdApiVersion(c, v.name), kind }))))));
  return rolloutKinds;
}

/**
 * Loads, ahead of a lint or simulation of this Template text, the validators of every kind it
 * nests anywhere (any mapping with a string apiVersion and kind: a SelectorSyncSet's resources, a
 * policy's object definitions): a CRD's precompiled one (make build), so the validator compiles
 * none of them (an OLM rollout's Subscription, CatalogSource and OperatorGroup took ~270 ms to
 * compile), and in the bundled CLI a built-in kind's, which it must have. Text that does not
 * parse, or names a kind through a parameter, loads everything.
 */
export async function prepareRolloutSchemas(file: string, text: string): Promise<void> {
  await prepareRolloutKinds();
  let docs: unknown[];
  try {
    docs = parseAllYaml11(text, file);
  } catch {
    // The lint reports it; should its own reading still find objects, everything is there for them.
    await registry.prepare?.();
    return;
  }
  const kinds = new Map<string, { apiVersion: string; kind: string }>();
  const walk = (v: unknown, depth: number): void => {
    if (depth > 100) return;
    if (Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else if (isObj(v)) {
      if (typeof v.apiVersion === 'string' && typeof v.kind === 'string') kinds.set(`${v.apiVersion}/${v.kind}`, { apiVersion: v.apiVersion, kind: v.kind });
      for (const x of Object.values(v)) walk(x, depth + 1);
    }
  };
  walk(docs, 0);
  // A kind or apiVersion from a parameter (`${KIND}`) is known only after processing: then
  // everything the registry can need (every built-in kind's validator, ajv for any CRD).
  if ([...kinds.values()].some((k) => k.apiVersion.includes('$') || k.kind.includes('$'))) await registry.prepare?.();
  await registry.prepare?.([...kinds.values()]);
}

export function rolloutSchemaValidator(): SchemaValidator {
  const reg = registry;
  return (obj) => {
    let o = dropNulls(obj) as Record<string, unknown>;
    if (o.kind === 'ConfigurationPolicy' && isObj(o.spec) && o.spec.remediationAction === undefined) {
      o = { ...o, spec: { ...o.spec, remediationAction: 'inform' } }; // CRD default
    }
    if (o.kind === 'SelectorSyncSet' || o.kind === 'Policy') {
      // Their nested resources/objectDefinitions are preserve-unknown; each is validated on its own.
    }
    const res = reg.validate(o);
    if (!res.known) return undefined;
    return res.issues.map((i) => ({ path: parsePath(i.path), message: i.message }));
  };
}
