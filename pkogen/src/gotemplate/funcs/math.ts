/** sprig v3.3.0 numeric functions and conversions (numeric.go, conversion via spf13/cast). */
import { GoTyped, type FuncMap, type GoValue } from '../types.js';
import { argInt, arity, FuncError, parseGoIntLiteral, strval, toFloat64, toInt64, unwrap } from './value.js';
import { formatFloatV } from './print.js';

/** pkogen bound on list-producing functions: Go would try to allocate; we fail clearly instead. */
export const MAX_LIST_LENGTH = 1_000_000;

const wrap64 = (n: bigint) => BigInt.asIntN(64, n);

/** shopspring/decimal arithmetic on the shortest decimal form of each float, as sprig's *f functions do. */
function toDec(f: number): { m: bigint; e: number } {
  if (!Number.isFinite(f)) throw new FuncError(`Cannot create a Decimal from ${formatFloatV(f)}`);
  const s = f.toExponential(); // shortest digits
  const [mant, ex] = s.split('e');
  const neg = mant.startsWith('-');
  const digits = mant.replace('-', '').replace('.', '');
  const frac = (mant.split('.')[1] ?? '').length;
  const m = BigInt(digits) * (neg ? -1n : 1n);
  return { m, e: Number(ex) - frac };
}
function decAlign(a: { m: bigint; e: number }, b: { m: bigint; e: number }): [bigint, bigint, number] {
  const e = Math.min(a.e, b.e);
  return [a.m * 10n ** BigInt(a.e - e), b.m * 10n ** BigInt(b.e - e), e];
}
function decToFloat(d: { m: bigint; e: number }): number {
  return Number(`${d.m}e${d.e}`);
}
function decOp(op: 'add' | 'sub' | 'mul' | 'div', x: number, y: number): number {
  const a = toDec(x);
  const b = toDec(y);
  switch (op) {
    case 'add': {
      const [ma, mb, e] = decAlign(a, b);
      return decToFloat({ m: ma + mb, e });
    }
    case 'sub': {
      const [ma, mb, e] = decAlign(a, b);
      return decToFloat({ m: ma - mb, e });
    }
    case 'mul':
      return decToFloat({ m: a.m * b.m, e: a.e + b.e });
    case 'div': {
      if (b.m === 0n) throw new FuncError('decimal division by 0');
      // DivisionPrecision = 16 fractional digits, rounded half away from zero
      const scale = 16;
      const num = a.m * 10n ** BigInt(Math.max(0, scale + b.e - a.e + 1));
      const shift = Math.max(0, scale + b.e - a.e + 1);
      let q = num / b.m;
      const r = num % b.m;
      if (r * 2n >= (b.m < 0n ? -b.m : b.m) * (r < 0n ? -1n : 1n) && r !== 0n) q += (num < 0n) !== (b.m < 0n) ? -1n : 1n;
      return decToFloat({ m: q, e: a.e - b.e - shift });
    }
  }
}

function floatArgs(fn: string, op: 'add' | 'sub' | 'mul' | 'div', first: number, rest: GoValue[]): number {
  let acc = first;
  for (const v of rest) acc = decOp(op, acc, toFloat64(v));
  void fn;
  return acc;
}

function untilStep(start: bigint, stop: bigint, step: bigint): GoValue {
  const out: bigint[] = [];
  if (step === 0n) return new GoTyped('[]int', out);
  const count = step > 0n ? (stop > start ? (stop - start + step - 1n) / step : 0n) : start > stop ? (start - stop + -step - 1n) / -step : 0n;
  if (count > BigInt(MAX_LIST_LENGTH)) {
    throw new FuncError(`would produce ${count} elements; pkogen limits lists to ${MAX_LIST_LENGTH}`);
  }
  if (step > 0n) for (let i = start; i < stop; i += step) out.push(i);
  else for (let i = start; i > stop; i += step) out.push(i);
  return new GoTyped('[]int', out);
}

function seq(args: GoValue[]): string {
  // sprig seq: like GNU seq with 1–3 int params
  const p = args.map((a) => Number(toInt64(a)));
  let start = 1;
  let end = 0;
  let step = 1;
  switch (p.length) {
    case 0:
      return '';
    case 1:
      end = p[0];
      if (end < 1) step = -1;
      break;
    case 2:
      start = p[0];
      end = p[1];
      if (end < start) step = -1;
      break;
    case 3:
      start = p[0];
      step = p[1];
      end = p[2];
      if (end < start) {
        if (step > 0) return '';
      } else if (step < 0) return '';
      break;
    default:
      return '';
  }
  if (step === 0) return '';
  const n = Math.floor((end - start) / step) + 1;
  if (n > MAX_LIST_LENGTH) throw new FuncError(`would produce ${n} elements; pkogen limits lists to ${MAX_LIST_LENGTH}`);
  const out: number[] = [];
  if (step > 0) for (let i = start; i <= end; i += step) out.push(i);
  else for (let i = start; i >= end; i += step) out.push(i);
  return out.join(' ');
}

