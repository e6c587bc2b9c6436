/** sprig v3.3.0 lists, dicts, defaults and reflection (list.go, dict.go, defaults.go, reflect.go). */
import { charge, chargeDeep, WorkLimitError } from '../budget.js';
import { GoTyped, type FuncMap, type GoMap, type GoValue } from '../types.js';
import { marshalJson, unmarshalJson } from './json.js';
import {
  argInt,
  argMap,
  argString,
  arity,
  deepCopy,
  deepEqual,
  FuncError,
  goKindName,
  goTypeName,
  hasOwn,
  isEmpty,
  strval,
  toInt64,
  unwrap,
} from './value.js';

/** A list argument: Go slices/arrays of any element type (GoTyped unwrapped). */
function listOf(fn: string, v: GoValue, must: boolean): GoValue[] | null {
  const u = unwrap(v);
  if (Array.isArray(u)) return u;
  if (must) throw new FuncError(`Cannot ${fn} on type ${goTypeName(v)}`);
  throw new FuncError(`Cannot ${fn} on type ${goTypeName(v)}`);
}

const listFn = (fn: string, verb: string, f: (l: GoValue[], args: GoValue[]) => GoValue, n = 1, variadic = false) => {
  const impl = (...a: GoValue[]) => {
    arity(fn, a, n, variadic);
    const l = listOf(verb, a[0], true)!;
    return f(l, a.slice(1));
  };
  return impl;
};

function uniq(l: GoValue[]): GoValue[] {
  const out: GoValue[] = [];
  for (const x of l) {
    // quadratic in the list: count the comparisons
    charge(out.length);
    if (!out.some((y) => deepEqual(x, y))) out.push(x);
  }
  return out;
}

function sliceList(l: GoValue[], idx: GoValue[]): GoValue[] {
  const i = idx.length > 0 ? Number(toInt64(idx[0])) : 0;
  const j = idx.length > 1 ? Number(toInt64(idx[1])) : l.length;
  if (i < 0 || j > l.length || i > j) throw new FuncError(`runtime error: slice bounds out of range [${i}:${j}] with capacity ${l.length}`);
  return l.slice(i, j);
}

function dictArgs(a: GoValue[]): GoMap {
  const m: GoMap = {};
  for (let i = 0; i < a.length; i += 2) {
    const k = strval(a[i]);
    m[k] = i + 1 >= a.length ? '' : a[i + 1];
  }
  return m;
}

/** mergo.Merge (WithOverride for mergeOverwrite): recursive into maps; dst values kept unless empty or overriding. */
function mergeInto(dst: GoMap, src: GoMap, override: boolean): void {
  for (const k of Object.keys(src)) {
    const sv = src[k];
    const dv = dst[k];
    const su = unwrap(sv);
    const du = unwrap(dv);
    if (hasOwn(dst, k) && isPlainMap(du) && isPlainMap(su)) {
      mergeInto(du as GoMap, su as GoMap, override);
    } else if (!hasOwn(dst, k) || isEmptyForMerge(dv) || (override && !isEmptyForMerge(sv))) {
      dst[k] = sv;
    }
  }
}
function isPlainMap(v: GoValue): boolean {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof GoTyped);
}
function isEmptyForMerge(v: GoValue): boolean {
  // mergo's isEmptyValue on interface values: nil and zero values count as empty
  return isEmpty(v);
}

function dig(a: GoValue[]): GoValue {
  if (a.length < 3) throw new FuncError(`wrong number of args for dig: want at least 3 got ${a.length}`);
  const dict = argMap('dig', a[a.length - 1]);
  const def = a[a.length - 2];
  const keys = a.slice(0, -2).map((k) => argString('dig', k, 0));
  let cur: GoMap = dict;
  for (let i = 0; i < keys.length; i++) {
    if (!hasOwn(cur, keys[i])) return def;
    const v = cur[keys[i]];
    if (i === keys.length - 1) return v;
    const u = unwrap(v);
    if (!isPlainMap(u)) throw new FuncError(`interface conversion: interface {} is ${goTypeName(v)}, not map[string]interface {}`);
    cur = u as GoMap;
  }
  return def;
}

function typeIsLike(t: string, v: GoValue): boolean {
  const n = goTypeName(v);
  return t === n || '*' + t === n;
}

