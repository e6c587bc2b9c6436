/**
 * Before a built image is handed to a NodePool, the controller reads it back from the push
 * registry (the tenant's, so through the network guard, bounded in size and time) and checks
 * that it is what the build was asked to make:
 *  - the manifest exists at exactly the digest the build reported (sha256 of the bytes received),
 *  - it is for the NodePool's architecture (an index entry for linux/<arch>, and the config's
 *    `os`/`architecture`),
 *  - its config lists one well-formed `rootfs.diff_ids` entry per manifest layer,
 *  - it was built FROM the base OS image for that architecture: its first layers are the base's
 *    layers, by compressed digest when the push kept the base's blobs (the cheap path), otherwise
 *    by content: the config's `rootfs.diff_ids` begin with the base config's. A push to another
 *    registry than the base's recompresses the base's layers, so their compressed digests differ
 *    while their uncompressed digests do not. A `--squash` build merges the base's layers into
 *    its own and is refused: nothing in it shows the base any more.
 * Only manifests and configs are read, never a layer. docs/design/image-verification.md has the
 * evidence and what a forged `diff_ids` claim can and cannot do.
 * The answer is a typed result with a reason, never an exception for what the registry did.
 */
import { createHash } from 'node:crypto';
import { UserError } from 'pkogen/model';
import type { Credential } from 'pkogen/oci';
import { ConnectPolicy, ConnectPolicyError, Deadline, formatMs, NetworkError } from 'pkogen/oci';
import { type ImageConfigFile, isDigest, MAX_CONFIG_BYTES, MAX_MANIFEST_BYTES, ParsedManifest, parseConfig, parseManifestOrIndex } from 'pkogen/oci';
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
  /** Its layers do not begin with the base image's (by compressed digest, nor by diff_ids): another base, or a squashed build. */
  | 'NotFromBase'
  /** Its manifest's layer count is not its config's `rootfs.diff_ids` count. */
  | 'LayerCountMismatch'
  /** The base image could not be read (its registry, not the push registry). */
  | 'BaseUnavailable'
  /** A manifest or config larger than allowed, or more layers than allowed. */
  | 'TooLarge'
  | 'Timeout'
  /** The network guard refused the destination. */
  | 'Refused'
  | 'Unauthorized'
  | 'Unreachable'
  /** Not a manifest we can read. */
  | 'Invalid';

export type ImageCheckResult =
  | {
      ok: true;
      reason: 'Verified';
      message: string;
      manifestDigest: string;
      layers: number;
      baseLayers: number;
      /** How the base was found in it: the same compressed blobs, or the same content (diff_ids) in recompressed blobs. */
      baseMatch: 'blobs' | 'diffIds';
    }
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
  /** Largest manifest or index read (default 1 MiB), largest config (default 4 MiB); never above pkogen/oci's ceilings. */
  maxManifestBytes?: number;
  maxConfigBytes?: number;
  /** Most layers an image (built or base) may have (default and ceiling MAX_LAYERS). */
  maxLayers?: number;
  /** The whole check's deadline (default 60 s). */
  timeoutMs?: number;
  clock?: ResolverClock;
}

/**
 * Most layers read from a manifest: containers/storage's overlay driver mounts no more than 500
 * lower layers (storage/drivers/overlay/overlay.go `maxDepth`), so a node could not run an image
 * with more, and the check reads no longer list a registry sends.
 */
