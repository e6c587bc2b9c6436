/**
 * A NodePool's inputs from its token Secrets in the HCP namespace, read the way HyperShift
 * writes them (docs/design/controller.md "NodePool inputs and release images" has the evidence):
 * name `token-<nodepool>-<config hash>`, annotations `hypershift.openshift.io/ignition-config`
 * and `hypershift.openshift.io/nodePool: <namespace>/<name>`, data `release` (the NodePool's
 * release pullspec) and `config` (the NodePool's concatenated machine config, gzip then base64,
 * or only gzip from a HyperShift operator talking to a control-plane operator older than 4.12).
 * Secrets are plain JSON objects as the API returns them: every data value is base64 once more.
 */
import { gunzipSync } from 'node:zlib';
import { Location, UserError } from 'pkogen/model';
import { isGzip } from 'pkogen/oci';
import { parseReference, ReferenceError } from 'pkogen/oci';

export const TOKEN_SECRET_PREFIX = 'token-';
export const IGNITION_CONFIG_ANNOTATION = 'hypershift.openshift.io/ignition-config';
export const NODEPOOL_ANNOTATION = 'hypershift.openshift.io/nodePool';
export const TOKEN_GENERATION_TIME_ANNOTATION = 'hypershift.openshift.io/last-token-generation-time';
export const TOKEN_EXPIRATION_ANNOTATION = 'hypershift.openshift.io/ignition-token-expiration-timestamp';
export const UPGRADE_TYPE_ANNOTATION = 'hypershift.openshift.io/node-pool-upgrade-type';

/** Largest decoded (and decompressed) `config` accepted: a gzip bomb is refused, not inflated. */
export const MAX_CONFIG_BYTES = 64 << 20;
/** Largest base64 text accepted for one data value (a whole Secret is at most 1 MiB). */
const MAX_DATA_CHARS = 4 << 20;

export interface SecretObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    annotations?: Record<string, string>;
    creationTimestamp?: string;
    deletionTimestamp?: string;
  };
  type?: string;
  data?: Record<string, string>;
}

export interface TokenSecretInputs {
  nodePoolNamespace: string;
  nodePoolName: string;
  secretName: string;
  secretNamespace?: string;
  /** `data.release`: the NodePool's `spec.release.image`. */
  releaseImage: string;
  /** `data.release-version`, when present. */
  releaseVersion?: string;
  /** The decoded machine config text (YAML documents); empty when the NodePool has none. */
  config: string;
  /** `hypershift.openshift.io/last-token-generation-time` (changes when the token rotates). */
  generatedAt?: string;
  /** `hypershift.openshift.io/ignition-token-expiration-timestamp`: set once the Secret is outdated. */
  expiresAt?: string;
  upgradeType?: string;
  /** `data.os-stream`, when present and not empty. */
  osStream?: string;
}

function secretWhere(s: SecretObject | undefined): string {
  const md = s?.metadata;
  const name = typeof md?.name === 'string' ? md.name : '<unnamed>';
  return `Secret ${typeof md?.namespace === 'string' && md.namespace ? `${md.namespace}/` : ''}${name}`;
}

/** True when the object is one of HyperShift's token Secrets (other Secrets are not our input). */
export function isTokenSecret(s: unknown): boolean {
  const md = (s as SecretObject | undefined)?.metadata;
  if (!md || typeof md.name !== 'string' || !md.name.startsWith(TOKEN_SECRET_PREFIX)) return false;
  const a = md.annotations;
  return !!a && typeof a === 'object' && Object.prototype.hasOwnProperty.call(a, IGNITION_CONFIG_ANNOTATION);
}

const BASE64_RE = /^[A-Za-z0-9+/]*={0,2}$/;

/** Strict standard base64 (what the API server and Go's StdEncoding write). */
function decodeBase64(text: string, loc: Location, what: string): Buffer {
  if (text.length > MAX_DATA_CHARS) throw new UserError(`${what} is larger than ${MAX_DATA_CHARS} characters`, loc);
  const t = text.replace(/[\r\n]/g, '');
  if (t.length % 4 !== 0 || !BASE64_RE.test(t)) throw new UserError(`${what} is not valid base64`, loc);
  return Buffer.from(t, 'base64');
}