export const collectionFuncs: FuncMap = {
  // defaults
  default: (...a) => {
    arity('default', a, 1, true);
    if (a.length === 1) return a[0];
    return isEmpty(a[1]) ? a[0] : a[1];
  },
  empty: (...a) => {
    arity('empty', a, 1);
    return isEmpty(a[0]);
  },
  coalesce: (...a) => {
    for (const v of a) if (!isEmpty(v)) return v;
    return null;
  },
  all: (...a) => a.every((v) => !isEmpty(v)),
  any: (...a) => a.some((v) => !isEmpty(v)),
  compact: listFn('compact', 'compact', (l) => l.filter((v) => !isEmpty(v))),
  mustCompact: listFn('mustCompact', 'compact', (l) => l.filter((v) => !isEmpty(v))),
  ternary: (...a) => {
    arity('ternary', a, 3);
    const c = unwrap(a[2]);
    if (typeof c !== 'boolean') throw new FuncError(`wrong type for value; expected bool; got ${goTypeName(a[2])}`);
    return c ? a[0] : a[1];
  },
  deepCopy: (...a) => {
    arity('deepCopy', a, 1);
    chargeDeep(a[0]);
    return deepCopy(a[0]);
  },
  mustDeepCopy: (...a) => {
    arity('mustDeepCopy', a, 1);
    if (a[0] === null) throw new FuncError('copy: cannot deep copy nil');
    chargeDeep(a[0]);
    return deepCopy(a[0]);
  },
  fromJson: (...a) => {
    arity('fromJson', a, 1);
    try {
      return unmarshalJson(argString('fromJson', a[0], 0));
    } catch (e) {
      if (e instanceof FuncError && /wrong type/.test(e.message)) throw e;
      return null;
    }
  },
  mustFromJson: (...a) => {
    arity('mustFromJson', a, 1);
    return unmarshalJson(argString('mustFromJson', a[0], 0));
  },
  toJson: (...a) => swallow(() => marshalJson(one('toJson', a), { escapeHTML: true })),
  mustToJson: (...a) => marshalJson(one('mustToJson', a), { escapeHTML: true }),
  toPrettyJson: (...a) => swallow(() => marshalJson(one('toPrettyJson', a), { escapeHTML: true, indent: '  ' })),
  mustToPrettyJson: (...a) => marshalJson(one('mustToPrettyJson', a), { escapeHTML: true, indent: '  ' }),
  toRawJson: (...a) => swallow(() => marshalJson(one('toRawJson', a), { escapeHTML: false })),
  mustToRawJson: (...a) => marshalJson(one('mustToRawJson', a), { escapeHTML: false }),

  // reflection
  typeOf: (...a) => goTypeName(one('typeOf', a)),
  typeIs: (...a) => {
    arity('typeIs', a, 2);
    return argString('typeIs', a[0], 0) === goTypeName(a[1]);
  },
  typeIsLike: (...a) => {
    arity('typeIsLike', a, 2);
    return typeIsLike(argString('typeIsLike', a[0], 0), a[1]);
  },
  kindOf: (...a) => goKindName(one('kindOf', a)),
  kindIs: (...a) => {
    arity('kindIs', a, 2);
    return argString('kindIs', a[0], 0) === goKindName(a[1]);
  },
  deepEqual: (...a) => {
    arity('deepEqual', a, 2);
    // two equal values that share structure are compared expanded: count one of them
    if (a[0] !== a[1]) chargeDeep(a[0]);
    return deepEqual(a[0], a[1]);
  },

  // dicts
  dict: (...a) => dictArgs(a),
  get: (...a) => {
    arity('get', a, 2);
    const m = argMap('get', a[0]);
    const k = argString('get', a[1], 1);
    return hasOwn(m, k) ? m[k] : '';
  },
  set: (...a) => {
    arity('set', a, 3);
    const m = argMap('set', a[0]);
    m[argString('set', a[1], 1)] = a[2];
    return a[0];
  },
  unset: (...a) => {
    arity('unset', a, 2);
    const m = argMap('unset', a[0]);
    delete m[argString('unset', a[1], 1)];
    return a[0];
  },
  hasKey: (...a) => {
    arity('hasKey', a, 2);
    return hasOwn(argMap('hasKey', a[0]), argString('hasKey', a[1], 1));
  },
  pluck: (...a) => {
    arity('pluck', a, 1, true);
    const k = argString('pluck', a[0], 0);
    const out: GoValue[] = [];
    for (const d of a.slice(1)) {
      const m = argMap('pluck', d);
      if (hasOwn(m, k)) out.push(m[k]);
    }
    return out;
  },
  // Go map iteration order is random; pkogen returns keys sorted so output is deterministic.
  keys: (...a) => {
    const out: string[] = [];
    for (const d of a) out.push(...Object.keys(argMap('keys', d)).sort());
    return new GoTyped('[]string', out);
  },
  pick: (...a) => {
    arity('pick', a, 1, true);
    const m = argMap('pick', a[0]);
    const out: GoMap = {};
    for (const k of a.slice(1)) {
      const ks = argString('pick', k, 1);
      if (hasOwn(m, ks)) out[ks] = m[ks];
    }
    return out;
  },
  omit: (...a) => {
    arity('omit', a, 1, true);
    const m = argMap('omit', a[0]);
    const drop = new Set(a.slice(1).map((k) => argString('omit', k, 1)));
    const out: GoMap = {};
    for (const k of Object.keys(m)) if (!drop.has(k)) out[k] = m[k];
    return out;
  },
  merge: (...a) => mergeFn('merge', a, false),
  mustMerge: (...a) => mergeFn('mustMerge', a, false),
  mergeOverwrite: (...a) => mergeFn('mergeOverwrite', a, true),
  mustMergeOverwrite: (...a) => mergeFn('mustMergeOverwrite', a, true),
  // values: Go returns them in random map order; pkogen uses sorted key order.
  values: (...a) => {
    arity('values', a, 1);
    const m = argMap('values', a[0]);
    return Object.keys(m)
      .sort()
      .map((k) => m[k]);
  },
  dig: (...a) => dig(a),

  // lists
  tuple: (...a) => [...a],
  list: (...a) => [...a],
  append: listFn('append', 'push', (l, r) => [...l, r[0]], 2),
  mustAppend: listFn('mustAppend', 'push', (l, r) => [...l, r[0]], 2),
  push: listFn('push', 'push', (l, r) => [...l, r[0]], 2),
  mustPush: listFn('mustPush', 'push', (l, r) => [...l, r[0]], 2),
  prepend: listFn('prepend', 'prepend', (l, r) => [r[0], ...l], 2),
  mustPrepend: listFn('mustPrepend', 'prepend', (l, r) => [r[0], ...l], 2),
  first: listFn('first', 'find first', (l) => (l.length ? l[0] : null)),
  mustFirst: listFn('mustFirst', 'find first', (l) => (l.length ? l[0] : null)),
  rest: listFn('rest', 'find rest', (l) => (l.length ? l.slice(1) : null)),
  mustRest: listFn('mustRest', 'find rest', (l) => (l.length ? l.slice(1) : null)),
  last: listFn('last', 'find last', (l) => (l.length ? l[l.length - 1] : null)),
  mustLast: listFn('mustLast', 'find last', (l) => (l.length ? l[l.length - 1] : null)),
  initial: listFn('initial', 'find initial', (l) => (l.length ? l.slice(0, -1) : null)),
  mustInitial: listFn('mustInitial', 'find initial', (l) => (l.length ? l.slice(0, -1) : null)),
  reverse: listFn('reverse', 'find reverse', (l) => [...l].reverse()),
  mustReverse: listFn('mustReverse', 'find reverse', (l) => [...l].reverse()),
  uniq: listFn('uniq', 'find uniq', uniq),
  mustUniq: listFn('mustUniq', 'find uniq', uniq),
  without: listFn('without', 'find without', (l, r) => l.filter((x) => !r.some((y) => deepEqual(x, y))), 1, true),
  mustWithout: listFn('mustWithout', 'find without', (l, r) => l.filter((x) => !r.some((y) => deepEqual(x, y))), 1, true),
  has: (...a) => {
    arity('has', a, 2);
    if (a[1] === null) return false;
    const l = listOf('find has', a[1], true)!;
    return l.some((x) => deepEqual(x, a[0]));
  },
  mustHas: (...a) => {
    arity('mustHas', a, 2);
    if (a[1] === null) return false;
    const l = listOf('find has', a[1], true)!;
    return l.some((x) => deepEqual(x, a[0]));
  },
  slice: listFn('slice', 'slice', sliceList, 1, true),
  mustSlice: listFn('mustSlice', 'slice', sliceList, 1, true),
  concat: (...a) => {
    const out: GoValue[] = [];
    for (const l of a) {
      const u = unwrap(l);
      if (!Array.isArray(u)) throw new FuncError(`Cannot concat type ${goTypeName(l)} as list`);
      out.push(...u);
    }
    return out;
  },
  chunk: (...a) => chunk('chunk', a),
  mustChunk: (...a) => chunk('mustChunk', a),
};

function chunk(fn: string, a: GoValue[]): GoValue {
  arity(fn, a, 2);
  const size = Number(argInt(fn, a[0], 0));
  const l = listOf('chunk', a[1], true)!;
  if (size <= 0) throw new FuncError('runtime error: integer divide by zero');
  const out: GoValue[] = [];
  for (let i = 0; i < l.length; i += size) out.push(l.slice(i, i + size));
  return out;
}

function mergeFn(fn: string, a: GoValue[], override: boolean): GoValue {
  arity(fn, a, 1, true);
  const dst = argMap(fn, a[0]);
  for (const s of a.slice(1)) {
    const src = argMap(fn, s);
    chargeDeep(src);
    mergeInto(dst, src, override);
  }
  return a[0];
}

function one(fn: string, a: GoValue[]): GoValue {
  arity(fn, a, 1);
  return a[0];
}

/** sprig's non-must JSON encoders return "" on error. */
function swallow(f: () => string): string {
  try {
    return f();
  } catch (e) {
    if (e instanceof FuncError && e.message.startsWith('wrong number')) throw e;
    // sprig drops marshalling errors, but a work limit is not one: it stops the run
    if (e instanceof WorkLimitError) throw e;
    return '';
  }
}
