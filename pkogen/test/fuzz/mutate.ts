/**
 * Deterministic inputs for the fuzz harness: input i of target t under seed s is always the same
 * bytes, so the parent can re-create the input a killed child was working on, and a run can be
 * repeated exactly.
 */
import { createHash } from 'node:crypto';

/** xorshift128+ seeded from a string: small, fast, good enough to pick mutations. */
export class Rng {
  private a: bigint;
  private b: bigint;
  constructor(seed: string) {
    const h = createHash('sha256').update(seed).digest();
    this.a = h.readBigUInt64LE(0) | 1n;
    this.b = h.readBigUInt64LE(8) | 1n;
  }
  /** A uint32. */
  next(): number {
    let s1 = this.a;
    const s0 = this.b;
    this.a = s0;
    s1 ^= (s1 << 23n) & 0xffffffffffffffffn;
    this.b = s1 ^ s0 ^ (s1 >> 17n) ^ (s0 >> 26n);
    return Number((this.b + s0) & 0xffffffffn);
  }
  /** An integer in [0, n). */
  int(n: number): number {
    return n <= 0 ? 0 : this.next() % n;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  chance(p: number): boolean {
    return this.next() / 0x100000000 < p;
  }
}

const enc = new TextEncoder();

/** Largest input the mutator produces: large enough for bombs, small enough for 10,000 runs. */
export const MAX_INPUT = 64 * 1024;

/** Values that tend to break parsers at boundaries. */
const INTERESTING = ['0', '-1', '4294967296', '9007199254740993', '1e999', 'NaN', 'null', 'true', '""', '[]', '{}', '\u0000', '\uffff', '\ud800', '\\', '%', '{{', '}}', '\n', '\t', '\r\n'];

/**
 * Mutates `base`: 1–8 edits among bit flips, random bytes, deletions, duplications (so a
 * repeated structure can grow), dictionary tokens (the target's own syntax) and splices from
 * another seed. The output is capped at MAX_INPUT.
 */
export function mutate(rng: Rng, base: Uint8Array, dict: readonly string[], others: readonly Uint8Array[]): Uint8Array {
  let b = Array.from(base);
  const tokens = [...dict, ...INTERESTING];
  const edits = 1 + rng.int(8);
  for (let e = 0; e < edits; e++) {
    const at = rng.int(b.length + 1);
    switch (rng.int(8)) {
      case 0:
        if (b.length) b[rng.int(b.length)] ^= 1 << rng.int(8);
        break;
      case 1:
        if (b.length) b[rng.int(b.length)] = rng.int(256);
        break;
      case 2: {
        const n = 1 + rng.int(Math.min(64, Math.max(1, b.length - at)));
        b.splice(at, n);
        break;
      }
      case 3: {
        // Duplicate a chunk a few times: nested or repeated structures, alias chains.
        const n = 1 + rng.int(Math.min(256, Math.max(1, b.length - at)));
        const chunk = b.slice(at, at + n);
        const times = 1 + rng.int(rng.chance(0.1) ? 64 : 4);
        for (let t = 0; t < times && b.length + chunk.length <= MAX_INPUT; t++) b.splice(at, 0, ...chunk);
        break;
      }
      case 4:
      case 5:
        b.splice(at, 0, ...enc.encode(rng.pick(tokens)));
        break;
      case 6: {
        if (!others.length) break;
        const o = rng.pick(others);
        const from = rng.int(o.length);
        const n = rng.int(Math.min(512, o.length - from) + 1);
        b.splice(at, 0, ...o.subarray(from, from + n));
        break;
      }
      default:
        b = b.slice(0, at);
    }
    if (b.length > MAX_INPUT) b = b.slice(0, MAX_INPUT);
  }
  return Uint8Array.from(b);
}

/** Input `index` of a target: mostly mutated seeds, some raw random bytes, the seeds themselves first. */
export function inputFor(target: string, seed: number, index: number, seeds: readonly Uint8Array[], dict: readonly string[]): Uint8Array {
  if (index < seeds.length) return seeds[index]!;
  const rng = new Rng(`${seed}/${target}/${index}`);
  if (rng.chance(0.05)) {
    const n = rng.int(1024);
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = rng.int(256);
    return out;
  }
  let b = mutate(rng, rng.pick(seeds), dict, seeds);
  // Stacked mutations now and then reach deeper.
  while (rng.chance(0.3)) b = mutate(rng, b, dict, seeds);
  return b;
}
