/**
 * Before a built image is handed to a NodePool, the controller reads it back from the push
 * registry (the tenant's, so through the network guard, bounded in size and time) and checks
 * that it is what the build was asked to make:
 *  - the manifest exists at exactly the digest the build reported (sha256 of the bytes received),
 *  - it is for the NodePool's architecture (an index entry for linux/<arch>, and the config's
 *    `os`/`architecture`),
 *  - its layers begin with the base OS image's layers for that architecture (it was built FROM it).
 * The answer is a typed result with a reason, never an exception for what the registry did.
 */
import { createHash } from 'node:crypto';
import { UserError } from 'pkogen/model';
import type { Credential } from 'pkogen/oci';
import { ConnectPolicy, ConnectPolicyError, Deadline, formatMs, NetworkError } from 'pkogen/oci';
import { ParsedManifest, parseConfig, parseManifestOrIndex } from 'pkogen/oci';
import { formatReference, parseReference, Reference } from 'pkogen/oci';
import { RegistryClient, RegistryClientOptions } from 'pkogen/oci';
import { NetGuard } from './net-guard.js';
import type { ResolverClock } from './release.js';

export type ImageCheckReason =
  | 'Verified'
  /** The push spec or base reference is not `repo@sha256:…`. */
  | 'InvalidReference'
  /** The registry has no manifest at that digest. */
  | 'NotFound'
  /** The bytes received do not hash to the digest. */
  | 'DigestMismatch'
  | 'WrongArchitecture'
  /** Its layers do not begin with the base image's. */
  | 'NotFromBase'
  /** The base image could not be read (its registry, not the push registry). */
  | 'BaseUnavailable'
  /** A manifest or config larger than allowed. */
  | 'TooLarge'
  | 'Timeout'
  /** The network guard refused the destination. */
  | 'Refused'
  | 'Unauthorized'
  | 'Unreachable'
  /** Not a manifest we can read. */
  | 'Invalid';

export type ImageCheckResult =
  | { ok: true; reason: 'Verified'; message: string; manifestDigest: string; layers: number; baseLayers: number }
  | { ok: false; reason: Exclude<ImageCheckReason, 'Verified'>; message: string };

export interface VerifyBuiltImageOptions extends Pick<RegistryClientOptions, 'insecure' | 'ca' | 'attempts' | 'backoffMs' | 'sleep' | 'connectTimeoutMs' | 'stallTimeoutMs' | 'transport'> {
  /** `registry/repo@sha256:…`: where the build pushed, by the digest it reported. */
  pushRef: string;
  /** The NodePool's `spec.arch`. */
  arch: string;
  /** `registry/repo@sha256:…`: the base OS image the build was FROM (from the release). */
  baseImageRef: string;
  /** For the push registry (the push Secret). */
  credentials?: (registry: string, repository: string) => Promise<Credential | undefined>;
  /** For the base image's registry (the HCP pull secret); default `credentials`. */
  baseCredentials?: (registry: string, repository: string) => Promise<Credential | undefined>;
  /** Default: a NetGuard with no allow-list. */
  connectPolicy?: ConnectPolicy;
  /** Largest manifest or index read (default 1 MiB), largest config (default 4 MiB). */
  maxManifestBytes?: number;
  maxConfigBytes?: number;
  /** The whole check's deadline (default 60 s). */
  timeoutMs?: number;
  clock?: ResolverClock;
}

const realClock: ResolverClock = { now: () => Date.now(), setTimeout: (f, ms) => setTimeout(f, ms), clearTimeout: (t) => clearTimeout(t as NodeJS.Timeout) };

class Verdict extends Error {
  constructor(readonly result: Extract<ImageCheckResult, { ok: false }>) {
    super(result.message);
  }
}

const fail = (reason: Extract<ImageCheckResult, { ok: false }>['reason'], message: string): never => {
  throw new Verdict({ ok: false, reason, message });
};

/** What a registry failure means, from the error and its causes. */
function classify(e: unknown, baseSide: boolean, what: string): Extract<ImageCheckResult, { ok: false }> {
  const msg = e instanceof Error ? e.message : String(e);
  let c: unknown = e;
  for (let i = 0; c && i < 5; i++, c = (c as { cause?: unknown }).cause) {
    if (c instanceof ConnectPolicyError) return { ok: false, reason: 'Refused', message: `${what}: ${msg}` };
    if (c instanceof NetworkError && c.code === 'ETOOBIG') return { ok: false, reason: 'TooLarge', message: `${what}: ${msg}` };
    if (c instanceof NetworkError && c.code === 'EDEADLINE') return { ok: false, reason: 'Timeout', message: `${what}: ${msg}` };
  }
  if (baseSide) return { ok: false, reason: 'BaseUnavailable', message: `${what}: ${msg}` };
  if (/digest mismatch|hashes to/.test(msg)) return { ok: false, reason: 'DigestMismatch', message: `${what}: ${msg}` };
  if (/\(HTTP 40[13]\)|authentication required|token request denied/.test(msg)) return { ok: false, reason: 'Unauthorized', message: `${what}: ${msg}` };
  if (/invalid image/.test(msg)) return { ok: false, reason: 'Invalid', message: `${what}: ${msg}` };
  return { ok: false, reason: 'Unreachable', message: `${what}: ${msg}` };
}

function digestRef(s: string, field: string): Reference {
  let r: Reference;
  try {
    r = parseReference(s);
  } catch (e) {
    return fail('InvalidReference', `${field} is not an image reference: ${(e as Error).message}`);
  }
  if (!r.digest) fail('InvalidReference', `${field} ${formatReference(r)} is not by digest (repo@sha256:…)`);
  return r;
}