function dataBytes(s: SecretObject, key: string, where: string, required: true): Buffer;
function dataBytes(s: SecretObject, key: string, where: string, required: false): Buffer | undefined;
function dataBytes(s: SecretObject, key: string, where: string, required: boolean): Buffer | undefined {
  const loc: Location = { file: where, path: `data.${key}` };
  const v = s.data?.[key];
  if (v === undefined) {
    if (required) throw new UserError(`token Secret has no data key "${key}"`, loc);
    return undefined;
  }
  if (typeof v !== 'string') throw new UserError('Secret data value is not a string', loc);
  return decodeBase64(v, loc, 'Secret data value');
}

function utf8(b: Uint8Array, loc: Location, what: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(b);
  } catch {
    throw new UserError(`${what} is not UTF-8 text`, loc);
  }
}

function gunzipConfig(b: Uint8Array, loc: Location): Uint8Array {
  try {
    return new Uint8Array(gunzipSync(b, { maxOutputLength: MAX_CONFIG_BYTES }));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || /maxOutputLength|larger than/i.test((e as Error).message))
      throw new UserError(`config decompresses to more than ${MAX_CONFIG_BYTES} bytes; refusing it`, loc);
    throw new UserError('config is not valid gzip', loc);
  }
}

/**
 * The machine config from `data.config`: after the API's base64, HyperShift's own base64 of the
 * gzip stream (current), or the gzip stream itself (NodePools served by a pre-4.12 CPO).
 */
export function decodeTokenConfig(raw: Uint8Array, loc: Location): string {
  if (raw.length === 0) return ''; // HyperShift writes nothing for an empty config
  let gz: Uint8Array = raw;
  if (!isGzip(raw)) {
    const inner = utf8(raw, loc, 'config');
    gz = decodeBase64(inner.trim(), loc, 'config (gzip, base64-encoded)');
    if (!isGzip(gz)) throw new UserError('config is not gzip data after base64 decoding', loc);
  }
  return utf8(gunzipConfig(gz, loc), loc, 'decompressed config');
}

function plainString(v: unknown, loc: Location, what: string): string {
  if (typeof v !== 'string' || v === '') throw new UserError(`${what} is missing or empty`, loc);
  return v;
}

/** Reads one token Secret; every problem is a UserError naming the Secret and the field. */
export function parseTokenSecret(secret: unknown): TokenSecretInputs {
  const s = secret as SecretObject;
  if (!s || typeof s !== 'object' || Array.isArray(s)) throw new UserError('token Secret is not a JSON object');
  const where = secretWhere(s);
  const md = s.metadata;
  if (!md || typeof md !== 'object') throw new UserError('Secret has no metadata', { file: where });
  const name = plainString(md.name, { file: where, path: 'metadata.name' }, 'metadata.name');
  if (!name.startsWith(TOKEN_SECRET_PREFIX)) throw new UserError(`not a token Secret: the name does not start with "${TOKEN_SECRET_PREFIX}"`, { file: where, path: 'metadata.name' });
  if (s.data !== undefined && (!s.data || typeof s.data !== 'object' || Array.isArray(s.data)))
    throw new UserError('Secret data is not an object', { file: where, path: 'data' });
  const ann = md.annotations ?? {};
  if (typeof ann !== 'object' || Array.isArray(ann)) throw new UserError('metadata.annotations is not an object', { file: where, path: 'metadata.annotations' });
  const annLoc = (k: string): Location => ({ file: where, path: `metadata.annotations[${JSON.stringify(k)}]` });
  if (!Object.prototype.hasOwnProperty.call(ann, IGNITION_CONFIG_ANNOTATION)) throw new UserError('token Secret has no ignition-config annotation', annLoc(IGNITION_CONFIG_ANNOTATION));
  const np = plainString(ann[NODEPOOL_ANNOTATION], annLoc(NODEPOOL_ANNOTATION), 'NodePool annotation');
  // client.ObjectKeyFromObject(nodePool).String(): "<namespace>/<name>".
  const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(np);
  if (!m) throw new UserError(`NodePool annotation ${JSON.stringify(np)} is not "<namespace>/<name>"`, annLoc(NODEPOOL_ANNOTATION));
  const nodePoolNamespace = m[1];
  const nodePoolName = m[3];

  const relLoc: Location = { file: where, path: 'data.release' };
  const releaseImage = utf8(dataBytes(s, 'release', where, true), relLoc, 'release').trim();
  if (!releaseImage) throw new UserError('release is empty', relLoc);
  try {
    parseReference(releaseImage);
  } catch (e) {
    if (e instanceof ReferenceError) throw new UserError(`release ${JSON.stringify(releaseImage)} is not an image reference: ${e.message}`, relLoc);
    throw e;
  }
  const cfgLoc: Location = { file: where, path: 'data.config' };
  const config = decodeTokenConfig(dataBytes(s, 'config', where, true), cfgLoc);

  const out: TokenSecretInputs = { nodePoolNamespace, nodePoolName, secretName: name, releaseImage, config };
  if (typeof md.namespace === 'string' && md.namespace) out.secretNamespace = md.namespace;
  const version = dataBytes(s, 'release-version', where, false);
  if (version?.length) out.releaseVersion = utf8(version, { file: where, path: 'data.release-version' }, 'release-version');
  const stream = dataBytes(s, 'os-stream', where, false);
  if (stream?.length) out.osStream = utf8(stream, { file: where, path: 'data.os-stream' }, 'os-stream');
  const gen = ann[TOKEN_GENERATION_TIME_ANNOTATION];
  if (typeof gen === 'string' && gen) out.generatedAt = gen;
  const exp = ann[TOKEN_EXPIRATION_ANNOTATION];
  if (typeof exp === 'string') out.expiresAt = exp;
  const up = ann[UPGRADE_TYPE_ANNOTATION];
  if (typeof up === 'string' && up) out.upgradeType = up;
  return out;
}

