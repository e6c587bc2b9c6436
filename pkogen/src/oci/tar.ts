/**
 * A deterministic tar writer and a bounded, traversal-safe tar reader.
 *
 * Writer: USTAR headers with fixed owner (0:0, empty names), fixed modes and a fixed mtime; a PAX
 * `path` record only when a name does not fit USTAR's name/prefix split. Nothing from the machine
 * (umask, clock, uid) reaches the bytes.
 *
 * Reader: ustar, pax (`x`, ignores `g`), GNU long names (`L`/`K`) and GNU base-256 sizes. Names
 * are cleaned like Go's `path.Clean`; entries whose cleaned name escapes the root (`../x`) are
 * dropped, never returned, so no caller can write outside its target by mistake.
 */
import { UserError } from '../core/errors.js';

export type TarEntryType = 'file' | 'dir' | 'symlink' | 'hardlink' | 'other';

export interface TarEntry {
  /** Cleaned, relative, `/`-separated; directories have no trailing slash. */
  name: string;
  type: TarEntryType;
  mode: number;
  /** Empty for anything but regular files. */
  data: Uint8Array;
  linkname?: string;
}

export interface TarWriteEntry {
  name: string;
  type: 'file' | 'dir';
  data?: Uint8Array;
  /** Defaults: files 0644, directories 0755. */
  mode?: number;
}

const BLOCK = 512;
const enc = new TextEncoder();
const dec = new TextDecoder('utf-8');

function writeString(buf: Uint8Array, off: number, len: number, s: string): void {
  const b = enc.encode(s);
  if (b.length > len) throw new Error(`tar field overflow: ${s}`);
  buf.set(b, off);
}

function writeOctal(buf: Uint8Array, off: number, len: number, n: number): void {
  // len-1 octal digits, then NUL: the form GNU tar, Go and bsdtar all write.
  const s = n.toString(8).padStart(len - 1, '0');
  if (s.length > len - 1) throw new Error(`tar numeric field overflow: ${n}`);
  writeString(buf, off, len - 1, s);
}

function header(name: string, size: number, mode: number, typeflag: string, prefix = ''): Uint8Array {
  const h = new Uint8Array(BLOCK);
  writeString(h, 0, 100, name);
  writeOctal(h, 100, 8, mode);
  writeOctal(h, 108, 8, 0); // uid
  writeOctal(h, 116, 8, 0); // gid
  writeOctal(h, 124, 12, size);
  writeOctal(h, 136, 12, 0); // mtime: epoch, always
  h.fill(0x20, 148, 156); // checksum is computed with its own field as spaces
  writeString(h, 156, 1, typeflag);
  writeString(h, 257, 6, 'ustar\0');
  writeString(h, 263, 2, '00');
  writeString(h, 345, 155, prefix);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += h[i];
  writeString(h, 148, 8, sum.toString(8).padStart(6, '0') + '\0 ');
  return h;
}

/** Splits a name into USTAR prefix/name, or returns undefined when it cannot be done. */
function ustarSplit(name: string): { prefix: string; name: string } | undefined {
  const bytes = enc.encode(name).length;
  if (bytes <= 100) return { prefix: '', name };
  for (let i = name.length - 1; i > 0; i--) {
    if (name[i] !== '/') continue;
    const p = name.slice(0, i);
    const n = name.slice(i + 1);
    if (enc.encode(p).length <= 155 && enc.encode(n).length <= 100 && n.length > 0) return { prefix: p, name: n };
  }
  return undefined;
}

function paxRecord(key: string, value: string): string {
  // A record's length counts its own digits: grow until stable.
  const body = enc.encode(` ${key}=${value}\n`).length;
  let total = body + String(body).length;
  while (body + String(total).length !== total) total = body + String(total).length;
  return `${total} ${key}=${value}\n`;
}

function pad(n: number): number {
  return (BLOCK - (n % BLOCK)) % BLOCK;
}

/**
 * Writes entries in the order given (callers sort), plus the two zero blocks that end an archive.
 * Directory names get a trailing `/` in the header, as every tar tool writes them.
 */