/** Reads and checks the built image; see the module comment. */
export async function verifyBuiltImage(o: VerifyBuiltImageOptions): Promise<ImageCheckResult> {
  const clock = o.clock ?? realClock;
  const timeoutMs = o.timeoutMs ?? 60_000;
  const maxManifest = o.maxManifestBytes ?? 1 << 20;
  const maxConfig = o.maxConfigBytes ?? 4 << 20;
  const deadline = new Deadline(timeoutMs, clock.now(), () => clock.now());
  const common = {
    insecure: o.insecure,
    ca: o.ca,
    attempts: o.attempts ?? 3,
    backoffMs: o.backoffMs,
    sleep: o.sleep,
    connectTimeoutMs: o.connectTimeoutMs,
    stallTimeoutMs: o.stallTimeoutMs,
    transport: o.transport,
    deadline,
    connectPolicy: o.connectPolicy ?? new NetGuard(),
    maxManifestBytes: maxManifest,
    maxBlobBytes: maxConfig,
  };
  const push = new RegistryClient({ ...common, credentials: o.credentials });
  const base = new RegistryClient({ ...common, credentials: o.baseCredentials ?? o.credentials });
  let timer: unknown;
  const expired = new Promise<ImageCheckResult>((resolve) => {
    timer = clock.setTimeout(() => {
      push.close();
      base.close();
      resolve({ ok: false, reason: 'Timeout', message: `checking ${o.pushRef.slice(0, 300)}: no answer within ${formatMs(timeoutMs)}` });
    }, timeoutMs);
  });
  const work = check(o, push, base, maxConfig).catch((e: unknown): ImageCheckResult => {
    if (e instanceof Verdict) return e.result;
    if (e instanceof UserError || e instanceof NetworkError) return classify(e, false, `checking ${o.pushRef.slice(0, 300)}`);
    throw e;
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clock.clearTimeout(timer);
    push.close();
    base.close();
  }
}

async function check(o: VerifyBuiltImageOptions, push: RegistryClient, base: RegistryClient, maxConfig: number): Promise<ImageCheckResult> {
  const ref = digestRef(o.pushRef, 'the pushed image');
  const baseRef = digestRef(o.baseImageRef, 'the base image');
  const name = formatReference(ref);
  const arch = o.arch;

  const got = await push.manifestBytes(ref);
  if (!got) return fail('NotFound', `${name}: the registry has no manifest with this digest`);
  // The client checks this already; the hand-off depends on it, so it is checked here too.
  const sum = `sha256:${createHash('sha256').update(got.bytes).digest('hex')}`;
  if (sum !== ref.digest) return fail('DigestMismatch', `${name}: the registry answered bytes that hash to ${sum}`);
  let parsed = parseManifestOrIndex(got.bytes, got.contentType, name);
  let m: ParsedManifest;
  let manifestRef = ref;
  if (parsed.kind === 'index') {
    const entry = parsed.m.manifests.find((d) => d.platform?.os === 'linux' && d.platform.architecture === arch);
    if (!entry) {
      const has = parsed.m.manifests.map((d) => (d.platform ? `${d.platform.os}/${d.platform.architecture}` : 'unknown')).join(', ');
      return fail('WrongArchitecture', `${name}: the image index has no linux/${arch} entry (it has ${has || 'none'})`);
    }
    manifestRef = { registry: ref.registry, repository: ref.repository, digest: entry.digest };
    const inner = await push.manifestBytes(manifestRef);
    if (!inner) return fail('NotFound', `${name}: its linux/${arch} manifest ${entry.digest} is missing`);
    parsed = parseManifestOrIndex(inner.bytes, inner.contentType, formatReference(manifestRef));
    if (parsed.kind !== 'manifest') return fail('Invalid', `${name}: its linux/${arch} entry is an index, not an image`);
  }
  m = parsed.m;
  if (m.config.size > maxConfig) return fail('TooLarge', `${name}: its config is ${m.config.size} bytes, more than the ${maxConfig} allowed`);
  const cfg = parseConfig((await push.blob(manifestRef, m.config)).bytes, `${name} config`);
  if (cfg.os !== 'linux' || cfg.architecture !== arch)
    return fail('WrongArchitecture', `${name}: it is a ${String(cfg.os)}/${String(cfg.architecture)} image; the NodePool is linux/${arch}`);

  let b: ParsedManifest;
  try {
    b = (await base.manifest(baseRef, arch)).m;
  } catch (e) {
    if (e instanceof UserError || e instanceof NetworkError) throw new Verdict(classify(e, true, `reading the base image ${formatReference(baseRef)}`));
    throw e;
  }
  if (m.layers.length < b.layers.length) return fail('NotFromBase', `${name}: it has ${m.layers.length} layers, fewer than the ${b.layers.length} of its base image ${formatReference(baseRef)}`);
  const i = b.layers.findIndex((l, k) => l.digest !== m.layers[k].digest);
  if (i >= 0) return fail('NotFromBase', `${name}: layer ${i} is ${m.layers[i].digest}, the base image ${formatReference(baseRef)} has ${b.layers[i].digest} there`);
  return { ok: true, reason: 'Verified', message: `${name}: linux/${arch}, ${m.layers.length} layers on its base's ${b.layers.length}`, manifestDigest: ref.digest!, layers: m.layers.length, baseLayers: b.layers.length };
}