export interface NodePoolInputsProblem {
  /** `<namespace>/<name>` when known. */
  nodePool?: string;
  secretName?: string;
  message: string;
}

export interface NodePoolInputsResult {
  /** One entry per NodePool with a usable current token Secret, keyed `<namespace>/<name>`, in key order. */
  nodePools: Map<string, TokenSecretInputs>;
  /** NodePools whose current token Secret could not be read, or that have none yet. */
  problems: NodePoolInputsProblem[];
}

interface Candidate {
  secret: SecretObject;
  name: string;
  created: string;
}

/**
 * The current token Secret per NodePool. HyperShift keeps exactly one token Secret per NodePool
 * without the expiration annotation: the one named after the current config hash (its secret
 * janitor and the NodePool controller's cleanup annotate every other one before deleting it,
 * and the controller removes the annotation from the active one). While a change is in flight
 * two may briefly lack it; then the newest by creationTimestamp (then name) wins, because the
 * controller creates the new hash's Secret after it computed the new config. Secrets being
 * deleted are skipped. A malformed current Secret is a problem for its NodePool only; an older
 * Secret is never used in its place (its config is stale).
 */
export function currentNodePoolInputs(secrets: unknown[]): NodePoolInputsResult {
  const groups = new Map<string, { active: Candidate[]; expiring: number }>();
  const problems: NodePoolInputsProblem[] = [];
  for (const raw of secrets) {
    if (!isTokenSecret(raw)) continue;
    const s = raw as SecretObject;
    const md = s.metadata!;
    if (md.deletionTimestamp) continue;
    const np = md.annotations?.[NODEPOOL_ANNOTATION];
    if (typeof np !== 'string' || !np.includes('/')) {
      problems.push({ secretName: md.name, message: describe(() => parseTokenSecret(s)) ?? 'token Secret has no NodePool annotation' });
      continue;
    }
    const g = groups.get(np) ?? { active: [], expiring: 0 };
    groups.set(np, g);
    if (Object.prototype.hasOwnProperty.call(md.annotations, TOKEN_EXPIRATION_ANNOTATION)) g.expiring++;
    else g.active.push({ secret: s, name: md.name!, created: typeof md.creationTimestamp === 'string' ? md.creationTimestamp : '' });
  }
  const nodePools = new Map<string, TokenSecretInputs>();
  for (const key of [...groups.keys()].sort()) {
    const g = groups.get(key)!;
    if (g.active.length === 0) {
      problems.push({ nodePool: key, message: `NodePool ${key} has no active token Secret (${g.expiring} expiring); HyperShift has not written the current one yet` });
      continue;
    }
    // RFC 3339 UTC timestamps from the API server sort as strings.
    g.active.sort((a, b) => (a.created === b.created ? (a.name < b.name ? 1 : a.name > b.name ? -1 : 0) : a.created < b.created ? 1 : -1));
    const chosen = g.active[0];
    try {
      nodePools.set(key, parseTokenSecret(chosen.secret));
    } catch (e) {
      if (!(e instanceof UserError)) throw e;
      problems.push({ nodePool: key, secretName: chosen.name, message: e.describe() });
    }
  }
  return { nodePools, problems };
}

function describe(f: () => unknown): string | undefined {
  try {
    f();
    return undefined;
  } catch (e) {
    if (e instanceof UserError) return e.describe();
    throw e;
  }
}
