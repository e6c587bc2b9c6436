/** sprig v3.3.0 encoding, path, url and `fail` functions. */
import type { FuncMap, GoMap, GoValue } from '../types.js';
import { goPathClean } from '../../core/paths.js';
import { argMap, argString, arity, FuncError, strval } from './value.js';

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function b32enc(data: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of data) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += '=';
  return out;
}

function b32dec(s: string): Buffer {
  const clean = s.replace(/=+$/, '');
  if (s.length % 8 !== 0) throw new FuncError(`illegal base32 data at input byte ${Math.floor(s.length / 8) * 8}`);
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (let i = 0; i < clean.length; i++) {
    const idx = B32.indexOf(clean[i]);
    if (idx < 0) throw new FuncError(`illegal base32 data at input byte ${i}`);
    value = (value << 5) | idx;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** base64.StdEncoding.DecodeString: strict padding, error text like Go's. */
export function b64decStrict(s: string): Buffer {
  const t = s.replace(/[\r\n]/g, '');
  const m = /[^A-Za-z0-9+/=]/.exec(t);
  if (m) throw new FuncError(`illegal base64 data at input byte ${m.index}`);
  if (t.length % 4 !== 0) throw new FuncError(`illegal base64 data at input byte ${t.length - (t.length % 4)}`);
  const pad = t.indexOf('=');
  if (pad >= 0 && pad < t.length - 2) throw new FuncError(`illegal base64 data at input byte ${pad}`);
  return Buffer.from(t, 'base64');
}

/** Go's path.Clean. */
export const pathClean = goPathClean;

function pathBase(p: string): string {
  if (p === '') return '.';
  const t = p.replace(/\/+$/, '');
  if (t === '') return '/';
  return t.slice(t.lastIndexOf('/') + 1);
}

function pathDir(p: string): string {
  const i = p.lastIndexOf('/');
  return pathClean(p.slice(0, i + 1));
}

function pathExt(p: string): string {
  for (let i = p.length - 1; i >= 0 && p[i] !== '/'; i--) if (p[i] === '.') return p.slice(i);
  return '';
}

function urlParse(s: string): GoMap {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    // relative references: keep sprig's shape with what we can tell
    const m = /^([^?#]*)(\?[^#]*)?(#.*)?$/.exec(s)!;
    return { scheme: '', host: '', hostname: '', path: m[1], query: (m[2] ?? '').slice(1), opaque: '', fragment: (m[3] ?? '').slice(1), userinfo: '' };
  }
  const userinfo = u.username ? (u.password ? `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}` : decodeURIComponent(u.username)) : '';
  return {
    scheme: u.protocol.replace(/:$/, ''),
    host: u.host,
    hostname: u.hostname,
    path: decodeURIComponent(u.pathname),
    query: u.search.replace(/^\?/, ''),
    opaque: '',
    fragment: decodeURIComponent(u.hash.replace(/^#/, '')),
    userinfo,
  };
}

function urlJoin(d: GoMap): string {
  const g = (k: string) => (d[k] === undefined || d[k] === null ? '' : strval(d[k]));
  let out = '';
  const scheme = g('scheme');
  if (scheme) out += scheme + ':';
  if (g('opaque')) out += g('opaque');
  else {
    if (scheme || g('host') || g('userinfo')) {
      out += '//';
      if (g('userinfo')) out += g('userinfo') + '@';
      out += g('host');
    }
    const p = g('path');
    if (p && !p.startsWith('/') && g('host')) out += '/';
    out += encodeURI(p);
  }
  if (g('query')) out += '?' + g('query');
  if (g('fragment')) out += '#' + encodeURIComponent(g('fragment'));
  return out;
}

const s1 = (fn: string, f: (s: string) => GoValue) => (...a: GoValue[]) => {
  arity(fn, a, 1);
  return f(argString(fn, a[0], 0));
};

// The last value encoded and its encoding: a package encodes the same CA bundle in every render
// (simulate renders thousands), and re-encoding it was visible in simulate's profile.
let lastB64: { s: string; out: string } | undefined;
function b64enc(s: string): string {
  if (lastB64?.s !== s) lastB64 = { s, out: Buffer.from(s, 'utf8').toString('base64') };
  return lastB64.out;
}

export const miscFuncs: FuncMap = {
  b64enc: s1('b64enc', b64enc),
  // sprig returns the error text itself as the result
  b64dec: s1('b64dec', (s) => {
    try {
      return b64decStrict(s).toString('utf8');
    } catch (e) {
      return (e as Error).message;
    }
  }),
  b32enc: s1('b32enc', (s) => b32enc(Buffer.from(s, 'utf8'))),
  b32dec: s1('b32dec', (s) => {
    try {
      return b32dec(s).toString('utf8');
    } catch (e) {
      return (e as Error).message;
    }
  }),
  base: s1('base', pathBase),
  dir: s1('dir', pathDir),
  clean: s1('clean', pathClean),
  ext: s1('ext', pathExt),
  isAbs: s1('isAbs', (s) => s.startsWith('/')),
  urlParse: s1('urlParse', urlParse),
  urlJoin: (...a) => {
    arity('urlJoin', a, 1);
    return urlJoin(argMap('urlJoin', a[0]));
  },
  fail: (...a) => {
    arity('fail', a, 1);
    throw new FuncError(argString('fail', a[0], 0));
  },
};
