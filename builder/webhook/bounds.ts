/**
 * The size check that runs before any rule or schema validation (webhook and controller alike):
 * a walk of spec and status guided by the CRD's own bounds (maxItems, maxLength), stopping at the
 * first list that is too long (its items are never visited) and after MAX_OBJECT_NODES values in
 * all. An object that passes has at most that many values, each string within its CRD bound, so
 * the rules and the schema validator after it do bounded work; one that fails is refused without
 * running them. Counters (WORK) let tests assert the work done by counting, not by timing.
 */
import { BUILD_KIND, CONFIG_KIND, LIMITS } from '../api/types.js';
import { nodePoolOSBuildCRD, nodePoolOSConfigCRD } from '../api/crds.js';

/** Values (object fields, list items, scalars) a size check visits at most per object. */
export const MAX_OBJECT_NODES = 1000;
/** Size issues reported at most (the walk stops after this many). */
export const MAX_SIZE_ISSUES = 10;
/** Bounds for a string or list the schema leaves unbounded (or a field it does not know). */
const DEFAULT_MAX_STRING = LIMITS.conditionMessage;
const DEFAULT_MAX_ITEMS = 64;

/** What the validation did, process-wide: tests reset and read these. */
export const WORK = {
  /** Values visited by size checks. */
  sizeNodes: 0,
  /** containerFile items the rules looked at. */
  containerFileItems: 0,
  /** Schema validator runs. */
  schemaRuns: 0,
  /** Objects refused by the size check (no rule or schema ran on them). */
  sizeRefusals: 0,
};

export function workCounters(): typeof WORK {
  return { ...WORK };
}
export function resetWorkCounters(): void {
  for (const k of Object.keys(WORK) as (keyof typeof WORK)[]) WORK[k] = 0;
}

interface Bounds {
  maxItems?: number;
  maxLength?: number;
  properties?: Record<string, Bounds>;
  items?: Bounds;
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

function boundsOf(schema: unknown): Bounds {
  if (!isObj(schema)) return {};
  const b: Bounds = {};
  if (typeof schema.maxItems === 'number') b.maxItems = schema.maxItems;
  if (typeof schema.maxLength === 'number') b.maxLength = schema.maxLength;
  if (isObj(schema.properties)) b.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, boundsOf(v)]));
  if (schema.items !== undefined) b.items = boundsOf(schema.items);
  return b;
}

function rootBounds(crd: Json): Bounds {
  const versions = (crd.spec as Json).versions as Json[];
  return boundsOf(((versions[0]!.schema as Json).openAPIV3Schema as Json));
}

let byKind: Map<string, Bounds> | undefined;
function boundsFor(kind: string): Bounds {
  byKind ??= new Map([
    [CONFIG_KIND, rootBounds(nodePoolOSConfigCRD())],
    [BUILD_KIND, rootBounds(nodePoolOSBuildCRD())],
  ]);
  return byKind.get(kind) ?? {};
}

export interface SizeIssue {
  path: string;
  message: string;
}

/** Code points of s, counted only up to max + 1 (what maxLength means; linear, bounded). */
function longerThan(s: string, max: number): boolean {
  if (s.length <= max) return false;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) i++;
    if (++n > max) return true;
  }
  return false;
}

/**
 * Size issues of an object of `kind` (empty when it is within the CRD's bounds). metadata is
 * not walked: the API server validated it and the webhook's rules read only its name.
 */
export function sizeIssues(kind: string, obj: Json): SizeIssue[] {
  const out: SizeIssue[] = [];
  let nodes = 0;
  let stopped = false;
  const add = (path: string, message: string): void => {
    if (out.length < MAX_SIZE_ISSUES) out.push({ path, message });
    if (out.length >= MAX_SIZE_ISSUES) stopped = true;
  };
  const walk = (v: unknown, b: Bounds | undefined, path: string): void => {
    if (stopped) return;
    if (++nodes > MAX_OBJECT_NODES) {
      add(path, `the object has more than ${MAX_OBJECT_NODES} fields and list items; refusing it before validating`);
      stopped = true;
      return;
    }
    if (typeof v === 'string') {
      const max = b?.maxLength ?? DEFAULT_MAX_STRING;
      if (longerThan(v, max)) add(path, `must be at most ${max} characters; got ${v.length}`);
      return;
    }
    if (Array.isArray(v)) {
      const max = b?.maxItems ?? DEFAULT_MAX_ITEMS;
      if (v.length > max) {
        add(path, `must have at most ${max} items; got ${v.length}`);
        return;
      }
      for (let i = 0; i < v.length && !stopped; i++) walk(v[i], b?.items, `${path}[${i}]`);
      return;
    }
    if (isObj(v)) {
      for (const k in v) {
        if (stopped) return;
        if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
        walk(v[k], b?.properties?.[k], path ? `${path}.${k}` : k);
      }
    }
  };
  const root = boundsFor(kind);
  for (const k of ['apiVersion', 'kind', 'spec', 'status']) if (k in obj) walk(obj[k], root.properties?.[k], k);
  const meta = obj.metadata;
  if (isObj(meta)) {
    nodes++;
    if (typeof meta.name === 'string' && meta.name.length > LIMITS.name) add('metadata.name', `must be at most ${LIMITS.name} characters; got ${meta.name.length}`);
  }
  WORK.sizeNodes += Math.min(nodes, MAX_OBJECT_NODES + 1);
  if (out.length) WORK.sizeRefusals++;
  return out;
}