export const MAX_LAYERS = 500;

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
  const maxManifest = Math.min(o.maxManifestBytes ?? 1 << 20, MAX_MANIFEST_BYTES);
  const maxConfig = Math.min(o.maxConfigBytes ?? 4 << 20, MAX_CONFIG_BYTES);
  const maxLayers = Math.min(o.maxLayers ?? MAX_LAYERS, MAX_LAYERS);
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
  const work = check(o, push, base, { maxConfig, maxLayers }).catch((e: unknown): ImageCheckResult => {
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

/**
 * The config's `rootfs.diff_ids`: each a `sha256:<64 hex>` digest (what containers/storage
 * computes for a layer). `what` names the image in the message; `tooMany` bounds the list before
 * it is walked.
 */
function diffIds(cfg: ImageConfigFile, what: string, tooMany: number): { ok: true; ids: string[] } | { ok: false; message: string } {
  const rootfs = cfg.rootfs as unknown;
  const ids = rootfs && typeof rootfs === 'object' ? (rootfs as { diff_ids?: unknown }).diff_ids : undefined;
  if (!Array.isArray(ids)) return { ok: false, message: `${what}: its config has no rootfs.diff_ids list` };
  if (ids.length > tooMany) return { ok: false, message: `${what}: its config lists ${ids.length} diff_ids, more than the ${tooMany} layers allowed` };
  const bad = ids.findIndex((d) => typeof d !== 'string' || !isDigest(d));
  if (bad >= 0) return { ok: false, message: `${what}: its config's rootfs.diff_ids[${bad}] is not a sha256:<64 hex> digest` };
  return { ok: true, ids: ids as string[] };
}

const WHY_NOT_SQUASH = 'an image built FROM another base, or with --squash (which merges the base\'s layers into its own: refused, since nothing would show the base any more)';

async function check(o: VerifyBuiltImageOptions, push: RegistryClient, base: RegistryClient, lim: { maxConfig: number; maxLayers: number }): Promise<ImageCheckResult> {
  const ref = digestRef(o.pushRef, 'the pushed image');
  const baseRef = digestRef(o.baseImageRef, 'the base image');
  const name = formatReference(ref);
  const baseName = formatReference(baseRef);
  const arch = o.arch;
  const { maxConfig, maxLayers } = lim;

  const got = await push.manifestBytes(ref);
  if (!got) return fail('NotFound', `${name}: the registry has no manifest with this digest`);
  // The client checks this already; the hand-off depends on it, so it is checked here too.
  const sum = `sha256:${createHash('sha256').update(got.bytes).digest('hex')}`;
  if (sum !== ref.digest) return fail('DigestMismatch', `${name}: the registry answered bytes that hash to ${sum}`);
  let parsed = parseManifestOrIndex(got.bytes, got.contentType, name);
  let manifestRef = ref;
  if (parsed.kind === 'index') {
    const entry = parsed.m.manifests.find((d) => d.platform?.os === 'linux' && d.platform.architecture === arch);
    if (!entry) {
      const has = parsed.m.manifests
        .slice(0, 20)
        .map((d) => (d.platform ? `${d.platform.os}/${d.platform.architecture}` : 'unknown'))
        .join(', ');
      return fail('WrongArchitecture', `${name}: the image index has no linux/${arch} entry (it has ${has || 'none'}${parsed.m.manifests.length > 20 ? ', …' : ''})`);
    }
    manifestRef = { registry: ref.registry, repository: ref.repository, digest: entry.digest };
    const inner = await push.manifestBytes(manifestRef);
    if (!inner) return fail('NotFound', `${name}: its linux/${arch} manifest ${entry.digest} is missing`);
    parsed = parseManifestOrIndex(inner.bytes, inner.contentType, formatReference(manifestRef));
    if (parsed.kind !== 'manifest') return fail('Invalid', `${name}: its linux/${arch} entry is an index, not an image`);
  }
  const m: ParsedManifest = parsed.m;
  if (m.layers.length > maxLayers) return fail('TooLarge', `${name}: it has ${m.layers.length} layers, more than the ${maxLayers} allowed`);
  if (m.config.size > maxConfig) return fail('TooLarge', `${name}: its config is ${m.config.size} bytes, more than the ${maxConfig} allowed`);
  const cfg = parseConfig((await push.blob(manifestRef, m.config)).bytes, `${name} config`);
  if (cfg.os !== 'linux' || cfg.architecture !== arch)
    return fail('WrongArchitecture', `${name}: it is a ${String(cfg.os).slice(0, 40)}/${String(cfg.architecture).slice(0, 40)} image; the NodePool is linux/${arch}`);
  // A node applies layer k as diff_ids[k] claims (containers/storage refuses a layer whose content
  // is not its claim); a list of another length, or an empty one, leaves layers unclaimed.
  const built = diffIds(cfg, name, maxLayers);
  if (!built.ok) return fail('Invalid', built.message);
  if (built.ids.length !== m.layers.length)
    return fail('LayerCountMismatch', `${name}: its manifest has ${m.layers.length} layers but its config lists ${built.ids.length} diff_ids`);

  let b: ParsedManifest;
  let baseConfig: ImageConfigFile | undefined;
  try {
    b = (await base.manifest(baseRef, arch)).m;
    if (b.layers.length > maxLayers) return fail('TooLarge', `the base image ${baseName}: it has ${b.layers.length} layers, more than the ${maxLayers} allowed`);
    const blobsMatch = m.layers.length >= b.layers.length && b.layers.every((l, k) => l.digest === m.layers[k].digest);
    if (blobsMatch) return verified(name, ref.digest!, arch, m, b, 'blobs');
    if (b.config.size > maxConfig) return fail('TooLarge', `the base image ${baseName}: its config is ${b.config.size} bytes, more than the ${maxConfig} allowed`);
    baseConfig = parseConfig((await base.blob(baseRef, b.config)).bytes, `${baseName} config`);
  } catch (e) {
    if (e instanceof UserError || e instanceof NetworkError) throw new Verdict(classify(e, true, `reading the base image ${baseName}`));
    throw e;
  }
  const from = diffIds(baseConfig, `the base image ${baseName}`, maxLayers);
  if (!from.ok) return fail('BaseUnavailable', from.message);
  if (from.ids.length !== b.layers.length)
    return fail('BaseUnavailable', `the base image ${baseName}: its manifest has ${b.layers.length} layers but its config lists ${from.ids.length} diff_ids`);
  if (built.ids.length < from.ids.length)
    return fail('NotFromBase', `${name}: it has ${built.ids.length} layer${built.ids.length === 1 ? '' : 's'}, fewer than the ${from.ids.length} of its base image ${baseName}: ${WHY_NOT_SQUASH}`);
  const i = from.ids.findIndex((d, k) => d !== built.ids[k]);
  if (i >= 0)
    return fail('NotFromBase', `${name}: the content of its layer ${i} is ${built.ids[i]}, the base image ${baseName} has ${from.ids[i]} there (rootfs.diff_ids): ${WHY_NOT_SQUASH}`);
  return verified(name, ref.digest!, arch, m, b, 'diffIds');
}

function verified(name: string, digest: string, arch: string, m: ParsedManifest, b: ParsedManifest, baseMatch: 'blobs' | 'diffIds'): ImageCheckResult {
  const how = baseMatch === 'blobs' ? '' : ' (the same content in recompressed blobs)';
  return { ok: true, reason: 'Verified', message: `${name}: linux/${arch}, ${m.layers.length} layers on its base's ${b.layers.length}${how}`, manifestDigest: digest, layers: m.layers.length, baseLayers: b.layers.length, baseMatch };
}
