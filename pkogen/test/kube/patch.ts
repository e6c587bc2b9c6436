/**
 * The patch engines of the API test server: RFC 7386 merge patch (also used for strategic merge
 * patches, whose directives it refuses) and RFC 6902 JSON patch. Inputs are never modified.
 */
import { StatusError } from './status.js';

export function isObj(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function clone<T>(v: T): T {
  return structuredClone(v);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObj(patch)) return clone(patch);
  const out: Record<string, unknown> = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function unescapePointer(p: string): string[] {
  if (p === '') return [];
  if (!p.startsWith('/')) throw new StatusError(422, `json patch: path ${JSON.stringify(p)} must start with "/"`);
  return p.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** RFC 6902 JSON patch (add, remove, replace, move, copy, test) on a copy of `doc`. */
export function jsonPatch(doc: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw new StatusError(400, 'json patch: the body must be a JSON array of operations');
  let root: unknown = clone(doc);
  const parentOf = (segs: string[], where: string): { parent: any; key: string } => {
    let cur: any = root;
    for (const s of segs.slice(0, -1)) {
      cur = Array.isArray(cur) ? cur[Number(s)] : isObj(cur) ? cur[s] : undefined;
      if (cur === undefined) throw new StatusError(422, `json patch: ${where}: path does not exist`);
    }
    return { parent: cur, key: segs[segs.length - 1] };
  };
  const read = (p: string, where: string): unknown => {
    let cur: any = root;
    for (const s of unescapePointer(p)) {
      cur = Array.isArray(cur) ? cur[Number(s)] : isObj(cur) && Object.prototype.hasOwnProperty.call(cur, s) ? cur[s] : undefined;
      if (cur === undefined) throw new StatusError(422, `json patch: ${where}: path ${JSON.stringify(p)} does not exist`);
    }
    return cur;
  };
  const arrayIndex = (arr: unknown[], key: string, forAdd: boolean, where: string): number => {
    if (forAdd && key === '-') return arr.length;
    if (!/^(0|[1-9]\d*)$/.test(key)) throw new StatusError(422, `json patch: ${where}: invalid array index ${JSON.stringify(key)}`);
    const i = Number(key);
    if (i > arr.length || (!forAdd && i === arr.length)) throw new StatusError(422, `json patch: ${where}: array index ${i} out of range`);
    return i;
  };
  const add = (p: string, value: unknown, where: string) => {
    const segs = unescapePointer(p);
    if (segs.length === 0) {
      root = clone(value);
      return;
    }
    const { parent, key } = parentOf(segs, where);
    if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, true, where), 0, clone(value));
    else if (isObj(parent)) parent[key] = clone(value);
    else throw new StatusError(422, `json patch: ${where}: parent of ${JSON.stringify(p)} is not an object or array`);
  };
  const remove = (p: string, where: string): unknown => {
    const segs = unescapePointer(p);
    if (segs.length === 0) throw new StatusError(422, `json patch: ${where}: cannot remove the whole document`);
    const { parent, key } = parentOf(segs, where);
    if (Array.isArray(parent)) return parent.splice(arrayIndex(parent, key, false, where), 1)[0];
    if (isObj(parent) && Object.prototype.hasOwnProperty.call(parent, key)) {
      const v = parent[key];
      delete parent[key];
      return v;
    }
    throw new StatusError(422, `json patch: ${where}: path ${JSON.stringify(p)} does not exist`);
  };
  ops.forEach((op, i) => {
    const where = `operation ${i}`;
    if (!isObj(op) || typeof op.path !== 'string') throw new StatusError(422, `json patch: ${where}: needs "op" and a string "path"`);
    switch (op.op) {
      case 'add':
        if (!('value' in op)) throw new StatusError(422, `json patch: ${where}: "add" needs a value`);
        add(op.path, op.value, where);
        break;
      case 'remove':
        remove(op.path, where);
        break;
      case 'replace':
        if (!('value' in op)) throw new StatusError(422, `json patch: ${where}: "replace" needs a value`);
        remove(op.path, where);
        add(op.path, op.value, where);
        break;
      case 'move':
      case 'copy': {
        if (typeof op.from !== 'string') throw new StatusError(422, `json patch: ${where}: "${op.op}" needs a string "from"`);
        const v = op.op === 'move' ? remove(op.from, where) : clone(read(op.from, where));
        add(op.path, v, where);
        break;
      }
      case 'test':
        if (!deepEqual(read(op.path, where), op.value)) throw new StatusError(422, `json patch: ${where}: test failed: the value at ${JSON.stringify(op.path)} differs`);
        break;
      default:
        throw new StatusError(422, `json patch: ${where}: unsupported operation ${JSON.stringify(op.op)}`);
    }
  });
  return root;
}

/** Strategic-merge directives (`$patch`, `$retainKeys`, …) would be silently misapplied as a merge patch: refuse them. */
export function rejectStrategicDirectives(patch: unknown, at: string): void {
  if (Array.isArray(patch)) patch.forEach((x, i) => rejectStrategicDirectives(x, `${at}[${i}]`));
  else if (isObj(patch)) {
    for (const [k, v] of Object.entries(patch)) {
      if (k.startsWith('$')) {
        throw new StatusError(415, `strategic merge patch directive ${JSON.stringify(k)} at ${at || '.'} is not supported by the test server (it treats strategic merge patches as JSON merge patches)`, 'UnsupportedMediaType');
      }
      rejectStrategicDirectives(v, at ? `${at}.${k}` : k);
    }
  }
}
