/** WWW-Authenticate challenges and the bearer-token exchange (distribution token spec). */
import { UserError } from '../core/errors.js';
import type { Credential } from './credentials.js';
import type { Transport } from './http.js';

export interface Challenge {
  scheme: 'basic' | 'bearer';
  params: Record<string, string>;
}

/** Parses `Bearer realm="…",service="…",scope="…"` (quoted or token values). */
export function parseChallenge(header: string | string[] | undefined): Challenge | undefined {
  const h = Array.isArray(header) ? header.find((x) => /^\s*bearer/i.test(x)) ?? header[0] : header;
  if (!h) return undefined;
  const m = /^\s*(\w+)\s*(.*)$/s.exec(h);
  if (!m) return undefined;
  const scheme = m[1].toLowerCase();
  if (scheme !== 'basic' && scheme !== 'bearer') return undefined;
  const params: Record<string, string> = {};
  const re = /([A-Za-z_]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g;
  let p: RegExpExecArray | null;
  while ((p = re.exec(m[2]))) params[p[1].toLowerCase()] = p[2] !== undefined ? p[2].replace(/\\(.)/g, '$1') : p[3];
  return { scheme, params };
}

export function basicHeader(c: Credential): string | undefined {
  if (c.username === undefined || c.password === undefined) return undefined;
  return `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`;
}

/**
 * Exchanges credentials for a bearer token for `scopes`. Anonymous when there are none. An
 * identity token uses the OAuth2 refresh_token grant; registries answer `token` or `access_token`.
 */
export async function fetchBearerToken(send: Transport, ch: Challenge, scopes: string[], cred: Credential | undefined, registry: string, allowHttp: boolean): Promise<string> {
  if (cred?.registryToken) return cred.registryToken;
  const realm = ch.params.realm;
  if (!realm) throw new UserError(`registry ${registry} sent a bearer challenge without a realm`);
  let url: URL;
  try {
    url = new URL(realm);
  } catch {
    throw new UserError(`registry ${registry} sent an invalid token realm`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UserError(`registry ${registry} sent a token realm that is not http(s)`);
  // Credentials never travel in clear text unless the user allowed HTTP (loopback or --insecure).
  if (url.protocol === 'http:' && !allowHttp) throw new UserError(`registry ${registry} sent a plain-HTTP token realm ${url.host}; refusing (use --insecure to allow)`);
  let res;
  if (cred?.identityToken) {
    const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: cred.identityToken, client_id: 'pkogen', scope: scopes.join(' ') });
    if (ch.params.service) form.set('service', ch.params.service);
    res = await send({ method: 'POST', url, headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new TextEncoder().encode(form.toString()), maxBody: 1 << 20 });
  } else {
    if (ch.params.service) url.searchParams.set('service', ch.params.service);
    for (const s of scopes) url.searchParams.append('scope', s);
    const headers: Record<string, string> = {};
    const b = cred && basicHeader(cred);
    if (b) headers.Authorization = b;
    res = await send({ method: 'GET', url, headers, maxBody: 1 << 20 });
  }
  if (res.status === 401 || res.status === 403) throw new UserError(`registry ${registry}: token request denied (HTTP ${res.status}); check your credentials`);
  if (res.status >= 500 || res.status === 429) throw Object.assign(new Error(`token endpoint answered HTTP ${res.status}`), { retryable: true });
  if (res.status !== 200) throw new UserError(`registry ${registry}: token request failed (HTTP ${res.status})`);
  let j: { token?: string; access_token?: string };
  try {
    j = JSON.parse(new TextDecoder().decode(res.body));
  } catch {
    throw new UserError(`registry ${registry}: token endpoint returned invalid JSON`);
  }
  const t = j.token ?? j.access_token;
  if (!t) throw new UserError(`registry ${registry}: token endpoint returned no token`);
  return t;
}
