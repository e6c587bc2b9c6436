/**
 * sprig's `semver` and `semverCompare` with Masterminds/semver v3 semantics: loose versions
 * (`v1.2`, `1`), constraints with `,`/space (AND) and `||` (OR), operators = != > < >= <= ~ ^,
 * x/X/* wildcards, hyphen ranges, and the pre-release rule (a pre-release version only matches
 * a constraint that itself carries a pre-release).
 */
import { GoTyped, type FuncMap, type GoValue } from '../types.js';
import { argString, arity, FuncError } from './value.js';

export interface SemVer {
  major: bigint;
  minor: bigint;
  patch: bigint;
  pre: string;
  meta: string;
  original: string;
}

const LOOSE = /^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?(\+([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?$/;

export function parseSemver(s: string): SemVer {
  const m = LOOSE.exec(s);
  if (!m) throw new FuncError('Invalid Semantic Version');
  const pre = m[5] ?? '';
  for (const id of pre ? pre.split('.') : []) {
    if (/^[0-9]+$/.test(id) && id.length > 1 && id.startsWith('0')) throw new FuncError('Version segment starts with 0');
  }
  return {
    major: BigInt(m[1]),
    minor: m[2] ? BigInt(m[2].slice(1)) : 0n,
    patch: m[3] ? BigInt(m[3].slice(1)) : 0n,
    pre,
    meta: m[8] ?? '',
    original: s,
  };
}

function cmpNum(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function comparePre(a: string, b: string): number {
  if (a === b) return 0;
  if (a === '') return 1;
  if (b === '') return -1;
  const pa = a.split('.');
  const pb = b.split('.');
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    if (i >= pa.length) return -1;
    if (i >= pb.length) return 1;
    const x = pa[i];
    const y = pb[i];
    if (x === y) continue;
    const xn = /^[0-9]+$/.test(x);
    const yn = /^[0-9]+$/.test(y);
    if (xn && yn) return cmpNum(BigInt(x), BigInt(y));
    if (xn) return -1;
    if (yn) return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

export function compareSemver(a: SemVer, b: SemVer): number {
  return cmpNum(a.major, b.major) || cmpNum(a.minor, b.minor) || cmpNum(a.patch, b.patch) || comparePre(a.pre, b.pre);
}

interface Constraint {
  op: string;
  v: SemVer;
  /** which parts were wildcards/missing: 0 = major, 1 = minor, 2 = patch, 3 = none */
  dirty: number;
  hasPre: boolean;
}

const CONSTRAINT_RE = /^\s*(=|!=|>=|=>|<=|=<|>|<|~>|~|\^)?\s*v?([0-9xX*]+)(\.[0-9xX*]+)?(\.[0-9xX*]+)?(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?\s*$/;

function parseConstraint(s: string): Constraint {
  const m = CONSTRAINT_RE.exec(s);
  if (!m) throw new FuncError(`improper constraint: ${s}`);
  const parts = [m[2], m[3]?.slice(1), m[4]?.slice(1)];
  let dirty = 3;
  for (let i = 0; i < 3; i++) {
    const p = parts[i];
    if (p === undefined || /^[xX*]$/.test(p)) {
      dirty = i;
      break;
    }
  }
  const num = (p: string | undefined) => (p === undefined || /^[xX*]$/.test(p) ? 0n : BigInt(p));
  const pre = m[5]?.slice(1) ?? '';
  return {
    op: m[1] === '=>' ? '>=' : m[1] === '=<' ? '<=' : m[1] === '~>' ? '~' : m[1] ?? '',
    v: { major: num(parts[0]), minor: dirty <= 1 ? 0n : num(parts[1]), patch: dirty <= 2 ? 0n : num(parts[2]), pre, meta: '', original: s },
    dirty,
    hasPre: pre !== '',
  };
}

function check(c: Constraint, v: SemVer): boolean {
  // pre-release versions only satisfy constraints that include a pre-release
  if (v.pre !== '' && !c.hasPre) return false;
  const cmp = compareSemver(v, c.v);
  const bump = (level: number): SemVer => {
    const b = { ...c.v, pre: '' };
    if (level === 0) return { ...b, major: b.major + 1n, minor: 0n, patch: 0n };
    return { ...b, minor: b.minor + 1n, patch: 0n };
  };
  switch (c.op) {
    case '':
    case '=':
      if (c.dirty < 3) return inWildcard(c, v);
      return cmp === 0;
    case '!=':
      if (c.dirty < 3) return !inWildcard(c, v);
      return cmp !== 0;
    case '>':
      if (c.dirty === 0) return false;
      if (c.dirty < 3) return compareSemver(v, bump(c.dirty - 1)) >= 0;
      return cmp > 0;
    case '<':
      return cmp < 0;
    case '>=':
      return cmp >= 0;
    case '<=':
      if (c.dirty < 3 && c.dirty > 0) return compareSemver(v, bump(c.dirty - 1)) < 0;
      if (c.dirty === 0) return true;
      return cmp <= 0;
    case '~': {
      if (cmp < 0) return false;
      if (c.dirty === 0) return true;
      return compareSemver(v, bump(c.dirty === 1 ? 0 : 1)) < 0;
    }
    case '^': {
      if (cmp < 0) return false;
      if (c.v.major > 0n || c.dirty <= 1) return compareSemver(v, bump(0)) < 0;
      if (c.v.minor > 0n || c.dirty === 2) return compareSemver(v, bump(1)) < 0;
      return compareSemver(v, { ...c.v, pre: '', patch: c.v.patch + 1n }) < 0;
    }
  }
  throw new FuncError(`improper constraint: ${c.v.original}`);
}

function inWildcard(c: Constraint, v: SemVer): boolean {
  if (c.dirty === 0) return true;
  if (v.major !== c.v.major) return false;
  if (c.dirty === 1) return true;
  return v.minor === c.v.minor;
}

export function semverSatisfies(constraint: string, version: string): boolean {
  const v = parseSemver(version);
  const ors = constraint.split('||');
  for (const or of ors) {
    const s = or.trim().replace(/\s*-\s+/, ' - ');
    let ands: Constraint[];
    const hy = /^(\S+) - (\S+)$/.exec(s);
    if (hy) ands = [parseConstraint('>=' + hy[1]), parseConstraint('<=' + hy[2])];
    else {
      const toks = s
        .replace(/(=|!=|>=|=>|<=|=<|>|<|~>|~|\^)\s+/g, '$1')
        .split(/[\s,]+/)
        .filter((t) => t !== '');
      if (toks.length === 0) throw new FuncError(`improper constraint: ${constraint}`);
      ands = toks.map(parseConstraint);
    }
    if (ands.every((c) => check(c, v))) return true;
  }
  return false;
}

export const semverFuncs: FuncMap = {
  semver: (...a: GoValue[]) => {
    arity('semver', a, 1);
    const v = parseSemver(argString('semver', a[0], 0));
    return new GoTyped('*semver.Version', {
      Major: new GoTyped('uint64', v.major),
      Minor: new GoTyped('uint64', v.minor),
      Patch: new GoTyped('uint64', v.patch),
      Prerelease: v.pre,
      Metadata: v.meta,
      Original: v.original,
    });
  },
  semverCompare: (...a: GoValue[]) => {
    arity('semverCompare', a, 2);
    return semverSatisfies(argString('semverCompare', a[0], 0), argString('semverCompare', a[1], 1));
  },
};
