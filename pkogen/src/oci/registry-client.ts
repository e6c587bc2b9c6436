/**
 * A Distribution API client: push an Image (blobs first, verified, manifest PUT by tag last, so
 * a failed push never leaves a tag on a partial image), pull by tag or digest with digest
 * verification, resolve a tag to its digest. Auth: anonymous, Basic, Bearer challenge.
 * HTTPS by default; plain HTTP only for loopback hosts or with `insecure`. Retries with
 * exponential backoff on 429, 5xx and dropped connections, a bounded number of times.
 */
import { UserError } from '../core/errors.js';
import { basicHeader, Challenge, fetchBearerToken, parseChallenge } from './auth.js';
import type { Credential } from './credentials.js';
import { sha256Digest } from './digest.js';
import { nodeCrypto } from '../core/builtins.js';
import { type BodySink, ClosableTransport, type ConnectPolicy, Deadline, HttpResponse, NetworkError, nodeTransport, type StreamBody } from './http.js';
import { Blob, Descriptor, Image, invalidImage, ParsedManifest, parseConfig, parseManifestOrIndex, selectPlatform, verifyDigest } from './image.js';
import { ByteBudget, MAX_BLOB_BYTES, MAX_CONFIG_BYTES, MAX_IMAGE_BYTES } from './limits.js';
import { MANIFEST_ACCEPT } from './media-types.js';
import { apiHost, formatReference, isLoopbackRegistry, Reference } from './reference.js';

export interface RegistryClientOptions {
  /** Allow plain HTTP and unverified TLS for any host (like `--insecure`). */
  insecure?: boolean;
  credentials?: (registry: string, repository: string) => Promise<Credential | undefined>;
  /** Extra CA certificates (PEM) to trust. */
  ca?: string;
  /** Tries per operation, the first included (default 5). */
  attempts?: number;
  /** First backoff delay; doubles per retry, capped at 8 s (default 250 ms). */
  backoffMs?: number;
  transport?: ClosableTransport;
  sleep?: (ms: number) => Promise<void>;
  /** Told about each retry (one line, no secrets). */
  onRetry?: (message: string) => void;
  /** Largest blob accepted on pull (default 512 MiB). */
  maxBlobBytes?: number;
  /** Largest sum of an image's blobs accepted on pull, checked before any is fetched (default 512 MiB). */
  maxImageBytes?: number;
  /** Longest wait for a connection (default 30 s). */
  connectTimeoutMs?: number;
  /** Longest time without a byte from the registry (default 60 s). */
  stallTimeoutMs?: number;
  /** The command's overall deadline: no request runs and no retry starts after it. */
  deadline?: Deadline;
  /** Which hosts and addresses may be connected to, checked at connect time (default: any). */
  connectPolicy?: ConnectPolicy;
  /** Largest manifest or index accepted (default 4 MiB). */
  maxManifestBytes?: number;
}

class RetryableError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

type Repo = Pick<Reference, 'registry' | 'repository'>;

interface Req {
  method: string;
  /** A path under the registry origin, or an absolute URL (upload locations). */
  target: string | URL;
  headers?: Record<string, string>;
  body?: Uint8Array | StreamBody;
  maxBody?: number;
  sink?: BodySink;
}

const TLS_TRUST_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

function registryErrors(res: HttpResponse): string {
  try {
    const j = JSON.parse(new TextDecoder().decode(res.body)) as { errors?: { code?: string; message?: string }[] };
    if (Array.isArray(j.errors) && j.errors.length) return j.errors.map((e) => [e.code, e.message].filter(Boolean).join(': ')).join('; ');
  } catch {
    /* not JSON: fall through */
  }
  return '';
}

