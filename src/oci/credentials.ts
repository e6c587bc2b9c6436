/**
 * Registry credentials from the files container tools share, in the order the brief and
 * containers-auth.json(5) give: $REGISTRY_AUTH_FILE, $XDG_RUNTIME_DIR/containers/auth.json,
 * then Docker's config.json ($DOCKER_CONFIG or ~/.docker), including credential helpers.
 * Keys match exactly (after dropping scheme and a `/v1/`-style suffix): no substring matching,
 * so credentials for one host are never sent to another. Secrets are never put in messages.
 */
import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { Location, UserError } from '../core/errors.js';
import { DOCKER_HUB } from './reference.js';

export interface Credential {
  username?: string;
  password?: string;
  /** OAuth2 refresh token (`identitytoken`, or a helper's Secret with Username `<token>`). */
  identityToken?: string;
  /** A bearer token used as is (`registrytoken`). */
  registryToken?: string;
}

export interface AuthFileLocations {
  env: Record<string, string | undefined>;
  home: string;
}

export function authFiles(loc: AuthFileLocations): string[] {
  const files: string[] = [];
  if (loc.env.REGISTRY_AUTH_FILE) files.push(loc.env.REGISTRY_AUTH_FILE);
  if (loc.env.XDG_RUNTIME_DIR) files.push(path.join(loc.env.XDG_RUNTIME_DIR, 'containers', 'auth.json'));
  files.push(path.join(loc.env.DOCKER_CONFIG || path.join(loc.home, '.docker'), 'config.json'));
  return files;
}

/** One `auths` entry of an auth.json / config.json / `.dockerconfigjson`. */
export interface AuthEntry {
  auth?: string;
  identitytoken?: string;
  registrytoken?: string;
  username?: string;
  password?: string;
}

interface AuthFile {
  auths?: Record<string, AuthEntry>;
  credHelpers?: Record<string, string>;
  credsStore?: string;
}

/**
 * An auth key as containers/image compares it: a URL key (`https://host/v1/`) means the whole
 * registry, other keys may name a namespace or repository; Docker Hub's aliases are one host.
 */
export function normalizeAuthKey(k: string): string {
  let s = k.replace(/^https?:\/\//, '');
  if (s !== k) s = s.split('/')[0];
  s = s.replace(/\/v[12]\/?$/, '').replace(/\/+$/, '');
  if (s === 'docker.io' || s === 'registry-1.docker.io') s = DOCKER_HUB;
  return s;
}

/** The keys that may hold credentials for `registry/repository`, most specific first. */
export function authKeysFor(registry: string, repository: string): string[] {
  const host = normalizeAuthKey(registry);
  const keys: string[] = [];
  const segs = repository.split('/');
  for (let i = segs.length; i > 0; i--) keys.push(`${host}/${segs.slice(0, i).join('/')}`);
  keys.push(host);
  return keys;
}

export type HelperRunner = (helper: string, serverUrl: string) => Promise<{ Username: string; Secret: string } | undefined>;

/** Runs `docker-credential-<helper> get`; "not found" is no credential, anything else an error. */
export function execHelper(env: Record<string, string | undefined>): HelperRunner {
  return (helper, serverUrl) =>
    new Promise((resolve, reject) => {
      if (!/^[A-Za-z0-9_.-]+$/.test(helper)) return reject(new UserError(`invalid credential helper name ${JSON.stringify(helper)}`));
      const child = execFile(`docker-credential-${helper}`, ['get'], { env: env as NodeJS.ProcessEnv, timeout: 30_000, maxBuffer: 1 << 20 }, (err, stdout) => {
        if (err) {
          if (/credentials not found/i.test(String(stdout))) return resolve(undefined);
          const code = (err as NodeJS.ErrnoException).code;
          return reject(new UserError(code === 'ENOENT' ? `credential helper docker-credential-${helper} not found in PATH` : `credential helper docker-credential-${helper} failed for ${serverUrl}`));
        }
        try {
          const j = JSON.parse(String(stdout));
          resolve({ Username: String(j.Username ?? ''), Secret: String(j.Secret ?? '') });
        } catch {
          reject(new UserError(`credential helper docker-credential-${helper} returned invalid JSON for ${serverUrl}`));
        }
      });
      child.stdin?.end(serverUrl);
    });
}

async function readAuthFile(file: string): Promise<AuthFile | undefined> {
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    return JSON.parse(text) as AuthFile;
  } catch {
    throw new UserError('credentials file is not valid JSON', { file });
  }
}

/** The credential an `auths` entry holds; a malformed one is an error at `where` (never showing its value). */
export function credentialFromAuthEntry(e: AuthEntry, where: Location): Credential | undefined {
  if (e.identitytoken) return { identityToken: e.identitytoken };
  if (e.registrytoken) return { registryToken: e.registrytoken };
  if (e.auth) {
    const dec = Buffer.from(e.auth, 'base64').toString('utf8');
    const i = dec.indexOf(':');
    if (i < 0) throw new UserError('credentials entry "auth" is not base64 of user:password', where);
    return { username: dec.slice(0, i), password: dec.slice(i + 1) };
  }
  if (e.username !== undefined && e.password !== undefined) return { username: e.username, password: e.password };
  return undefined;
}

/**
 * The credential for `registry/repository`: the first file that knows the repository (podman
 * allows per-namespace entries) or the registry wins.
 */
export async function lookupCredential(
  registry: string,
  repository: string,
  files: string[],
  runHelper: HelperRunner,
): Promise<Credential | undefined> {
  const host = normalizeAuthKey(registry);
  const keys = authKeysFor(registry, repository);
  const serverUrl = host === DOCKER_HUB ? 'https://index.docker.io/v1/' : host;
  for (const file of files) {
    const af = await readAuthFile(file);
    if (!af) continue;
    const helpers = new Map(Object.entries(af.credHelpers ?? {}).map(([k, v]) => [normalizeAuthKey(k), v]));
    const auths = new Map(Object.entries(af.auths ?? {}).map(([k, v]) => [normalizeAuthKey(k), v]));
    for (const k of keys) {
      const helper = helpers.get(k);
      if (helper) {
        const r = await runHelper(helper, serverUrl);
        if (r) return r.Username === '<token>' ? { identityToken: r.Secret } : { username: r.Username, password: r.Secret };
      }
      const e = auths.get(k);
      if (e) {
        const c = credentialFromAuthEntry(e, { file });
        if (c) return c;
      }
    }
    if (af.credsStore) {
      const r = await runHelper(af.credsStore, serverUrl);
      if (r) return r.Username === '<token>' ? { identityToken: r.Secret } : { username: r.Username, password: r.Secret };
    }
  }
  return undefined;
}