export function writeTar(entries: TarWriteEntry[]): Uint8Array {
  const parts: Uint8Array[] = [];
  let total = 0;
  const push = (b: Uint8Array) => {
    parts.push(b);
    total += b.length;
  };
  for (const e of entries) {
    const isDir = e.type === 'dir';
    const data = isDir ? new Uint8Array(0) : (e.data ?? new Uint8Array(0));
    const mode = e.mode ?? (isDir ? 0o755 : 0o644);
    const name = isDir && !e.name.endsWith('/') ? `${e.name}/` : e.name;
    if (name.startsWith('/') || name.split('/').includes('..')) throw new Error(`tar: unsafe entry name ${name}`);
    let split = ustarSplit(name);
    if (!split) {
      const rec = enc.encode(paxRecord('path', name));
      push(header('PaxHeaders/entry', rec.length, 0o644, 'x'));
      push(rec);
      push(new Uint8Array(pad(rec.length)));
      split = { prefix: '', name: name.slice(-99) }; // USTAR fallback name; readers use the PAX path
    }
    push(header(split.name, data.length, mode, isDir ? '5' : '0', split.prefix));
    if (data.length) {
      push(data);
      push(new Uint8Array(pad(data.length)));
    }
  }
  push(new Uint8Array(BLOCK * 2));
  const out = new Uint8Array(total);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Reader

export interface ReadTarOptions {
  /** Most entries accepted before the archive is refused (default 100 000). */
  maxEntries?: number;
  /** Longest PAX / GNU long-name payload accepted (default 1 MiB). */
  maxMetaSize?: number;
}

function readCString(buf: Uint8Array, off: number, len: number): string {
  let end = off;
  while (end < off + len && buf[end] !== 0) end++;
  return dec.decode(buf.subarray(off, end));
}

function readNumber(buf: Uint8Array, off: number, len: number): number {
  if (buf[off] & 0x80) {
    // GNU base-256: big-endian binary after the marker bit.
    let n = buf[off] & 0x7f;
    for (let i = 1; i < len; i++) n = n * 256 + buf[off + i];
    return n;
  }
  const s = readCString(buf, off, len).trim();
  if (s === '') return 0;
  if (!/^[0-7]+$/.test(s)) throw new UserError(`tar: invalid numeric field ${JSON.stringify(s)}`);
  return parseInt(s, 8);
}

function isZeroBlock(buf: Uint8Array, off: number): boolean {
  for (let i = off; i < off + BLOCK; i++) if (buf[i] !== 0) return false;
  return true;
}

function checksumOk(buf: Uint8Array, off: number): boolean {
  const want = readNumber(buf, off + 148, 8);
  let u = 0;
  let s = 0;
  for (let i = 0; i < BLOCK; i++) {
    const b = i >= 148 && i < 156 ? 0x20 : buf[off + i];
    u += b;
    s += b > 127 ? b - 256 : b;
  }
  return want === u || want === s;
}

function parsePax(data: Uint8Array): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 0;
  while (i < data.length) {
    let sp = i;
    while (sp < data.length && data[sp] !== 0x20) sp++;
    const len = parseInt(dec.decode(data.subarray(i, sp)), 10);
    if (!Number.isFinite(len) || len <= 0 || i + len > data.length) throw new UserError('tar: malformed PAX header');
    const rec = dec.decode(data.subarray(sp + 1, i + len - 1));
    const eq = rec.indexOf('=');
    if (eq > 0) out[rec.slice(0, eq)] = rec.slice(eq + 1);
    i += len;
  }
  return out;
}

/**
 * Go's path.Clean for a tar member name made relative: returns undefined for names that are
 * the root itself or escape it.
 */
export function cleanTarName(raw: string): string | undefined {
  const segs: string[] = [];
  for (const s of raw.split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') {
      if (segs.length === 0) return undefined;
      segs.pop();
      continue;
    }
    segs.push(s);
  }
  if (segs.length === 0) return undefined;
  // A name that climbed out and back in (a/../../b) was refused above; `a/../b` is b.
  return segs.join('/');
}

function escapes(raw: string): boolean {
  let depth = 0;
  for (const s of raw.split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') {
      if (--depth < 0) return true;
    } else depth++;
  }
  return false;
}

/**
 * Reads an uncompressed tar archive held in memory. Entries that would land outside the root
 * (absolute names are made relative first) and the root entry itself are skipped.
 */
export function readTar(bytes: Uint8Array, opts: ReadTarOptions = {}): TarEntry[] {
  const maxEntries = opts.maxEntries ?? 100_000;
  const maxMeta = opts.maxMetaSize ?? 1 << 20;
  const out: TarEntry[] = [];
  let off = 0;
  let longName: string | undefined;
  let longLink: string | undefined;
  let pax: Record<string, string> = {};
  let headers = 0;
  while (off + BLOCK <= bytes.length) {
    if (isZeroBlock(bytes, off)) break;
    if (++headers > maxEntries * 3) throw new UserError(`tar: more than ${maxEntries} entries`);
    if (!checksumOk(bytes, off)) throw new UserError(`tar: bad header checksum at offset ${off}`);
    const typeflag = String.fromCharCode(bytes[off + 156] || 0x30);
    let size = readNumber(bytes, off + 124, 12);
    if (pax.size !== undefined && /^\d+$/.test(pax.size)) size = parseInt(pax.size, 10);
    const dataStart = off + BLOCK;
    const dataEnd = dataStart + size;
    if (dataEnd > bytes.length) throw new UserError(`tar: truncated archive (entry at offset ${off} needs ${size} bytes)`);
    const data = bytes.subarray(dataStart, dataEnd);
    off = dataEnd + pad(size);
    if (typeflag === 'x' || typeflag === 'L' || typeflag === 'K') {
      if (size > maxMeta) throw new UserError(`tar: extended header larger than ${maxMeta} bytes`);
      if (typeflag === 'x') pax = { ...pax, ...parsePax(data) };
      else if (typeflag === 'L') longName = readCString(data, 0, data.length);
      else longLink = readCString(data, 0, data.length);
      continue;
    }
    if (typeflag === 'g') continue; // global PAX: nothing we use
    const magic = readCString(bytes, dataStart - BLOCK + 257, 6);
    let name = readCString(bytes, dataStart - BLOCK, 100);
    if (magic.startsWith('ustar')) {
      const prefix = readCString(bytes, dataStart - BLOCK + 345, 155);
      if (prefix) name = `${prefix}/${name}`;
    }
    name = pax.path ?? longName ?? name;
    const linkname = pax.linkpath ?? longLink ?? readCString(bytes, dataStart - BLOCK + 157, 100);
    const mode = readNumber(bytes, dataStart - BLOCK + 100, 8) & 0o7777;
    pax = {};
    longName = undefined;
    longLink = undefined;
    const type: TarEntryType =
      typeflag === '0' || typeflag === '7' ? 'file' : typeflag === '5' ? 'dir' : typeflag === '2' ? 'symlink' : typeflag === '1' ? 'hardlink' : 'other';
    if (escapes(name)) continue;
    const clean = cleanTarName(name);
    if (clean === undefined) continue;
    if (out.length >= maxEntries) throw new UserError(`tar: more than ${maxEntries} entries`);
    out.push({ name: clean, type, mode, data: type === 'file' ? data : new Uint8Array(0), ...(type === 'symlink' || type === 'hardlink' ? { linkname } : {}) });
  }
  return out;
}
