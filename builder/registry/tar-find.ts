/**
 * Finds one regular file in a tar stream fed chunk by chunk, keeping only that file's bytes
 * (bounded) and the current header: a layer is never held whole. Formats as src/oci/tar.ts reads
 * them (ustar prefix, PAX `path`/`size`, GNU long names, base-256 sizes); names are cleaned the
 * same way. Whiteouts (`.wh.<name>`, an opaque directory, a whiteout of a parent directory) of
 * the file are reported, so a caller walking layers from the top knows to stop.
 */
import { UserError } from 'pkogen/model';
import { cleanTarName } from 'pkogen/oci';

const BLOCK = 512;
const dec = new TextDecoder('utf-8');

export interface TarFindOptions {
  /** The cleaned path to look for, e.g. `release-manifests/image-references`. */
  name: string;
  /** Largest size accepted for that file; a bigger one is an error (nothing of it is read). */
  maxFileBytes: number;
  /** Longest PAX / GNU long-name payload (default 64 KiB). */
  maxMetaBytes?: number;
  /** Most headers read before giving up (default 200 000). */
  maxHeaders?: number;
  /** Names the stream in errors (`layer sha256:…`). */
  what: string;
}

function cstr(b: Uint8Array, off: number, len: number): string {
  let end = off;
  while (end < off + len && b[end] !== 0) end++;
  return dec.decode(b.subarray(off, end));
}

function num(b: Uint8Array, off: number, len: number, what: string): number {
  if (b[off] & 0x80) {
    let n = b[off] & 0x7f;
    for (let i = 1; i < len; i++) n = n * 256 + b[off + i];
    if (!Number.isSafeInteger(n)) throw new UserError(`${what}: tar size field out of range`);
    return n;
  }
  const s = cstr(b, off, len).trim();
  if (s === '') return 0;
  if (!/^[0-7]+$/.test(s)) throw new UserError(`${what}: invalid tar numeric field ${JSON.stringify(s.slice(0, 20))}`);
  return parseInt(s, 8);
}

function checksumOk(h: Uint8Array, what: string): boolean {
  const want = num(h, 148, 8, what);
  let u = 0;
  let s = 0;
  for (let i = 0; i < BLOCK; i++) {
    const b = i >= 148 && i < 156 ? 0x20 : h[i];
    u += b;
    s += b > 127 ? b - 256 : b;
  }
  return want === u || want === s;
}

function parsePax(data: Uint8Array, what: string): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 0;
  while (i < data.length) {
    let sp = i;
    while (sp < data.length && data[sp] !== 0x20) sp++;
    const len = parseInt(dec.decode(data.subarray(i, sp)), 10);
    if (!Number.isFinite(len) || len <= 0 || i + len > data.length) throw new UserError(`${what}: malformed PAX header`);
    const rec = dec.decode(data.subarray(sp + 1, i + len - 1));
    const eq = rec.indexOf('=');
    if (eq > 0) out[rec.slice(0, eq)] = rec.slice(eq + 1);
    i += len;
  }
  return out;
}

type State =
  | { k: 'header' }
  | { k: 'skip'; left: number }
  | { k: 'meta'; type: string; size: number; pad: number; got: Uint8Array[]; n: number }
  | { k: 'file'; size: number; got: Uint8Array[]; n: number }
  | { k: 'done' };

export class TarFind {
  private state: State = { k: 'header' };
  private head = new Uint8Array(BLOCK);
  private headN = 0;
  private pax: Record<string, string> = {};
  private longName?: string;
  private headers = 0;
  private readonly dir: string;
  private readonly base: string;
  /** The file's bytes, once found. */
  found?: Uint8Array;
  /** A whiteout of the file (or of its directory) was seen in this stream. */
  hidden = false;
  /** The archive's end (two zero blocks, or one) was reached. */
  ended = false;

  constructor(private readonly o: TarFindOptions) {
    const i = o.name.lastIndexOf('/');
    this.dir = i >= 0 ? o.name.slice(0, i) : '';
    this.base = o.name.slice(i + 1);
  }

  /** True once there is nothing more to learn from this stream (file found or archive ended). */
  get finished(): boolean {
    return this.state.k === 'done';
  }

