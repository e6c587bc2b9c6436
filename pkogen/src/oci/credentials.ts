/**
 * Registry credentials from the files container tools share, in the order the brief and
 * containers-auth.json(5) give: $REGISTRY_AUTH_FILE, $XDG_RUNTIME_DIR/containers/auth.json,
 * then Docker's config.json ($DOCKER_CONFIG or ~/.docker), including credential helpers.
 * Keys match exactly (after dropping scheme and a `/v1/`-style suffix): no substring matching,
 * so credentials for one host are never sent to another. Secrets are never put in messages.
 */
import type { ChildProcess } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { nodeChildProcess } from '../core/builtins.js';
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

export interface HelperOptions {
  /** Longest a helper may run, in ms (default 30 s); may be a function of the command's deadline. */
  timeoutMs?: number | (() => number);
}

/** Most stdout a helper may print: a credential is a few KiB at most. */
const HELPER_MAX_OUTPUT = 1 << 20;

/**
 * Runs `docker-credential-<helper> get` as docker-credential-helpers' client.Get does: the server
 * URL on stdin, JSON `{Username, Secret}` on stdout, "credentials not found" meaning none. A helper
 * that exits early (EPIPE on our write), hangs (killed after the timeout, even if a child of it
 * holds its pipes open), prints too much or prints garbage gives a UserError naming the helper.
 * Nothing the helper prints ever reaches a message: it may hold the secret.
 */
export function execHelper(env: Record<string, string | undefined>, opts: HelperOptions = {}): HelperRunner {
  return (helper, serverUrl) =>
    new Promise((resolve, reject) => {
      const name = `docker-credential-${helper}`;
      if (!/^[A-Za-z0-9_.-]+$/.test(helper)) return reject(new UserError(`invalid credential helper name ${JSON.stringify(helper.slice(0, 100))}`));
      const t = typeof opts.timeoutMs === 'function' ? opts.timeoutMs() : (opts.timeoutMs ?? 30_000);
      const timeoutMs = Math.max(1, Math.floor(t));
      let child: ChildProcess;
      try {
        // stderr is dropped, as docker's client.Get (cmd.Output) does: it could hold a secret.
        // node:child_process loads only when a credential helper runs.
        const { spawn } = nodeChildProcess();
        child = spawn(name, ['get'], { env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'ignore'] });
      } catch {
        return reject(new UserError(`credential helper ${name} could not be started`));
      }
      let settled = false;
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = (err: UserError | undefined, value?: { Username: string; Secret: string }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (child.exitCode === null && child.signalCode === null) kill();
        child.stdout?.destroy();
        child.stdin?.destroy();
        if (err) reject(err);
        else resolve(value);
      };
      const kill = () => child.kill('SIGKILL');
      const timer = setTimeout(() => finish(new UserError(`credential helper ${name} did not answer within ${timeoutMs} ms for ${serverUrl}; killed it`)), timeoutMs);
      child.on('error', (e) => {
        const code = (e as NodeJS.ErrnoException).code;
        finish(new UserError(code === 'ENOENT' ? `credential helper ${name} not found in PATH` : `credential helper ${name} could not be run (${code ?? 'error'})`));
      });
      // A helper that exits without reading stdin makes our write fail with EPIPE: its exit
      // status and output decide, not the write.
      child.stdin!.on('error', () => {});
      child.stdout!.on('data', (c: Buffer) => {
        size += c.length;
        if (size > HELPER_MAX_OUTPUT) return finish(new UserError(`credential helper ${name} printed more than ${HELPER_MAX_OUTPUT} bytes for ${serverUrl}`));
        chunks.push(c);
      });
      const decide = (code: number | null, signal: NodeJS.Signals | null) => {
        const out = Buffer.concat(chunks).toString('utf8');
        if (code !== 0) {
          if (/credentials not found/i.test(out)) return finish(undefined, undefined);
          return finish(new UserError(`credential helper ${name} failed for ${serverUrl} (${signal ? `killed by ${signal}` : `exit status ${code}`})`));
        }
        let j: unknown;
        try {
          j = JSON.parse(out);
        } catch {
          return finish(new UserError(`credential helper ${name} printed something that is not JSON for ${serverUrl}`));
        }
        const o = j as Record<string, unknown>;
        if (typeof j !== 'object' || j === null || Array.isArray(j) || typeof o.Secret !== 'string' || (o.Username !== undefined && typeof o.Username !== 'string'))
          return finish(new UserError(`credential helper ${name} printed JSON without string Username and Secret for ${serverUrl}`));
        finish(undefined, { Username: (o.Username as string | undefined) ?? '', Secret: o.Secret });
      };
      // Decide when the helper has exited and its stdout ended; a grandchild that keeps stdout
      // open after the helper exited gets a short grace, not the whole timeout.
      let exited: [number | null, NodeJS.Signals | null] | undefined;
      let ended = false;
      child.stdout!.on('end', () => {
        ended = true;
        if (exited) decide(...exited);
      });
      child.on('exit', (code, signal) => {
        exited = [code, signal];
        if (ended) decide(code, signal);
        else setTimeout(() => decide(code, signal), 200).unref();
      });
      child.stdin!.end(serverUrl);
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