function header(res: HttpResponse, name: string): string | undefined {
  const v = res.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

export class RegistryClient {
  private readonly transport: ClosableTransport;
  private readonly origins = new Map<string, string>();
  private readonly pings = new Map<string, Promise<string>>();
  private readonly challenges = new Map<string, Challenge | undefined>();
  private readonly auth = new Map<string, string>();
  private readonly attempts: number;
  private readonly backoffMs: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly opts: RegistryClientOptions = {}) {
    this.transport =
      opts.transport ??
      nodeTransport({
        ca: opts.ca,
        insecureSkipVerify: opts.insecure,
        connectTimeoutMs: opts.connectTimeoutMs,
        stallTimeoutMs: opts.stallTimeoutMs,
        deadline: opts.deadline,
        connectPolicy: opts.connectPolicy,
      });
    this.attempts = Math.max(1, opts.attempts ?? 5);
    this.backoffMs = opts.backoffMs ?? 250;
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  close(): void {
    this.transport.close();
  }

  // ------------------------------------------------------------------ plumbing

  private async retry<T>(what: string, op: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await op();
      } catch (e) {
        const retryable = e instanceof RetryableError || e instanceof NetworkError || (e as { retryable?: boolean }).retryable === true;
        if (!retryable) throw e;
        const msg = (e as Error).message;
        const tries = `${attempt} attempt${attempt === 1 ? '' : 's'}`;
        // Timeouts count as attempts like any network failure; the deadline ends them all.
        // `cause` keeps the last failure (its code tells a timeout from an oversized answer).
        if (e instanceof NetworkError && e.code === 'EDEADLINE') throw Object.assign(new UserError(`${what}: ${msg} (gave up after ${tries})`), { cause: e });
        if (attempt >= this.attempts) throw Object.assign(new UserError(`${what}: ${msg} (gave up after ${tries})`), { cause: e });
        const backoff = Math.min(8000, this.backoffMs * 2 ** (attempt - 1));
        const delay = e instanceof RetryableError && e.retryAfterMs !== undefined ? Math.min(10_000, Math.max(backoff, e.retryAfterMs)) : backoff;
        const dl = this.opts.deadline;
        if (dl && dl.remaining() <= delay)
          throw new UserError(`${what}: ${msg} (gave up after ${tries}: the ${dl.describe()} timeout for this command passes before the next one)`);
        this.opts.onRetry?.(`${what}: ${msg}; retrying in ${delay} ms (attempt ${attempt + 1} of ${this.attempts})`);
        await this.sleep(delay);
      }
    }
  }

  /** Finds the scheme (ping `/v2/`) and remembers the auth challenge. */
  private async origin(registry: string): Promise<string> {
    const known = this.origins.get(registry);
    if (known) return known;
    // One ping per registry: concurrent requests (a push's blobs go up together) wait for it.
    let pending = this.pings.get(registry);
    if (!pending) {
      pending = this.ping(registry).finally(() => this.pings.delete(registry));
      this.pings.set(registry, pending);
    }
    return pending;
  }

  private async ping(registry: string): Promise<string> {
    const host = apiHost(registry);
    // Loopback: HTTP first (no TLS set-up cost for the common local registry; a TLS port
    // answers 400 or hangs up and we move on). --insecure elsewhere: HTTPS first, like ggcr.
    const loopback = isLoopbackRegistry(registry);
    const schemes = loopback ? ['http', 'https'] : this.opts.insecure ? ['https', 'http'] : ['https'];
    let lastErr: Error | undefined;
    for (const [i, scheme] of schemes.entries()) {
      const base = `${scheme}://${host}`;
      const last = i === schemes.length - 1;
      try {
        const res = await this.transport.send({ method: 'GET', url: new URL('/v2/', base), maxBody: 1 << 20 });
        if (scheme === 'http' && !last && res.status === 400 && /https/i.test(new TextDecoder().decode(res.body))) continue;
        if (res.status === 429 || res.status >= 500) throw new RetryableError(`GET ${base}/v2/: HTTP ${res.status}`);
        this.origins.set(registry, base);
        this.challenges.set(registry, res.status === 401 ? parseChallenge(res.headers['www-authenticate']) : undefined);
        return base;
      } catch (e) {
        if (!(e instanceof NetworkError)) throw e;
        if (e.code && TLS_TRUST_CODES.has(e.code))
          throw new UserError(`registry ${registry}: TLS certificate not trusted (${e.code}); add its CA to NODE_EXTRA_CA_CERTS or use --insecure`);
        lastErr = e;
        // Refused connections and timeouts are the same on both schemes: let the caller retry
        // (counted by the retry budget) instead of waiting twice per attempt.
        if (['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNTIMEOUT', 'ESTALL', 'EDEADLINE'].includes(e.code ?? '')) break;
      }
    }
    throw new NetworkError(`cannot reach registry ${registry}: ${lastErr?.message}`, (lastErr as NetworkError | undefined)?.code);
  }

  private scopeKey(registry: string, scopes: string[]): string {
    return `${registry} ${scopes.join(' ')}`;
  }

  private async authenticate(repo: Repo, scopes: string[], res: HttpResponse): Promise<void> {
    const ch = parseChallenge(res.headers['www-authenticate']) ?? this.challenges.get(repo.registry);
    if (!ch) throw new UserError(`registry ${repo.registry}: unauthorized (HTTP 401) without an authentication challenge`);
    this.challenges.set(repo.registry, ch);
    const cred = await this.opts.credentials?.(repo.registry, repo.repository);
    if (ch.scheme === 'basic') {
      const b = cred && basicHeader(cred);
      if (!b) throw new UserError(`registry ${repo.registry}: authentication required; log in (podman login / docker login) or set REGISTRY_AUTH_FILE`);
      this.auth.set(repo.registry, b);
      return;
    }
    const all = [...scopes];
    if (ch.params.scope) for (const s of ch.params.scope.split(' ')) if (!all.includes(s)) all.push(s);
    const allowHttp = this.opts.insecure === true || (this.origins.get(repo.registry)?.startsWith('http:') ?? false);
    const token = await fetchBearerToken(this.transport.send, ch, all, cred, repo.registry, allowHttp);
    this.auth.set(this.scopeKey(repo.registry, scopes), `Bearer ${token}`);
  }

  private authFor(registry: string, scopes: string[]): string | undefined {
    return this.auth.get(this.scopeKey(registry, scopes)) ?? (this.challenges.get(registry)?.scheme === 'basic' ? this.auth.get(registry) : undefined);
  }

  /** One request with auth (one re-authentication on 401). Network failures propagate. */
  private async request(repo: Repo, scopes: string[], req: Req): Promise<HttpResponse> {
    const origin = await this.origin(repo.registry);
    const url = typeof req.target === 'string' ? new URL(req.target, origin) : req.target;
    for (let authTry = 0; ; authTry++) {
      const headers: Record<string, string> = { ...(req.headers ?? {}) };
      const a = this.authFor(repo.registry, scopes);
      // Credentials only ever go to the registry's own origin (upload locations may point elsewhere).
      if (a && url.origin === origin) headers.Authorization = a;
      const res = await this.transport.send({ method: req.method, url, headers, body: req.body, maxBody: req.maxBody, sink: req.sink });
      if (res.status === 401 && authTry === 0 && url.origin === origin) {
        await this.authenticate(repo, scopes, res);
        continue;
      }
      return res;
    }
  }

  /** Turns unexpected statuses into errors: retryable ones for 429/5xx, user errors otherwise. */
  private check(res: HttpResponse, ok: number[], what: string): HttpResponse {
    if (ok.includes(res.status)) return res;
    const detail = registryErrors(res);
    if (res.status === 429 || res.status >= 500) {
      const ra = Number(header(res, 'retry-after'));
      throw new RetryableError(`HTTP ${res.status}${detail ? ` (${detail})` : ''}`, Number.isFinite(ra) && ra >= 0 ? ra * 1000 : undefined);
    }
    if (res.status === 401) throw new UserError(`${what}: unauthorized (HTTP 401)${detail ? `: ${detail}` : ''}; check your registry credentials`);
    if (res.status === 403) throw new UserError(`${what}: denied (HTTP 403)${detail ? `: ${detail}` : ''}`);
    throw new UserError(`${what}: HTTP ${res.status}${detail ? `: ${detail}` : ''}`);
  }

  private static pushScopes(repo: Repo, from?: Repo): string[] {
    const s = [`repository:${repo.repository}:pull,push`];
    if (from) s.push(`repository:${from.repository}:pull`);
    return s;
  }

  private static pullScopes(repo: Repo): string[] {
    return [`repository:${repo.repository}:pull`];
  }

  // ------------------------------------------------------------------ push

  /** HEAD the blob; a present blob with another size or digest is an error, not a skip. */
  private async blobExists(repo: Repo, blob: Blob, scopes: string[]): Promise<boolean> {
    const res = await this.request(repo, scopes, { method: 'HEAD', target: `/v2/${repo.repository}/blobs/${blob.digest}` });
    if (res.status === 404) return false;
    this.check(res, [200], `checking blob ${blob.digest} in ${repo.registry}/${repo.repository}`);
    const len = header(res, 'content-length');
    const dig = header(res, 'docker-content-digest');
    if ((len !== undefined && Number(len) !== blob.size) || (dig !== undefined && dig !== blob.digest))
      throw new UserError(`registry ${repo.registry} reports blob ${blob.digest} with size ${len ?? '?'} and digest ${dig ?? '?'}; expected size ${blob.size}`);
    return true;
  }

  /**
   * Makes the blob present in the repository. Returns how, and whether the registry confirmed
   * the digest (a HEAD that matched, or a 201 naming our digest); unconfirmed ones are checked
   * again before the manifest goes up.
   */
  private async uploadBlob(repo: Repo, blob: Blob, mountFrom?: Repo): Promise<{ how: 'exists' | 'mounted' | 'uploaded'; confirmed: boolean }> {
    const scopes = RegistryClient.pushScopes(repo, mountFrom);
    if (await this.blobExists(repo, blob, scopes)) return { how: 'exists', confirmed: true };
    const what = `uploading blob ${blob.digest} to ${repo.registry}/${repo.repository}`;
    const start = mountFrom
      ? `/v2/${repo.repository}/blobs/uploads/?mount=${encodeURIComponent(blob.digest)}&from=${encodeURIComponent(mountFrom.repository)}`
      : `/v2/${repo.repository}/blobs/uploads/`;
    const started = this.check(await this.request(repo, scopes, { method: 'POST', target: start }), [201, 202], what);
    if (started.status === 201) return { how: 'mounted', confirmed: header(started, 'docker-content-digest') === blob.digest };
    // Monolithic upload (distribution spec "POST then PUT"): one request carries the bytes.
    const location = this.location(started, repo, what);
    location.searchParams.set('digest', blob.digest);
    // The bytes are streamed (from disk for a layout's layer); an unverified blob is hashed on
    // the way and a mismatch cuts the request before its last bytes (the registry checks the
    // digest too): the push fails before any manifest is written.
    const body = { length: blob.size, chunks: () => blob.chunks() };
    const done = this.check(await this.request(repo, scopes, { method: 'PUT', target: location, headers: { 'Content-Type': 'application/octet-stream' }, body }), [201, 204], what);
    const dig = header(done, 'docker-content-digest');
    if (dig !== undefined && dig !== blob.digest) throw new UserError(`${what}: registry stored digest ${dig}, expected ${blob.digest}`);
    return { how: 'uploaded', confirmed: dig === blob.digest };
  }

  private location(res: HttpResponse, repo: Repo, what: string, base?: URL): URL {
    const loc = header(res, 'location');
    if (!loc) throw new UserError(`${what}: registry sent no upload Location`);
    const origin = this.origins.get(repo.registry)!;
    const url = new URL(loc, base ?? origin);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UserError(`${what}: registry sent an invalid upload Location`);
    return url;
  }

  /**
   * Pushes `image` under every reference (tags; refs may span repositories of one or more
   * registries). Per repository: every blob uploaded (or mounted from a repository pushed
   * earlier in this call) and confirmed by digest, then the manifest PUT per tag.
   */
  async push(image: Image, refs: Reference[]): Promise<{ digest: string; uploaded: number; skipped: number; mounted: number }> {
    const stats = { digest: image.digest, uploaded: 0, skipped: 0, mounted: 0 };
    const groups = new Map<string, { repo: Repo; tags: string[] }>();
    for (const r of refs) {
      if (!r.tag) throw new UserError(`cannot push to a digest reference ${formatReference(r)}; give a tag`);
      const k = `${r.registry}/${r.repository}`;
      const g = groups.get(k) ?? { repo: { registry: r.registry, repository: r.repository }, tags: [] };
      if (!g.tags.includes(r.tag)) g.tags.push(r.tag);
      groups.set(k, g);
    }
    const done: Repo[] = [];
    for (const { repo, tags } of groups.values()) {
      const name = `${repo.registry}/${repo.repository}`;
      const from = done.find((d) => d.registry === repo.registry);
      // Blobs go up concurrently (a package image has two); the manifest waits for all of them.
      // allSettled: one failure waits for the other uploads, so none runs on after the caller
      // has closed the client.
      const settled = await Promise.allSettled(
        image.blobs().map((blob) => this.retry(`uploading blob ${blob.digest} to ${name}`, () => this.uploadBlob(repo, blob, from)).then((r) => ({ blob, ...r }))),
      );
      const failed = settled.find((r) => r.status === 'rejected');
      if (failed) throw (failed as PromiseRejectedResult).reason;
      const results = settled.map((r) => (r as PromiseFulfilledResult<{ blob: Blob; how: 'exists' | 'mounted' | 'uploaded'; confirmed: boolean }>).value);
      const scopes = RegistryClient.pushScopes(repo);
      for (const { blob, how, confirmed } of results) {
        stats[how === 'exists' ? 'skipped' : how]++;
        if (confirmed) continue;
        const present = await this.retry(`verifying blob ${blob.digest} in ${name}`, () => this.blobExists(repo, blob, scopes));
        if (!present) throw new UserError(`registry ${repo.registry} does not have blob ${blob.digest} after upload; no tag was pushed`);
      }
      for (const tag of tags) {
        const what = `pushing manifest ${name}:${tag}`;
        await this.retry(what, async () => {
          const res = this.check(
            await this.request(repo, scopes, { method: 'PUT', target: `/v2/${repo.repository}/manifests/${tag}`, headers: { 'Content-Type': image.manifestMediaType }, body: image.manifest }),
            [200, 201],
            what,
          );
          const dig = header(res, 'docker-content-digest');
          if (dig !== undefined && dig !== image.digest) throw new UserError(`${what}: registry reports digest ${dig}, expected ${image.digest}`);
        });
      }
      done.push(repo);
    }
    return stats;
  }

  // ------------------------------------------------------------------ pull / resolve

  private async getManifest(ref: Reference, target: string): Promise<{ bytes: Uint8Array; contentType?: string }>;
  private async getManifest(ref: Reference, target: string, missingOk: true): Promise<{ bytes: Uint8Array; contentType?: string } | undefined>;
  private async getManifest(ref: Reference, target: string, missingOk = false): Promise<{ bytes: Uint8Array; contentType?: string } | undefined> {
    const repo: Repo = ref;
    const what = `fetching manifest ${ref.registry}/${ref.repository}${target.startsWith('sha256:') ? '@' : ':'}${target}`;
    return this.retry(what, async () => {
      const res = await this.request(repo, RegistryClient.pullScopes(repo), {
        method: 'GET',
        target: `/v2/${repo.repository}/manifests/${target}`,
        headers: { Accept: MANIFEST_ACCEPT },
        maxBody: this.opts.maxManifestBytes ?? 4 << 20,
      });
      if (res.status === 404 && missingOk) return undefined;
      if (res.status === 404) throw new UserError(`${what}: not found`);
      this.check(res, [200], what);
      if (target.startsWith('sha256:')) verifyDigest(res.body, target, what);
      else {
        const dig = header(res, 'docker-content-digest');
        if (dig !== undefined && dig.startsWith('sha256:') && dig !== sha256Digest(res.body))
          throw new UserError(`${what}: registry says digest ${dig} but the manifest hashes to ${sha256Digest(res.body)}`);
      }
      return { bytes: res.body, contentType: header(res, 'content-type') };
    });
  }

  private async getBlob(repo: Repo, d: Descriptor, max = this.opts.maxBlobBytes ?? MAX_BLOB_BYTES): Promise<Blob> {
    const what = `fetching blob ${d.digest} from ${repo.registry}/${repo.repository}`;
    if (d.size > max) throw new UserError(`${what}: ${d.size} bytes is more than the ${max} allowed`);
    return this.retry(what, async () => {
      let res = await this.request(repo, RegistryClient.pullScopes(repo), { method: 'GET', target: `/v2/${repo.repository}/blobs/${d.digest}`, maxBody: d.size });
      // Blob stores redirect to storage; follow without our credentials.
      for (let hops = 0; [301, 302, 303, 307, 308].includes(res.status); hops++) {
        const loc = header(res, 'location');
        if (!loc || hops >= 5) throw new UserError(`${what}: too many or broken redirects`);
        const next = new URL(loc, this.origins.get(repo.registry));
        if (next.protocol !== 'https:' && !(next.protocol === 'http:' && (this.opts.insecure || isLoopbackRegistry(next.host))))
          throw new UserError(`${what}: refusing redirect to ${next.protocol}//${next.host}`);
        res = await this.transport.send({ method: 'GET', url: next, maxBody: d.size });
      }
      if (res.status === 404) throw new UserError(`${what}: not found`);
      this.check(res, [200], what);
      if (res.body.length !== d.size) throw new UserError(`${what}: got ${res.body.length} bytes, manifest says ${d.size}`);
      verifyDigest(res.body, d.digest, what);
      return new Blob(d.mediaType, res.body, d.digest);
    });
  }

  /**
   * The single-platform manifest a reference names, following an index to linux/<architecture>
   * (default amd64). `digest` is what the reference itself names (the index digest for a
   * multi-platform image, like crane.Digest); `manifestDigest` is the platform manifest's.
   */
  async manifest(ref: Reference, architecture = 'amd64'): Promise<{ digest: string; manifestDigest: string; bytes: Uint8Array; m: ParsedManifest; file: string }> {
    let target = ref.digest ?? ref.tag ?? 'latest';
    let digest: string | undefined;
    for (let depth = 0; depth < 3; depth++) {
      const { bytes, contentType } = await this.getManifest(ref, target);
      digest ??= sha256Digest(bytes);
      const file = `${ref.registry}/${ref.repository}${target.startsWith('sha256:') ? '@' : ':'}${target}`;
      const parsed = parseManifestOrIndex(bytes, contentType, file);
      if (parsed.kind === 'index') {
        target = selectPlatform(parsed.m, formatReference(ref), architecture).digest;
        continue;
      }
      return { digest, manifestDigest: sha256Digest(bytes), bytes, m: parsed.m, file };
    }
    throw new UserError(`${formatReference(ref)}: image index nesting too deep`);
  }

  /** One blob of a repository, size and digest verified (bounded by `maxBlobBytes`). */
  blob(repo: Pick<Reference, 'registry' | 'repository'>, d: Descriptor): Promise<Blob> {
    return this.getBlob(repo, d);
  }

  /**
   * The exact bytes of the manifest (or index) a tag or digest names, undefined when the registry
   * says 404. By digest, the bytes are checked against it. At most `maxManifestBytes`.
   */
  manifestBytes(ref: Reference): Promise<{ bytes: Uint8Array; contentType?: string } | undefined> {
    return this.getManifest(ref, ref.digest ?? ref.tag ?? 'latest', true);
  }

  /**
   * Streams one blob (redirects followed without credentials, as `blob`) into a sink made afresh
   * for every attempt by `start`, never holding it whole. The bytes are hashed on the way: when
   * the sink takes them all, size and digest are checked before this resolves (`complete`);
   * when it answers 'stop', the download ends there and the bytes it saw are unverified.
   * `maxBlobBytes` bounds the descriptor's size as for `blob`.
   */
  async streamBlob(repo: Pick<Reference, 'registry' | 'repository'>, d: Descriptor, start: () => BodySink): Promise<{ complete: boolean; bytes: number }> {
    const what = `fetching blob ${d.digest} from ${repo.registry}/${repo.repository}`;
    const max = this.opts.maxBlobBytes ?? MAX_BLOB_BYTES;
    if (d.size > max) throw new UserError(`${what}: ${d.size} bytes is more than the ${max} allowed`);
    return this.retry(what, async () => {
      const inner = start();
      const hash = nodeCrypto().createHash('sha256');
      let n = 0;
      const sink: BodySink = (c) => {
        n += c.length;
        hash.update(c);
        return inner(c);
      };
      const get = (url?: URL) =>
        url
          ? this.transport.send({ method: 'GET', url, maxBody: d.size, sink })
          : this.request(repo, RegistryClient.pullScopes(repo), { method: 'GET', target: `/v2/${repo.repository}/blobs/${d.digest}`, maxBody: d.size, sink });
      let res = await get();
      for (let hops = 0; [301, 302, 303, 307, 308].includes(res.status); hops++) {
        const loc = header(res, 'location');
        if (!loc || hops >= 5) throw new UserError(`${what}: too many or broken redirects`);
        const next = new URL(loc, this.origins.get(repo.registry));
        if (next.protocol !== 'https:' && !(next.protocol === 'http:' && (this.opts.insecure || isLoopbackRegistry(next.host))))
          throw new UserError(`${what}: refusing redirect to ${next.protocol}//${next.host}`);
        res = await get(next);
      }
      if (res.status === 404) throw new UserError(`${what}: not found`);
      this.check(res, [200], what);
      if (res.stopped) return { complete: false, bytes: n };
      if (n !== d.size) throw new UserError(`${what}: got ${n} bytes, manifest says ${d.size}`);
      const got = `sha256:${hash.digest('hex')}`;
      if (got !== d.digest) throw new UserError(`${what}: digest mismatch: expected ${d.digest}, got ${got}`);
      return { complete: true, bytes: n };
    });
  }

  /** Pulls a single-platform image; an index resolves to linux/amd64 (what PKO's crane.Pull does). */
  async pull(ref: Reference): Promise<Image> {
    const { bytes, m, file } = await this.manifest(ref);
    // Sizes first: an image whose blobs together pass the budget is refused before any fetch.
    const max = this.opts.maxImageBytes ?? MAX_IMAGE_BYTES;
    const budget = new ByteBudget(max, `the image's blobs (config and ${m.layers.length} layers)`);
    for (const [i, x] of [m.config, ...m.layers].entries()) budget.take(x.size, (msg) => invalidImage(file, i === 0 ? 'config.size' : `layers[${i - 1}].size`, msg));
    if (m.config.size > MAX_CONFIG_BYTES) throw invalidImage(file, 'config.size', `${m.config.size} bytes is more than the ${MAX_CONFIG_BYTES} allowed for a config`);
    const config = await this.getBlob(ref, m.config);
    const configFile = `${ref.registry}/${ref.repository}@${m.config.digest}`;
    parseConfig(config.bytes, configFile);
    const layers: Blob[] = [];
    for (const l of m.layers) layers.push(await this.getBlob(ref, l));
    return new Image(m.mediaType, bytes, config, layers, configFile);
  }

  /** The digest a tag points at (the index digest for multi-platform images, like crane.Digest). */
  async resolveDigest(ref: Reference): Promise<string> {
    if (ref.digest) return ref.digest;
    const what = `resolving ${formatReference(ref)}`;
    const repo: Repo = ref;
    const head = await this.retry(what, async () => {
      const res = await this.request(repo, RegistryClient.pullScopes(repo), { method: 'HEAD', target: `/v2/${repo.repository}/manifests/${ref.tag}`, headers: { Accept: MANIFEST_ACCEPT } });
      if (res.status === 404) throw new UserError(`${what}: image not found`);
      return this.check(res, [200], what);
    });
    const dig = header(head, 'docker-content-digest');
    if (dig && dig.startsWith('sha256:')) return dig;
    const { bytes } = await this.getManifest(ref, ref.tag ?? 'latest');
    return sha256Digest(bytes);
  }

  /** True when the tag (or digest) exists in the registry. */
  async exists(ref: Reference): Promise<boolean> {
    const what = `checking ${formatReference(ref)}`;
    const repo: Repo = ref;
    return this.retry(what, async () => {
      const res = await this.request(repo, RegistryClient.pullScopes(repo), {
        method: 'HEAD',
        target: `/v2/${repo.repository}/manifests/${ref.digest ?? ref.tag}`,
        headers: { Accept: MANIFEST_ACCEPT },
      });
      if (res.status === 404) return false;
      this.check(res, [200], what);
      return true;
    });
  }
}