  /** Feeds bytes; returns `finished`. Throws a UserError on a malformed archive or an oversized file. */
  write(chunk: Uint8Array): boolean {
    let off = 0;
    while (off < chunk.length && this.state.k !== 'done') {
      const st = this.state;
      if (st.k === 'header') {
        const take = Math.min(BLOCK - this.headN, chunk.length - off);
        this.head.set(chunk.subarray(off, off + take), this.headN);
        this.headN += take;
        off += take;
        if (this.headN === BLOCK) {
          this.headN = 0;
          this.onHeader();
        }
      } else if (st.k === 'skip') {
        const take = Math.min(st.left, chunk.length - off);
        st.left -= take;
        off += take;
        if (st.left === 0) this.state = { k: 'header' };
      } else if (st.k === 'meta' || st.k === 'file') {
        const want = st.k === 'meta' ? st.size + st.pad : st.size;
        const take = Math.min(want - st.n, chunk.length - off);
        // Copied: the caller's chunk buffer may be reused.
        st.got.push(chunk.slice(off, off + take));
        st.n += take;
        off += take;
        if (st.n === want) {
          const all = concat(st.got, st.n);
          if (st.k === 'file') {
            this.found = all;
            this.state = { k: 'done' };
          } else {
            this.onMeta(st.type, all.subarray(0, st.size));
            this.state = { k: 'header' };
          }
        }
      }
    }
    return this.state.k === 'done';
  }

  private onMeta(type: string, data: Uint8Array): void {
    if (type === 'x') this.pax = { ...this.pax, ...parsePax(data, this.o.what) };
    else if (type === 'L') this.longName = cstr(data, 0, data.length);
    // 'K' (long link name): not needed to find a regular file.
  }

  private onHeader(): void {
    const h = this.head;
    const what = this.o.what;
    if (h.every((b) => b === 0)) {
      this.ended = true;
      this.state = { k: 'done' };
      return;
    }
    if (++this.headers > (this.o.maxHeaders ?? 200_000)) throw new UserError(`${what}: more than ${this.o.maxHeaders ?? 200_000} tar headers`);
    if (!checksumOk(h, what)) throw new UserError(`${what}: bad tar header checksum`);
    const type = String.fromCharCode(h[156] || 0x30);
    let size = num(h, 124, 12, what);
    if (this.pax.size !== undefined && /^\d+$/.test(this.pax.size)) size = Number(this.pax.size);
    if (!Number.isSafeInteger(size)) throw new UserError(`${what}: tar size out of range`);
    const pad = (BLOCK - (size % BLOCK)) % BLOCK;
    if (type === 'x' || type === 'L' || type === 'K') {
      const max = this.o.maxMetaBytes ?? 64 << 10;
      if (size > max) throw new UserError(`${what}: tar extended header larger than ${max} bytes`);
      this.state = size + pad ? { k: 'meta', type, size, pad, got: [], n: 0 } : { k: 'header' };
      if (!(size + pad)) this.onMeta(type, new Uint8Array(0));
      return;
    }
    let name = cstr(h, 0, 100);
    if (cstr(h, 257, 6).startsWith('ustar')) {
      const prefix = cstr(h, 345, 155);
      if (prefix) name = `${prefix}/${name}`;
    }
    name = this.pax.path ?? this.longName ?? name;
    this.pax = {};
    this.longName = undefined;
    const clean = type === 'g' ? undefined : cleanTarName(name);
    if (clean !== undefined) {
      if (clean === `${this.dir}/.wh.${this.base}` || clean === `${this.dir}/.wh..wh..opq` || (this.dir && clean === `.wh.${this.dir}`)) this.hidden = true;
      if (clean === this.o.name && (type === '0' || type === '7')) {
        if (size > this.o.maxFileBytes) throw new UserError(`${what}: ${this.o.name} is ${size} bytes, more than the ${this.o.maxFileBytes} allowed`);
        this.state = size ? { k: 'file', size, got: [], n: 0 } : { k: 'done' };
        if (!size) this.found = new Uint8Array(0);
        return;
      }
    }
    this.state = size + pad ? { k: 'skip', left: size + pad } : { k: 'header' };
  }
}

function concat(parts: Uint8Array[], n: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(n);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}