function round(x: number, places: number, roundOn = 0.5): number {
  const pow = Math.pow(10, places);
  const digit = pow * x;
  const div = digit - Math.trunc(digit); // math.Modf frac part
  const r = div >= roundOn ? Math.ceil(digit) : Math.floor(digit);
  return r / pow;
}

export const mathFuncs: FuncMap = {
  atoi: (...a) => {
    arity('atoi', a, 1);
    const s = strval(a[0]);
    const m = /^[+-]?\d+$/.test(s) ? BigInt(s) : 0n;
    return m < -(1n << 63n) || m >= 1n << 63n ? 0n : m;
  },
  int: (...a) => {
    arity('int', a, 1);
    return toInt64(a[0]);
  },
  int64: (...a) => {
    arity('int64', a, 1);
    return new GoTyped('int64', toInt64(a[0]));
  },
  float64: (...a) => {
    arity('float64', a, 1);
    return toFloat64(a[0]);
  },
  toDecimal: (...a) => {
    arity('toDecimal', a, 1);
    const s = strval(a[0]);
    const n = /^[0-7]+$/.test(s) ? parseGoIntLiteral('0o' + s) : null;
    return new GoTyped('int64', n ?? 0n);
  },
  seq: (...a) => seq(a),
  until: (...a) => {
    arity('until', a, 1);
    const n = argInt('until', a[0], 0);
    return n >= 0n ? untilStep(0n, n, 1n) : untilStep(0n, n, -1n);
  },
  untilStep: (...a) => {
    arity('untilStep', a, 3);
    return untilStep(argInt('untilStep', a[0], 0), argInt('untilStep', a[1], 1), argInt('untilStep', a[2], 2));
  },
  add1: (...a) => {
    arity('add1', a, 1);
    return new GoTyped('int64', wrap64(toInt64(a[0]) + 1n));
  },
  add: (...a) => new GoTyped('int64', a.reduce<bigint>((s, v) => wrap64(s + toInt64(v)), 0n)),
  sub: (...a) => {
    arity('sub', a, 2);
    return new GoTyped('int64', wrap64(toInt64(a[0]) - toInt64(a[1])));
  },
  div: (...a) => {
    arity('div', a, 2);
    const d = toInt64(a[1]);
    if (d === 0n) throw new FuncError('runtime error: integer divide by zero');
    return new GoTyped('int64', wrap64(toInt64(a[0]) / d));
  },
  mod: (...a) => {
    arity('mod', a, 2);
    const d = toInt64(a[1]);
    if (d === 0n) throw new FuncError('runtime error: integer divide by zero');
    return new GoTyped('int64', toInt64(a[0]) % d);
  },
  mul: (...a) => {
    arity('mul', a, 1, true);
    return new GoTyped('int64', a.slice(1).reduce<bigint>((s, v) => wrap64(s * toInt64(v)), toInt64(a[0])));
  },
  add1f: (...a) => {
    arity('add1f', a, 1);
    return decOp('add', toFloat64(a[0]), 1);
  },
  addf: (...a) => floatArgs('addf', 'add', 0, a),
  subf: (...a) => {
    arity('subf', a, 1, true);
    return floatArgs('subf', 'sub', toFloat64(a[0]), a.slice(1));
  },
  divf: (...a) => {
    arity('divf', a, 1, true);
    return floatArgs('divf', 'div', toFloat64(a[0]), a.slice(1));
  },
  mulf: (...a) => {
    arity('mulf', a, 1, true);
    return floatArgs('mulf', 'mul', toFloat64(a[0]), a.slice(1));
  },
  biggest: (...a) => maxI(a),
  max: (...a) => maxI(a),
  min: (...a) => {
    arity('min', a, 1, true);
    return new GoTyped('int64', a.slice(1).reduce<bigint>((m, v) => (toInt64(v) < m ? toInt64(v) : m), toInt64(a[0])));
  },
  maxf: (...a) => {
    arity('maxf', a, 1, true);
    return a.slice(1).reduce<number>((m, v) => Math.max(m, toFloat64(v)), toFloat64(a[0]));
  },
  minf: (...a) => {
    arity('minf', a, 1, true);
    return a.slice(1).reduce<number>((m, v) => Math.min(m, toFloat64(v)), toFloat64(a[0]));
  },
  ceil: (...a) => {
    arity('ceil', a, 1);
    return Math.ceil(toFloat64(a[0]));
  },
  floor: (...a) => {
    arity('floor', a, 1);
    return Math.floor(toFloat64(a[0]));
  },
  round: (...a) => {
    arity('round', a, 2, true);
    const places = Number(argInt('round', a[1], 1));
    return round(toFloat64(a[0]), places, a.length > 2 ? toFloat64(a[2]) : 0.5);
  },
};

function maxI(a: GoValue[]): GoValue {
  arity('max', a, 1, true);
  return new GoTyped('int64', a.slice(1).reduce<bigint>((m, v) => (toInt64(v) > m ? toInt64(v) : m), toInt64(a[0])));
}
void unwrap;
