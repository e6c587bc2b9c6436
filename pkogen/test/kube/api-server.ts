/**
 * The project's Kubernetes API test server: an in-memory kube-apiserver look-alike on
 * https://127.0.0.1 that real clients (`@kubernetes/client-node`) talk to. It serves discovery,
 * CRUD, list paging, watch (with bookmarks, resume and 410 Gone), the status subresource, three
 * patch types, finalizers, ownerReference garbage collection, bearer-token authentication,
 * RBAC-like authorization, an audit log and fault injection. What it does not do (admission,
 * validation against schemas, server-side apply, …) is listed in docs/api-test-server.md.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { aggregateText, FieldError, fieldErrorBody, forbidden, invalid, required } from '../../src/pko/field-errors.js';
import { isDNS1123Subdomain, validateLabels } from '../../src/pko/labels.js';
import { emitDocument } from '../../src/yaml/emit.js';
import { makeCa } from '../oci/registry-harness.js';
import { clone, deepEqual, isObj, jsonPatch, mergePatch, rejectStrategicDirectives } from './patch.js';
import { Filter, matches, parseFieldSelector, parseLabelSelector } from './selectors.js';
import { StatusError } from './status.js';

export { jsonPatch, mergePatch } from './patch.js';
export { parseFieldSelector, parseLabelSelector } from './selectors.js';
export { StatusError } from './status.js';

// ---- public types ---------------------------------------------------------------------------

export type KubeObject = Record<string, any> & { apiVersion?: string; kind?: string; metadata?: Record<string, any> };

export interface ResourceType {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  /** The kind has a status subresource: main-resource writes keep the stored status. */
  status: boolean;
  singular?: string;
  shortNames?: string[];
  /** Every version this kind is served at (one storage, no conversion); defaults to [version]. */
  versions?: string[];
  /** Registered from a CustomResourceDefinition (updates then require metadata.resourceVersion). */
  custom?: boolean;
}

/** One RBAC-like rule. Absent `namespaces` means every namespace and the cluster scope. */
export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
  namespaces?: string[];
}

export interface Identity {
  name: string;
  token: string;
  groups?: string[];
  /** Without rules an identity may do everything. */
  rules?: PolicyRule[];
}

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** What a request asked for, in Kubernetes authorizer terms; `code` is the HTTP status answered. */
export interface AuditEntry {
  user: string;
  verb: Verb | string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  /** Set for discovery and /version requests (resource is then ''). */
  nonResourcePath?: string;
  code?: number;
}

export interface Fault {
  verb?: Verb;
  /** Plural, optionally with `/subresource` (`jobs`, `packages/status`). */
  resource?: string;
  namespace?: string;
  /** How many matching requests fail (default 1). */
  count?: number;
  /** HTTP status (default 500). */
  code?: number;
  message?: string;
}

export interface ApiServerOptions {
  identities: Identity[];
  /** Watch events kept for resuming (default 1000). */
  historyLimit?: number;
  /** Bookmark period for watches that allow bookmarks (default 1000 ms). */
  bookmarkIntervalMs?: number;
  /** Timestamps come from here (default: the wall clock). */
  clock?: () => Date;
  /** Seed for generateName suffixes (default 1), so runs are reproducible. */
  seed?: number;
}

export interface ObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

/**
 * One stored change, told to `onWrite` listeners in the order watches see it: the object after
 * (for DELETED: as it was last), the object before (MODIFIED), and the identity whose request made
 * it (undefined for `store` writes, garbage collection and namespace cleanup). Stored objects are
 * replaced, never mutated: the references stay valid; treat them as read-only.
 */
export interface WriteEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubeObject;
  previous?: KubeObject;
  user?: string;
}

/** Direct access without HTTP; writes emit watch events and run finalizers/GC like the API does. */
export interface DirectStore {
  get(ref: ObjectRef): KubeObject | undefined;
  list(apiVersion: string, kind: string, namespace?: string): KubeObject[];
  /** Create or replace (no resourceVersion check; status is written too). Returns the stored copy. */
  put(obj: KubeObject): KubeObject;
  /** Delete like the API (finalizers, GC); `force` removes at once, ignoring finalizers. */
  delete(ref: ObjectRef, opts?: { force?: boolean; propagationPolicy?: 'Background' | 'Foreground' | 'Orphan' }): boolean;
}

// ---- errors ---------------------------------------------------------------------------------

function qualified(t: ResourceType): string {
  return t.group ? `${t.plural}.${t.group}` : t.plural;
}

function notFound(t: ResourceType, name: string): StatusError {
  return new StatusError(404, `${qualified(t)} "${name}" not found`, 'NotFound', { name, group: t.group, kind: t.plural });
}

function conflict(t: ResourceType, name: string, why: string): StatusError {
  return new StatusError(409, `Operation cannot be fulfilled on ${qualified(t)} "${name}": ${why}`, 'Conflict', { name, group: t.group, kind: t.plural });
}

/** 422 Invalid; `byResource` names the kind by its plural, as the generic store does for a missing resourceVersion. */
function invalidObject(t: ResourceType, name: string, errs: FieldError[], byResource = false): StatusError {
  const k = byResource ? t.plural : t.kind;
  const gk = t.group ? `${k}.${t.group}` : k;
  return new StatusError(422, `${gk} "${name}" is invalid: ${aggregateText(errs)}`, 'Invalid', {
    name,
    group: t.group,
    kind: k,
    causes: errs.map((e) => ({ reason: `Field${e.type === 'Required' ? 'ValueRequired' : e.type === 'Forbidden' ? 'ValueForbidden' : 'ValueInvalid'}`, message: fieldErrorBody(e), field: e.field })),
  });
}

const UNKNOWN_RESOURCE = () => new StatusError(404, 'the server could not find the requested resource', 'NotFound', {});
const MODIFIED = 'the object has been modified; please apply your changes to the latest version and try again';

// ---- small pure helpers ---------------------------------------------------------------------

/** Everything the generation counts: the object without metadata (and status with a status subresource). */
function specPart(obj: KubeObject, statusSub: boolean): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return statusSub ? rest : { ...rest, status: _s };
}

function timestamp(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function gv(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

// ---- storage --------------------------------------------------------------------------------

/** One kind's objects, keyed `namespace/name`, with a key order computed once per change of the key set. */
class Collection {
  readonly objects = new Map<string, KubeObject>();
  private sorted: string[] | null = null;
  constructor(readonly type: ResourceType) {}
  keys(): string[] {
    if (!this.sorted) this.sorted = [...this.objects.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return this.sorted;
  }
  set(key: string, obj: KubeObject): void {
    if (!this.objects.has(key)) this.sorted = null;
    this.objects.set(key, obj);
  }
  delete(key: string): void {
    if (this.objects.delete(key)) this.sorted = null;
  }
  /** First index whose key is > `after` (or >= it when `inclusive`), by binary search. */
  indexAfter(after: string, inclusive = false): number {
    const keys = this.keys();
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (keys[mid] < after || (!inclusive && keys[mid] === after)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

interface StoredEvent {
  type: EventType;
  rv: number;
  coll: Collection;
  /** Stored objects are replaced, never mutated, so these references stay valid. */
  obj: KubeObject;
  prev?: KubeObject;
}

interface Watcher {
  coll: Collection;
  version: string;
  filter: Filter;
  res: ServerResponse;
  bookmarks: boolean;
  timer?: NodeJS.Timeout;
  closed: boolean;
}

const key = (ns: string | undefined, name: string) => `${ns ?? ''}/${name}`;

// ---- built-in kinds -------------------------------------------------------------------------

const BUILTIN: ResourceType[] = [
  { group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false, status: true, shortNames: ['ns'] },
  { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true, status: false },
  { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true, status: false, shortNames: ['cm'] },
  { group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true, status: true, shortNames: ['po'] },
  { group: '', version: 'v1', kind: 'Event', plural: 'events', namespaced: true, status: false, shortNames: ['ev'] },
  { group: '', version: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts', namespaced: true, status: false, shortNames: ['sa'] },
  { group: '', version: 'v1', kind: 'Service', plural: 'services', namespaced: true, status: true, shortNames: ['svc'] },
  { group: 'batch', version: 'v1', kind: 'Job', plural: 'jobs', namespaced: true, status: true },
  { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', plural: 'leases', namespaced: true, status: false },
  { group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', namespaced: true, status: true, shortNames: ['deploy'] },
  { group: 'events.k8s.io', version: 'v1', kind: 'Event', plural: 'events', namespaced: true, status: false, shortNames: ['ev'] },
];

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const BODY_LIMIT = 3 * 1024 * 1024;
/** A watch whose client does not read is dropped rather than buffered without bound. */
const WATCH_BUFFER_LIMIT = 16 * 1024 * 1024;
const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

let caCache: { ca: string; cert: string; key: string } | undefined;

/** One throwaway CA and 127.0.0.1 certificate per test process (openssl is slow to make RSA keys). */
function serverCertificate(): { ca: string; cert: string; key: string } {
  if (!caCache) {
    const dir = mkdtempSync(path.join(tmpdir(), 'pkogen-kube-ca-'));
    try {
      const c = makeCa(dir);
      caCache = { ca: readFileSync(c.caFile, 'utf8'), cert: readFileSync(c.cert, 'utf8'), key: readFileSync(c.key, 'utf8') };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return caCache;
}

// ---- the server -----------------------------------------------------------------------------

interface RequestInfo {
  verb: Verb;
  type: ResourceType;
  coll: Collection;
  version: string;
  namespace: string;
  name: string;
  subresource: string;
  query: URLSearchParams;
}

export class ApiTestServer {
  readonly audit: AuditEntry[] = [];
  readonly store: DirectStore;
  url = '';
  port = 0;
  caPem = '';

  private server?: https.Server;
  private readonly sockets = new Set<Socket>();
  /** TLS connections accepted since start (a client that reuses connections opens few). */
  tlsConnections = 0;
  private readonly types: ResourceType[] = [];
  /** `group/plural` → collection (all versions of a kind share one). */
  private readonly colls = new Map<string, Collection>();
  private readonly identities: Identity[];
  private rv = 1;
  private uidCounter = 0;
  private rand: number;
  private readonly history: StoredEvent[] = [];
  /** The newest resourceVersion dropped from the history; watches from before it get 410. */
  private compactedRv = 0;
  private readonly historyLimit: number;
  private readonly bookmarkMs: number;
  private readonly clock: () => Date;
  private readonly watchers = new Set<Watcher>();
  private bookmarkTimer?: NodeJS.Timeout;
  private faults: (Fault & { left: number })[] = [];
  private gcQueue: { uid: string; namespace: string; clusterScoped: boolean }[] = [];
  private gcScheduled = false;
  private idleWaiters: (() => void)[] = [];
  private readonly writeListeners = new Set<(e: WriteEvent) => void>();
  /** The identity whose request is being dispatched (dispatch is synchronous). */
  private writer: string | undefined;

  constructor(opts: ApiServerOptions) {
    const seen = new Set<string>();
    for (const id of opts.identities) {
      if (!id.name || !id.token) throw new Error('api test server: every identity needs a name and a token');
      if (seen.has(id.token)) throw new Error(`api test server: identity ${JSON.stringify(id.name)} reuses another identity's token`);
      seen.add(id.token);
    }
    this.identities = opts.identities.map((i) => ({ ...i }));
    this.historyLimit = opts.historyLimit ?? 1000;
    this.bookmarkMs = opts.bookmarkIntervalMs ?? 1000;
    this.clock = opts.clock ?? (() => new Date());
    this.rand = (opts.seed ?? 1) >>> 0 || 1;
    for (const t of BUILTIN) this.registerType(t);
    this.store = this.makeDirectStore();
  }

  // ---- lifecycle ----

  async start(): Promise<void> {
    const { ca, cert, key: tlsKey } = serverCertificate();
    this.caPem = ca;
    const server = https.createServer({ cert, key: tlsKey }, (req, res) => this.handle(req, res));
    server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    server.on('secureConnection', (s: Socket) => {
      this.tlsConnections++;
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    this.url = `https://127.0.0.1:${this.port}`;
  }

  /** Ends every watch and connection and stops listening. */
  async stop(): Promise<void> {
    this.dropWatches();
    if (this.bookmarkTimer) clearInterval(this.bookmarkTimer);
    this.bookmarkTimer = undefined;
    const s = this.server;
    this.server = undefined;
    if (!s) return;
    const closed = new Promise<void>((resolve) => s.close(() => resolve()));
    s.closeAllConnections();
    for (const sock of this.sockets) sock.destroy();
    await closed;
    for (const w of this.idleWaiters.splice(0)) w();
  }

  // ---- client configuration ----

  private identity(name: string): Identity {
    const id = this.identities.find((i) => i.name === name);
    if (!id) throw new Error(`api test server: no identity named ${JSON.stringify(name)} (known: ${this.identities.map((i) => i.name).join(', ')})`);
    return id;
  }

  /** A kubeconfig (YAML) for `identity`: the server, its CA and the identity's bearer token. */
  kubeconfig(identity: string, opts: { namespace?: string } = {}): string {
    const id = this.identity(identity);
    if (!this.url) throw new Error('api test server: start() it before asking for a kubeconfig');
    return emitDocument({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'pkogen-test', cluster: { server: this.url, 'certificate-authority-data': Buffer.from(this.caPem).toString('base64') } }],
      users: [{ name: id.name, user: { token: id.token } }],
      contexts: [{ name: id.name, context: { cluster: 'pkogen-test', user: id.name, ...(opts.namespace ? { namespace: opts.namespace } : {}) } }],
      'current-context': id.name,
      preferences: {},
    });
  }

  kubeConfig(identity: string, opts: { namespace?: string } = {}): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromString(this.kubeconfig(identity, opts));
    return kc;
  }

  // ---- types ----

  registerType(t: ResourceType): void {
    const versions = t.versions ?? [t.version];
    const collKey = `${t.group}/${t.plural}`;
    const existing = this.colls.get(collKey);
    if (existing && existing.type.kind !== t.kind) throw new Error(`api test server: ${qualified(t)} is already registered for kind ${existing.type.kind}`);
    for (const v of versions) {
      const i = this.types.findIndex((x) => x.group === t.group && x.version === v && x.plural === t.plural);
      const entry: ResourceType = { ...t, version: v, versions };
      if (i >= 0) this.types[i] = entry;
      else this.types.push(entry);
    }
    if (!existing) this.colls.set(collKey, new Collection({ ...t, versions }));
  }

  /** Registers every served version of a CustomResourceDefinition object (apiextensions.k8s.io/v1). */
  registerCRD(crd: KubeObject): ResourceType {
    const where = `CustomResourceDefinition ${JSON.stringify(crd?.metadata?.name ?? '?')}`;
    const spec = crd?.spec;
    if (crd?.kind !== 'CustomResourceDefinition' || !isObj(spec)) throw new Error(`api test server: ${where}: not a CustomResourceDefinition with a spec`);
    const names = spec.names;
    if (typeof spec.group !== 'string' || !spec.group) throw new Error(`api test server: ${where}: spec.group is required`);
    if (!isObj(names) || typeof names.kind !== 'string' || typeof names.plural !== 'string') throw new Error(`api test server: ${where}: spec.names.kind and spec.names.plural are required`);
    if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') throw new Error(`api test server: ${where}: spec.scope must be Namespaced or Cluster, got ${JSON.stringify(spec.scope)}`);
    const served = (Array.isArray(spec.versions) ? spec.versions : []).filter((v: any) => isObj(v) && v.served === true && typeof v.name === 'string');
    if (served.length === 0) throw new Error(`api test server: ${where}: spec.versions has no served version`);
    const storage = served.find((v: any) => v.storage === true) ?? served[0];
    const t: ResourceType = {
      group: spec.group,
      version: storage.name,
      versions: served.map((v: any) => v.name),
      kind: names.kind,
      plural: names.plural,
      singular: typeof names.singular === 'string' ? names.singular : names.kind.toLowerCase(),
      shortNames: Array.isArray(names.shortNames) ? names.shortNames : undefined,
      namespaced: spec.scope === 'Namespaced',
      status: isObj(storage.subresources) && isObj(storage.subresources.status),
      custom: true,
    };
    this.registerType(t);
    return t;
  }

  private typeFor(group: string, version: string, plural: string): ResourceType | undefined {
    return this.types.find((t) => t.group === group && t.version === version && t.plural === plural);
  }

  private typeForKind(apiVersion: string, kind: string): ResourceType {
    const { group, version } = splitApiVersion(apiVersion);
    const t = this.types.find((x) => x.group === group && x.version === version && x.kind === kind);
    if (!t) throw new Error(`api test server: no registered kind ${kind} in ${apiVersion}`);
    return t;
  }

  private collOf(t: ResourceType): Collection {
    return this.colls.get(`${t.group}/${t.plural}`)!;
  }

  // ---- test controls ----

  /** The next `count` requests matching (verb, resource, namespace) fail with `code`. */
  failNext(f: Fault): void {
    this.faults.push({ ...f, left: f.count ?? 1 });
  }

  /** Ends every open watch (clients see the stream close and reconnect). */
  dropWatches(): void {
    for (const w of [...this.watchers]) this.endWatch(w);
  }

  /** Sends a BOOKMARK with the current resourceVersion to every watch that allows bookmarks. */
  sendBookmarks(): void {
    for (const w of this.watchers) if (w.bookmarks) this.writeBookmark(w);
  }

  /** Forgets the watch history (like an etcd compaction): older resourceVersions and continue tokens get 410. */
  compact(): void {
    this.history.length = 0;
    this.compactedRv = this.rv;
  }

  /** The current resourceVersion. */
  resourceVersion(): string {
    return String(this.rv);
  }

  clearAudit(): void {
    this.audit.length = 0;
  }

  /**
   * Calls `f` synchronously after every stored change (create, update, status, patch, delete, GC),
   * before the request is answered, so a checker sees each write in the state it made. `f` must not
   * write to this server (schedule it instead). Returns the unsubscribe function.
   */
  onWrite(f: (e: WriteEvent) => void): () => void {
    this.writeListeners.add(f);
    return () => this.writeListeners.delete(f);
  }

  /** Resolves when background garbage collection has nothing left to do. */
  idle(): Promise<void> {
    if (!this.gcScheduled && this.gcQueue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  // ---- HTTP ----

  private handle(req: IncomingMessage, res: ServerResponse): void {
    let entry: AuditEntry | undefined;
    const respond = (code: number, body: unknown) => {
      if (entry) entry.code = code;
      if (res.headersSent || res.destroyed) return;
      const text = JSON.stringify(body);
      res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache, private' });
      res.end(text);
    };
    const fail = (e: unknown) => {
      if (e instanceof StatusError) respond(e.code, e.toStatus());
      // A bug in this harness, not bad input: still a Status, so the client sees a clear message.
      else respond(500, new StatusError(500, `Internal error occurred: ${(e as Error)?.message ?? String(e)}`).toStatus());
    };
    try {
      const url = new URL(req.url ?? '/', 'https://127.0.0.1');
      let segs: string[];
      try {
        segs = url.pathname.split('/').filter((s) => s !== '').map(decodeURIComponent);
      } catch {
        throw new StatusError(400, `the request path ${JSON.stringify(url.pathname)} is not validly percent-encoded`);
      }
      if (url.pathname === '/version' || url.pathname === '/healthz' || url.pathname === '/readyz' || url.pathname === '/livez') {
        if (req.method !== 'GET') throw new StatusError(405, `${req.method} is not allowed on ${url.pathname}`);
        respond(200, url.pathname === '/version' ? { major: '1', minor: '31', gitVersion: 'v1.31.0-pkogen-test', platform: 'linux/amd64' } : 'ok');
        return;
      }
      const user = this.authenticate(req);
      const info = segs[0] === 'api' || segs[0] === 'apis' ? this.parseResource(req.method ?? 'GET', segs, url.searchParams) : undefined;
      if (!info) {
        // Discovery: allowed to every authenticated identity, as system:discovery is in Kubernetes.
        entry = { user: user.name, verb: 'get', apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '', nonResourcePath: url.pathname };
        this.audit.push(entry);
        if (req.method !== 'GET') throw new StatusError(405, `${req.method} is not allowed on ${url.pathname}`);
        respond(200, this.discovery(segs));
        return;
      }
      entry = {
        user: user.name,
        verb: info.verb,
        apiGroup: info.type.group,
        apiVersion: info.version,
        resource: info.type.plural,
        subresource: info.subresource,
        namespace: info.namespace,
        name: info.name || this.nameFromFieldSelector(info),
      };
      this.audit.push(entry);
      this.authorize(user, info, entry.name);
      this.injectFault(info);
      this.readBody(req, (err, body) => {
        if (err) {
          // The rest of an oversized body is read and discarded (never buffered), so the client gets the 413.
          fail(err);
          return;
        }
        try {
          if (info.verb === 'watch') {
            if (entry) entry.code = 200;
            this.watch(info, res);
            return;
          }
          let answer: [number, unknown];
          this.writer = user.name;
          try {
            answer = this.dispatch(req, info, body!);
          } finally {
            this.writer = undefined;
          }
          respond(answer[0], answer[1]);
        } catch (e) {
          fail(e);
        }
      });
    } catch (e) {
      fail(e);
      req.resume();
    }
  }

  /**
   * TokenRequest (`POST …/serviceaccounts/NAME/token`), as kube-apiserver answers it: the
   * ServiceAccount must exist; `spec.expirationSeconds` defaults to 3600 and may not be under 600.
   * The token authenticates as `system:serviceaccount:NS:NAME` from then on, with the rules of the
   * identity of that name given to the server (none when there is none: every request denied).
   */
  private mintToken(info: RequestInfo, body: unknown): unknown {
    const { namespace, name } = info;
    if (!info.coll.objects.has(key(namespace, name))) throw notFound(info.type, name);
    const spec = isObj(body) && isObj(body.spec) ? body.spec : {};
    const seconds = spec.expirationSeconds === undefined ? 3600 : spec.expirationSeconds;
    if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 600) {
      throw new StatusError(422, `TokenRequest.authentication.k8s.io "${name}" is invalid: spec.expirationSeconds: Invalid value: ${JSON.stringify(seconds)}: may not specify a duration less than 10 minutes`, 'Invalid');
    }
    const user = `system:serviceaccount:${namespace}:${name}`;
    const configured = this.identities.find((i) => i.name === user);
    let token = '';
    while (token === '' || this.identities.some((i) => i.token === token)) token = `minted-${this.randomSuffix()}${this.randomSuffix()}`;
    this.identities.push({ name: user, token, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`], rules: configured ? configured.rules : [] });
    return {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      metadata: { name, namespace, creationTimestamp: this.clock().toISOString().replace(/\.\d{3}Z$/, 'Z') },
      spec: { ...spec, expirationSeconds: seconds },
      status: { token, expirationTimestamp: new Date(this.clock().getTime() + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') },
    };
  }

  private authenticate(req: IncomingMessage): Identity {
    const h = req.headers.authorization ?? '';
    const m = h.match(/^Bearer\s+(\S+)\s*$/i);
    const id = m ? this.identities.find((i) => i.token === m[1]) : undefined;
    if (!id) throw new StatusError(401, 'Unauthorized', 'Unauthorized');
    return id;
  }

  private nameFromFieldSelector(info: RequestInfo): string {
    // kube-apiserver's RequestInfoFactory takes the name of a list/watch from metadata.name=X.
    if (info.verb !== 'list' && info.verb !== 'watch') return '';
    const fs = info.query.get('fieldSelector');
    if (!fs) return '';
    try {
      const eq = parseFieldSelector(fs).filter((r) => r.field === 'metadata.name' && r.equal);
      return eq.length === 1 ? eq[0].value : '';
    } catch {
      return '';
    }
  }

  private authorize(user: Identity, info: RequestInfo, name: string): void {
    if (!user.rules) return;
    const res = info.subresource ? `${info.type.plural}/${info.subresource}` : info.type.plural;
    const ok = user.rules.some((r) => {
      if (!r.verbs.includes('*') && !r.verbs.includes(info.verb)) return false;
      if (!r.apiGroups.includes('*') && !r.apiGroups.includes(info.type.group)) return false;
      const resOk = r.resources.some((x) => x === '*' || x === res || (info.subresource && (x === `${info.type.plural}/*` || x === `*/${info.subresource}`)));
      if (!resOk) return false;
      if (r.resourceNames && r.resourceNames.length > 0 && !r.resourceNames.includes(name)) return false;
      if (r.namespaces && !(info.namespace && r.namespaces.includes(info.namespace))) return false;
      return true;
    });
    if (ok) return;
    const scope = info.namespace ? `in the namespace "${info.namespace}"` : 'at the cluster scope';
    const what = name ? `${qualified(info.type)} "${name}"` : qualified(info.type);
    throw new StatusError(403, `${what} is forbidden: User "${user.name}" cannot ${info.verb} resource "${res}" in API group "${info.type.group}" ${scope}`, 'Forbidden', {
      ...(name ? { name } : {}),
      group: info.type.group,
      kind: info.type.plural,
    });
  }

  private injectFault(info: RequestInfo): void {
    const res = info.subresource ? `${info.type.plural}/${info.subresource}` : info.type.plural;
    const f = this.faults.find((x) => x.left > 0 && (!x.verb || x.verb === info.verb) && (!x.resource || x.resource === res) && (!x.namespace || x.namespace === info.namespace));
    if (!f) return;
    f.left--;
    this.faults = this.faults.filter((x) => x.left > 0);
    const code = f.code ?? 500;
    throw new StatusError(code, f.message ?? `injected fault: ${info.verb} ${res} fails with ${code}`);
  }

  private readBody(req: IncomingMessage, done: (err: StatusError | undefined, body?: Buffer) => void): void {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      if (over) return;
      size += c.length;
      if (size > BODY_LIMIT) {
        over = true;
        chunks.length = 0;
        done(new StatusError(413, `Request entity too large: limit is ${BODY_LIMIT}`, 'RequestEntityTooLarge'));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!over) done(undefined, Buffer.concat(chunks));
    });
    req.on('error', () => {
      if (!over) {
        over = true;
        done(new StatusError(400, 'the request body could not be read'));
      }
    });
  }

  private parseResource(method: string, segs: string[], query: URLSearchParams): RequestInfo | undefined {
    let group = '';
    let version: string;
    let rest: string[];
    if (segs[0] === 'api') {
      if (segs.length < 3) return undefined;
      version = segs[1];
      rest = segs.slice(2);
    } else {
      if (segs.length < 4) return undefined;
      group = segs[1];
      version = segs[2];
      rest = segs.slice(3);
    }
    let namespace = '';
    let plural: string;
    let name = '';
    let sub = '';
    if (rest[0] === 'namespaces' && rest.length >= 3 && (group !== '' || this.typeFor(group, version, rest[2]))) {
      [, namespace, plural, name = '', sub = ''] = rest;
      if (rest.length > 5) throw UNKNOWN_RESOURCE();
    } else {
      [plural, name = '', sub = ''] = rest;
      if (rest.length > 3) throw UNKNOWN_RESOURCE();
    }
    const type = this.typeFor(group, version, plural);
    if (!type) throw UNKNOWN_RESOURCE();
    if (namespace && !type.namespaced) throw UNKNOWN_RESOURCE();
    // Subresources: `status` of kinds that have one; `token` of ServiceAccounts (TokenRequest, create only).
    const tokenRequest = sub === 'token' && type.group === '' && type.plural === 'serviceaccounts';
    if (sub && !(sub === 'status' && type.status) && !tokenRequest) throw UNKNOWN_RESOURCE();
    if (tokenRequest && (method !== 'POST' || !name)) throw new StatusError(405, `${method} is not supported on serviceaccounts/token`, 'MethodNotAllowed');
    const watchParam = query.get('watch');
    const watch = watchParam === 'true' || watchParam === '1';
    let verb: Verb;
    switch (method) {
      case 'GET':
        verb = watch ? 'watch' : name ? 'get' : 'list';
        break;
      case 'POST':
        verb = 'create';
        break;
      case 'PUT':
        verb = 'update';
        break;
      case 'PATCH':
        verb = 'patch';
        break;
      case 'DELETE':
        verb = name ? 'delete' : 'deletecollection';
        break;
      default:
        throw new StatusError(405, `${method} is not supported on resources of kind "${qualified(type)}"`, 'MethodNotAllowed');
    }
    if ((verb === 'create' && name && !tokenRequest) || ((verb === 'update' || verb === 'patch') && !name)) {
      throw new StatusError(405, `${method} is not supported on this path of resources of kind "${qualified(type)}"`, 'MethodNotAllowed');
    }
    // A namespaced kind without a namespace: only the cluster-wide list and watch exist.
    if (type.namespaced && !namespace && !(verb === 'list' || verb === 'watch')) throw UNKNOWN_RESOURCE();
    if (watch && name) {
      // The old single-object watch path: the same as a name field selector.
      query = new URLSearchParams(query);
      query.set('fieldSelector', [query.get('fieldSelector'), `metadata.name=${name}`].filter(Boolean).join(','));
      name = '';
    }
    return { verb, type, coll: this.collOf(type), version, namespace, name, subresource: sub, query };
  }

  private discovery(segs: string[]): unknown {
    const groupVersions = (group: string) => [...new Set(this.types.filter((t) => t.group === group).map((t) => t.version))];
    const groupEntry = (group: string) => {
      const versions = groupVersions(group);
      const preferred = this.types.find((t) => t.group === group && t.version === this.collOf(t).type.version)?.version ?? versions[0];
      return { name: group, versions: versions.map((v) => ({ groupVersion: `${group}/${v}`, version: v })), preferredVersion: { groupVersion: `${group}/${preferred}`, version: preferred } };
    };
    const resourceList = (group: string, version: string) => {
      const types = this.types.filter((t) => t.group === group && t.version === version);
      if (types.length === 0) throw UNKNOWN_RESOURCE();
      const resources: unknown[] = [];
      for (const t of types) {
        resources.push({ name: t.plural, singularName: t.singular ?? t.kind.toLowerCase(), namespaced: t.namespaced, kind: t.kind, verbs: VERBS, ...(t.shortNames ? { shortNames: t.shortNames } : {}) });
        if (t.status) resources.push({ name: `${t.plural}/status`, singularName: '', namespaced: t.namespaced, kind: t.kind, verbs: ['get', 'patch', 'update'] });
      }
      return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv(group, version), resources };
    };
    if (segs[0] === 'api' && segs.length === 1) {
      return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${this.port}` }] };
    }
    if (segs[0] === 'api' && segs.length === 2) return resourceList('', segs[1]);
    if (segs[0] === 'apis' && segs.length === 1) {
      const groups = [...new Set(this.types.map((t) => t.group).filter((g) => g !== ''))];
      return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map(groupEntry) };
    }
    if (segs[0] === 'apis' && segs.length === 2) {
      if (!this.types.some((t) => t.group === segs[1])) throw UNKNOWN_RESOURCE();
      return { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(segs[1]) };
    }
    if (segs[0] === 'apis' && segs.length === 3) return resourceList(segs[1], segs[2]);
    throw UNKNOWN_RESOURCE();
  }

  private dispatch(req: IncomingMessage, info: RequestInfo, body: Buffer): [number, unknown] {
    const { type, coll, namespace, name } = info;
    const parse = (): unknown => {
      if (body.length === 0) throw new StatusError(400, 'the request has no body; a JSON object is required');
      try {
        return JSON.parse(body.toString('utf8'));
      } catch (e) {
        throw new StatusError(400, `the request body is not valid JSON: ${(e as Error).message}`);
      }
    };
    switch (info.verb) {
      case 'get': {
        const obj = coll.objects.get(key(namespace, name));
        if (!obj) throw notFound(type, name);
        return [200, this.present(obj, info.version)];
      }
      case 'list':
        return [200, this.list(info)];
      case 'create': {
        if (info.subresource === 'token') return [201, this.mintToken(info, parse())];
        const obj = this.checkBody(parse(), info, false);
        return [201, this.present(this.create(type, obj, true), info.version)];
      }
      case 'update': {
        const obj = this.checkBody(parse(), info, true);
        return [200, this.present(this.update(type, obj, info.subresource === 'status', true), info.version)];
      }
      case 'patch': {
        const ctype = (req.headers['content-type'] ?? '').split(';')[0].trim();
        const patch = parse();
        const current = coll.objects.get(key(namespace, name));
        if (!current) throw notFound(type, name);
        let next: unknown;
        if (ctype === 'application/merge-patch+json') next = mergePatch(clone(current), patch);
        else if (ctype === 'application/strategic-merge-patch+json') {
          rejectStrategicDirectives(patch, '');
          next = mergePatch(clone(current), patch);
        } else if (ctype === 'application/json-patch+json') next = jsonPatch(current, patch);
        else {
          throw new StatusError(415, `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json (not ${JSON.stringify(ctype)})`, 'UnsupportedMediaType');
        }
        if (!isObj(next)) throw new StatusError(422, 'the patch did not produce an object');
        const obj = this.checkBody(next, info, true);
        // Without a resourceVersion in the patch, a patch applies to the current object.
        if (!isObj(patch) || !isObj(patch.metadata) || patch.metadata.resourceVersion === undefined) obj.metadata!.resourceVersion = current.metadata!.resourceVersion;
        return [200, this.present(this.update(type, obj, info.subresource === 'status', true), info.version)];
      }
      case 'delete': {
        const opts = body.length > 0 ? parse() : {};
        if (!isObj(opts)) throw new StatusError(400, 'DeleteOptions must be a JSON object');
        const pre = isObj(opts.preconditions) ? opts.preconditions : {};
        const propagation = opts.propagationPolicy ?? (opts.orphanDependents === true ? 'Orphan' : 'Background');
        if (!['Background', 'Foreground', 'Orphan'].includes(propagation)) throw new StatusError(400, `DeleteOptions.propagationPolicy: Unsupported value: ${JSON.stringify(propagation)}`);
        const current = coll.objects.get(key(namespace, name));
        if (!current) throw notFound(type, name);
        if (pre.uid && pre.uid !== current.metadata!.uid) throw conflict(type, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata!.uid}`);
        if (pre.resourceVersion && pre.resourceVersion !== current.metadata!.resourceVersion) {
          throw conflict(type, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata!.resourceVersion}`);
        }
        const { obj, gone } = this.deleteObject(coll, key(namespace, name), propagation, false);
        if (!gone) return [200, this.present(obj, info.version)];
        return [200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, group: type.group, kind: type.plural, uid: obj.metadata!.uid } }];
      }
      case 'deletecollection': {
        const filter = this.filterOf(info);
        for (const k of [...coll.keys()]) {
          const o = coll.objects.get(k);
          if (o && matches(filter, o)) this.deleteObject(coll, k, 'Background', false);
        }
        return [200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' }];
      }
      default:
        throw new StatusError(405, `${info.verb} is not supported here`, 'MethodNotAllowed');
    }
  }

  /** Checks kind, apiVersion, name and namespace of a request body against the URL. */
  private checkBody(raw: unknown, info: RequestInfo, named: boolean): KubeObject {
    const { type } = info;
    if (!isObj(raw)) throw new StatusError(400, `the request body must be a JSON object (a ${type.kind})`);
    const obj = raw as KubeObject;
    const apiVersion = gv(type.group, info.version);
    if (obj.apiVersion !== undefined && obj.apiVersion !== apiVersion) throw new StatusError(400, `the API version in the data (${obj.apiVersion}) does not match the expected API version (${apiVersion})`);
    if (obj.kind !== undefined && obj.kind !== type.kind) throw new StatusError(400, `the kind in the data (${obj.kind}) does not match the expected kind (${type.kind})`);
    if (obj.metadata !== undefined && !isObj(obj.metadata)) throw new StatusError(400, 'metadata must be an object');
    obj.apiVersion = gv(type.group, type.version);
    obj.kind = type.kind;
    obj.metadata = obj.metadata ?? {};
    const md = obj.metadata;
    if (type.namespaced) {
      if (md.namespace !== undefined && md.namespace !== '' && md.namespace !== info.namespace) throw new StatusError(400, `the namespace of the provided object (${md.namespace}) does not match the namespace sent on the request (${info.namespace})`);
      md.namespace = info.namespace;
    } else if (md.namespace) throw new StatusError(400, `${type.kind} is cluster-scoped: metadata.namespace must be empty, got ${JSON.stringify(md.namespace)}`);
    if (named) {
      if (md.name !== undefined && md.name !== info.name) throw new StatusError(400, `the name of the object (${md.name}) does not match the name on the URL (${info.name})`);
      md.name = info.name;
    }
    return obj;
  }

  private present(obj: KubeObject, version: string): KubeObject {
    const t = this.typeForKind(obj.apiVersion!, obj.kind!);
    if (version === t.version) return obj;
    return { ...obj, apiVersion: gv(t.group, version) };
  }

  private filterOf(info: RequestInfo): Filter {
    const ls = info.query.get('labelSelector');
    const fs = info.query.get('fieldSelector');
    return { namespace: info.namespace, labels: ls ? parseLabelSelector(ls) : undefined, fields: fs ? parseFieldSelector(fs) : [] };
  }

  // ---- list ----

  private list(info: RequestInfo): KubeObject {
    const filter = this.filterOf(info);
    const limitText = info.query.get('limit');
    const limit = limitText ? Number(limitText) : 0;
    if (!Number.isInteger(limit) || limit < 0) throw new StatusError(400, `limit must be a non-negative integer, got ${JSON.stringify(limitText)}`);
    const token = info.query.get('continue');
    let listRv = this.rv;
    let after: string | undefined;
    if (token) {
      const t = decodeContinue(token);
      const rvParam = info.query.get('resourceVersion');
      if (rvParam && rvParam !== '0') throw new StatusError(400, 'specifying resource version is not allowed when using continue');
      if (t.rv < this.compactedRv) {
        throw new StatusError(
          410,
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
          'Expired',
        );
      }
      listRv = t.rv;
      after = t.start;
    }
    const { coll } = info;
    const keys = coll.keys();
    // Namespaced lists read only their namespace's key range.
    let i = after !== undefined ? coll.indexAfter(after) : info.namespace ? coll.indexAfter(`${info.namespace}/`, true) : 0;
    const nsPrefix = info.namespace ? `${info.namespace}/` : '';
    const items: KubeObject[] = [];
    let last = '';
    for (; i < keys.length; i++) {
      const k = keys[i];
      if (nsPrefix && !k.startsWith(nsPrefix)) break;
      const o = coll.objects.get(k)!;
      if (!matches(filter, o)) continue;
      if (limit > 0 && items.length === limit) break;
      items.push(this.present(o, info.version));
      last = k;
    }
    const metadata: Record<string, unknown> = { resourceVersion: String(listRv) };
    // More to come only if a matching object lies beyond the page.
    let more = false;
    let remaining = 0;
    for (let j = i; j < keys.length; j++) {
      const k = keys[j];
      if (nsPrefix && !k.startsWith(nsPrefix)) break;
      if (matches(filter, coll.objects.get(k)!)) {
        more = true;
        remaining++;
        if (filter.labels || filter.fields.length) break;
      }
    }
    if (limit > 0 && more) {
      metadata.continue = Buffer.from(JSON.stringify({ v: 'pkogen.test/v1', rv: listRv, start: last })).toString('base64url');
      // Kubernetes counts the rest only for lists without selectors.
      if (!filter.labels && filter.fields.length === 0) metadata.remainingItemCount = remaining;
    }
    const t = info.type;
    return { kind: `${t.kind}List`, apiVersion: gv(t.group, info.version), metadata, items };
  }

  // ---- watch ----

  private watch(info: RequestInfo, res: ServerResponse): void {
    const filter = this.filterOf(info);
    const rvText = info.query.get('resourceVersion') ?? '';
    const fromRv = rvText === '' || rvText === '0' ? undefined : Number(rvText);
    if (fromRv !== undefined && (!Number.isInteger(fromRv) || fromRv < 0)) throw new StatusError(400, `invalid resourceVersion ${JSON.stringify(rvText)}: must be a non-negative integer`);
    const timeoutText = info.query.get('timeoutSeconds');
    const timeout = timeoutText ? Number(timeoutText) : 0;
    if (!Number.isFinite(timeout) || timeout < 0) throw new StatusError(400, `invalid timeoutSeconds ${JSON.stringify(timeoutText)}`);
    const ab = info.query.get('allowWatchBookmarks');
    const w: Watcher = { coll: info.coll, version: info.version, filter, res, bookmarks: ab === 'true' || ab === '1', closed: false };
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    if (fromRv !== undefined && fromRv < this.compactedRv) {
      // What client-node's ListWatch treats as "relist": an ERROR event with a 410 Status, then the end.
      this.writeEvent(w, 'ERROR', new StatusError(410, `too old resource version: ${fromRv} (${this.compactedRv})`, 'Expired').toStatus());
      res.end();
      return;
    }
    if (fromRv === undefined) {
      for (const k of info.coll.keys()) {
        const o = info.coll.objects.get(k)!;
        if (matches(filter, o)) this.writeEvent(w, 'ADDED', this.present(o, w.version));
      }
    } else {
      for (const e of this.history) if (e.rv > fromRv && e.coll === w.coll) this.deliver(w, e);
    }
    if (w.closed) return;
    this.watchers.add(w);
    res.on('close', () => this.endWatch(w));
    if (timeout > 0) w.timer = setTimeout(() => this.endWatch(w), timeout * 1000);
    if (w.bookmarks) this.ensureBookmarkTimer();
  }

  private ensureBookmarkTimer(): void {
    if (this.bookmarkTimer) return;
    this.bookmarkTimer = setInterval(() => {
      this.sendBookmarks();
      if (![...this.watchers].some((w) => w.bookmarks)) {
        clearInterval(this.bookmarkTimer);
        this.bookmarkTimer = undefined;
      }
    }, this.bookmarkMs);
    this.bookmarkTimer.unref();
  }

  private writeBookmark(w: Watcher): void {
    const t = w.coll.type;
    this.writeEvent(w, 'BOOKMARK', { kind: t.kind, apiVersion: gv(t.group, w.version), metadata: { resourceVersion: String(this.rv) } });
  }

  private endWatch(w: Watcher): void {
    if (w.closed) return;
    w.closed = true;
    if (w.timer) clearTimeout(w.timer);
    this.watchers.delete(w);
    if (!w.res.writableEnded) w.res.end();
  }

  private writeEvent(w: Watcher, type: string, object: unknown): void {
    if (w.closed || w.res.writableEnded) return;
    w.res.write(JSON.stringify({ type, object }) + '\n');
    if (w.res.writableLength > WATCH_BUFFER_LIMIT) {
      this.endWatch(w);
      w.res.destroy();
    }
  }

  /** Sends one stored event to one watcher, turning selector transitions into ADDED/DELETED as Kubernetes does. */
  private deliver(w: Watcher, e: StoredEvent): void {
    const now = matches(w.filter, e.obj);
    let type: string | undefined;
    if (e.type === 'MODIFIED') {
      const before = e.prev ? matches(w.filter, e.prev) : false;
      type = now && before ? 'MODIFIED' : now ? 'ADDED' : before ? 'DELETED' : undefined;
    } else if (now) type = e.type;
    if (type) this.writeEvent(w, type, this.present(e.obj, w.version));
  }

  private emit(e: StoredEvent): void {
    this.history.push(e);
    if (this.history.length > this.historyLimit) {
      const dropped = this.history.splice(0, this.history.length - this.historyLimit);
      this.compactedRv = dropped[dropped.length - 1].rv;
    }
    for (const w of [...this.watchers]) if (w.coll === e.coll) this.deliver(w, e);
    for (const f of [...this.writeListeners]) f({ type: e.type, object: this.present(e.obj, e.coll.type.version), ...(e.prev ? { previous: this.present(e.prev, e.coll.type.version) } : {}), ...(this.writer !== undefined ? { user: this.writer } : {}) });
  }

  // ---- writes ----

  private nextRv(): number {
    return ++this.rv;
  }

  private newUid(): string {
    const n = ++this.uidCounter;
    const hex = n.toString(16).padStart(12, '0');
    return `00000000-0000-4000-8000-${hex}`;
  }

  private randomSuffix(): string {
    let s = '';
    for (let i = 0; i < 5; i++) {
      // xorshift32: reproducible names from the seed.
      let x = this.rand;
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      this.rand = x >>> 0;
      s += NAME_CHARS[this.rand % NAME_CHARS.length];
    }
    return s;
  }

  private validateMeta(t: ResourceType, obj: KubeObject): void {
    const md = obj.metadata!;
    const errs: FieldError[] = [];
    if (!md.name) errs.push(required('metadata.name', 'name or generateName is required'));
    else if (typeof md.name !== 'string') errs.push(invalid('metadata.name', md.name, 'must be a string'));
    else for (const m of isDNS1123Subdomain(md.name)) errs.push(invalid('metadata.name', md.name, m));
    if (md.labels !== undefined) {
      if (!isObj(md.labels)) errs.push(invalid('metadata.labels', md.labels, 'must be a map of strings'));
      else errs.push(...validateLabels(md.labels));
    }
    if (md.annotations !== undefined && (!isObj(md.annotations) || Object.values(md.annotations).some((v) => typeof v !== 'string'))) {
      errs.push(invalid('metadata.annotations', md.annotations, 'must be a map of strings'));
    }
    if (md.finalizers !== undefined && (!Array.isArray(md.finalizers) || md.finalizers.some((f: unknown) => typeof f !== 'string'))) {
      errs.push(invalid('metadata.finalizers', md.finalizers, 'must be a list of strings'));
    }
    if (md.ownerReferences !== undefined) {
      if (!Array.isArray(md.ownerReferences)) errs.push(invalid('metadata.ownerReferences', md.ownerReferences, 'must be a list'));
      else
        md.ownerReferences.forEach((r: unknown, i: number) => {
          const f = `metadata.ownerReferences[${i}]`;
          if (!isObj(r)) errs.push(invalid(f, r, 'must be an object'));
          else for (const k of ['apiVersion', 'kind', 'name', 'uid']) if (typeof r[k] !== 'string' || !r[k]) errs.push(required(`${f}.${k}`));
        });
    }
    if (errs.length) throw invalidObject(t, typeof md.name === 'string' ? md.name : '', errs);
  }

  /** Creates an object; `viaApi` applies what admission would (namespace must exist, status dropped). */
  private create(t: ResourceType, input: KubeObject, viaApi: boolean): KubeObject {
    const coll = this.collOf(t);
    const obj = clone(input);
    const md = obj.metadata!;
    if (!md.name && typeof md.generateName === 'string' && md.generateName) {
      for (let tries = 0; tries < 8 && (!md.name || coll.objects.has(key(md.namespace, md.name))); tries++) md.name = md.generateName + this.randomSuffix();
    }
    this.validateMeta(t, obj);
    if (t.namespaced && viaApi) {
      const ns = this.collOf(BUILTIN[0]).objects.get(key('', md.namespace));
      if (!ns) throw new StatusError(404, `namespaces "${md.namespace}" not found`, 'NotFound', { name: md.namespace, kind: 'namespaces' });
      if (ns.metadata?.deletionTimestamp) throw new StatusError(403, `${t.plural} "${md.name}" is forbidden: unable to create new content in namespace ${md.namespace} because it is being terminated`, 'Forbidden');
    }
    const k = key(md.namespace, md.name);
    if (coll.objects.has(k)) {
      throw new StatusError(409, `${qualified(t)} "${md.name}" already exists`, 'AlreadyExists', { name: md.name, group: t.group, kind: t.plural });
    }
    if (viaApi && t.status) delete obj.status;
    if (t.kind === 'Namespace' && t.group === '') obj.status = { phase: 'Active', ...(viaApi ? {} : obj.status) };
    const rv = this.nextRv();
    obj.metadata = {
      ...md,
      uid: this.newUid(),
      resourceVersion: String(rv),
      generation: 1,
      creationTimestamp: timestamp(this.clock()),
    };
    delete obj.metadata.deletionTimestamp;
    delete obj.metadata.deletionGracePeriodSeconds;
    coll.set(k, obj);
    this.emit({ type: 'ADDED', rv, coll, obj });
    return obj;
  }

  /** PUT semantics: optimistic concurrency, status rules, generation, finalizer completion. */
  private update(t: ResourceType, input: KubeObject, statusOnly: boolean, viaApi: boolean): KubeObject {
    const coll = this.collOf(t);
    const md = input.metadata!;
    const k = key(md.namespace, md.name);
    const current = coll.objects.get(k);
    if (!current) throw notFound(t, md.name);
    const cmd = current.metadata!;
    if (viaApi) {
      if (md.resourceVersion === undefined || md.resourceVersion === '') {
        // CustomResources refuse unconditional updates; built-in kinds allow them.
        if (t.custom) throw invalidObject(t, md.name, [invalid('metadata.resourceVersion', 0, 'must be specified for an update')], true);
      } else if (md.resourceVersion !== cmd.resourceVersion) throw conflict(t, md.name, MODIFIED);
      if (md.uid !== undefined && md.uid !== cmd.uid) throw conflict(t, md.name, `Precondition failed: UID in precondition: ${md.uid}, UID in object meta: ${cmd.uid}`);
    }
    let next: KubeObject;
    if (statusOnly) {
      next = { ...clone(current), status: clone(input.status) };
      if (input.status === undefined) delete next.status;
    } else {
      next = clone(input);
      if (viaApi && t.status) {
        if (current.status === undefined) delete next.status;
        else next.status = clone(current.status);
      }
      // Immutable or server-owned metadata keeps its stored value.
      next.metadata = { ...next.metadata, uid: cmd.uid, creationTimestamp: cmd.creationTimestamp, generation: cmd.generation };
      if (cmd.deletionTimestamp) {
        next.metadata.deletionTimestamp = cmd.deletionTimestamp;
        next.metadata.deletionGracePeriodSeconds = cmd.deletionGracePeriodSeconds;
      } else {
        delete next.metadata.deletionTimestamp;
        delete next.metadata.deletionGracePeriodSeconds;
      }
      if (next.metadata.generateName === undefined && cmd.generateName !== undefined) next.metadata.generateName = cmd.generateName;
      this.validateMeta(t, next);
      if (viaApi && cmd.deletionTimestamp) {
        const added = ((next.metadata.finalizers ?? []) as string[]).filter((f) => !((cmd.finalizers ?? []) as string[]).includes(f));
        if (added.length) throw invalidObject(t, md.name, [forbidden('metadata.finalizers', `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`)]);
      }
      if (!deepEqual(specPart(next, t.status), specPart(current, t.status))) next.metadata.generation = (cmd.generation ?? 0) + 1;
    }
    next.metadata = { ...next.metadata, resourceVersion: cmd.resourceVersion };
    if (deepEqual(next, current)) return current; // a no-op write keeps its resourceVersion, as in Kubernetes
    const rv = this.nextRv();
    next.metadata = { ...next.metadata, resourceVersion: String(rv) };
    if (next.metadata.deletionTimestamp && ((next.metadata.finalizers ?? []) as string[]).length === 0) {
      // The last finalizer is gone: the object goes away now.
      coll.delete(k);
      this.emit({ type: 'DELETED', rv, coll, obj: next });
      this.afterRemoval(coll, next);
      return next;
    }
    coll.set(k, next);
    this.emit({ type: 'MODIFIED', rv, coll, obj: next, prev: current });
    return next;
  }

  /** Deletes (or marks for deletion) one object; returns whether it is gone. */
  private deleteObject(coll: Collection, k: string, propagation: string, force: boolean): { obj: KubeObject; gone: boolean } {
    const current = coll.objects.get(k)!;
    const md = current.metadata!;
    if (propagation === 'Orphan') this.orphanDependents(md.uid);
    const t = coll.type;
    if (t.kind === 'Namespace' && t.group === '' && !force) {
      if (md.deletionTimestamp) return { obj: current, gone: false };
      // The namespace controller's job: delete what the namespace holds; the namespace goes when it is empty.
      const marked = this.markDeleting(coll, k, current, { phase: 'Terminating' });
      for (const c of this.colls.values()) {
        if (!c.type.namespaced) continue;
        for (const ck of [...c.keys()]) if (ck.startsWith(`${md.name}/`) && c.objects.has(ck)) this.deleteObject(c, ck, 'Background', false);
      }
      return this.finishNamespace(md.name) ? { obj: marked, gone: true } : { obj: marked, gone: false };
    }
    if (!force && ((md.finalizers ?? []) as string[]).length > 0) {
      if (md.deletionTimestamp) return { obj: current, gone: false };
      return { obj: this.markDeleting(coll, k, current), gone: false };
    }
    const rv = this.nextRv();
    const gone = { ...current, metadata: { ...md, resourceVersion: String(rv) } };
    coll.delete(k);
    this.emit({ type: 'DELETED', rv, coll, obj: gone });
    this.afterRemoval(coll, gone);
    return { obj: gone, gone: true };
  }

  private markDeleting(coll: Collection, k: string, current: KubeObject, status?: Record<string, unknown>): KubeObject {
    const rv = this.nextRv();
    const md = current.metadata!;
    const next: KubeObject = {
      ...current,
      metadata: { ...md, resourceVersion: String(rv), deletionTimestamp: timestamp(this.clock()), deletionGracePeriodSeconds: 0, generation: (md.generation ?? 0) + 1 },
    };
    if (status) next.status = { ...(current.status ?? {}), ...status };
    coll.set(k, next);
    this.emit({ type: 'MODIFIED', rv, coll, obj: next, prev: current });
    return next;
  }

  /** Removes a terminating namespace once nothing is left in it. */
  private finishNamespace(ns: string): boolean {
    const nsColl = this.collOf(BUILTIN[0]);
    const nk = key('', ns);
    const nsObj = nsColl.objects.get(nk);
    if (!nsObj?.metadata?.deletionTimestamp) return false;
    for (const c of this.colls.values()) {
      if (!c.type.namespaced) continue;
      const keys = c.keys();
      const i = c.indexAfter(`${ns}/`, true);
      if (i < keys.length && keys[i].startsWith(`${ns}/`)) return false;
    }
    const rv = this.nextRv();
    const gone = { ...nsObj, metadata: { ...nsObj.metadata, resourceVersion: String(rv) } };
    nsColl.delete(nk);
    this.emit({ type: 'DELETED', rv, coll: nsColl, obj: gone });
    return true;
  }

  private afterRemoval(coll: Collection, obj: KubeObject): void {
    const md = obj.metadata!;
    if (coll.type.namespaced && md.namespace) this.finishNamespace(md.namespace);
    this.gcQueue.push({ uid: md.uid, namespace: md.namespace ?? '', clusterScoped: !coll.type.namespaced });
    this.scheduleGc();
  }

  private orphanDependents(uid: string): void {
    for (const c of this.colls.values()) {
      for (const [k, o] of [...c.objects]) {
        const refs = o.metadata?.ownerReferences as { uid: string }[] | undefined;
        if (!refs?.some((r) => r.uid === uid)) continue;
        const next = clone(o);
        next.metadata!.ownerReferences = refs.filter((r) => r.uid !== uid);
        if (next.metadata!.ownerReferences.length === 0) delete next.metadata!.ownerReferences;
        const rv = this.nextRv();
        next.metadata!.resourceVersion = String(rv);
        c.set(k, next);
        this.emit({ type: 'MODIFIED', rv, coll: c, obj: next, prev: o });
      }
    }
  }

  private scheduleGc(): void {
    if (this.gcScheduled) return;
    this.gcScheduled = true;
    // Background, like the garbage collector: the DELETE answers first, dependents go after.
    setImmediate(() => {
      this.gcScheduled = false;
      this.runGc();
    });
  }

  private uidExists(uid: string): boolean {
    for (const c of this.colls.values()) for (const o of c.objects.values()) if (o.metadata?.uid === uid) return true;
    return false;
  }

  private runGc(): void {
    while (this.gcQueue.length > 0) {
      const { uid, namespace, clusterScoped } = this.gcQueue.shift()!;
      for (const c of this.colls.values()) {
        for (const [k, o] of [...c.objects]) {
          const md = o.metadata!;
          // Dependents of a namespaced owner live in its namespace; a cluster-scoped owner may own anything.
          if (!clusterScoped && (md.namespace ?? '') !== namespace) continue;
          const refs = (md.ownerReferences ?? []) as { uid: string }[];
          if (!refs.some((r) => r.uid === uid)) continue;
          const alive = refs.filter((r) => r.uid !== uid && this.uidExists(r.uid));
          if (alive.length > 0) {
            // Another owner remains: drop only the dangling reference.
            const next = clone(o);
            next.metadata!.ownerReferences = refs.filter((r) => r.uid !== uid);
            const rv = this.nextRv();
            next.metadata!.resourceVersion = String(rv);
            c.set(k, next);
            this.emit({ type: 'MODIFIED', rv, coll: c, obj: next, prev: o });
          } else if (!md.deletionTimestamp) this.deleteObject(c, k, 'Background', false);
        }
      }
    }
    for (const w of this.idleWaiters.splice(0)) w();
  }

  // ---- direct access ----

  private makeDirectStore(): DirectStore {
    const locate = (ref: ObjectRef) => {
      const t = this.typeForKind(ref.apiVersion, ref.kind);
      return { t, coll: this.collOf(t), k: key(t.namespaced ? ref.namespace ?? '' : '', ref.name) };
    };
    return {
      get: (ref) => {
        const { t, coll, k } = locate(ref);
        const o = coll.objects.get(k);
        return o ? clone(this.present(o, t.version)) : undefined;
      },
      list: (apiVersion, kind, namespace) => {
        const t = this.typeForKind(apiVersion, kind);
        const coll = this.collOf(t);
        return coll
          .keys()
          .filter((k) => !namespace || k.startsWith(`${namespace}/`))
          .map((k) => clone(this.present(coll.objects.get(k)!, t.version)));
      },
      put: (obj) => {
        if (!isObj(obj) || typeof obj.apiVersion !== 'string' || typeof obj.kind !== 'string' || !isObj(obj.metadata)) {
          throw new Error('api test server: store.put needs an object with apiVersion, kind and metadata');
        }
        const t = this.typeForKind(obj.apiVersion, obj.kind);
        const input = clone(obj);
        input.apiVersion = gv(t.group, this.collOf(t).type.version);
        if (!t.namespaced) delete input.metadata!.namespace;
        else if (!input.metadata!.namespace) throw new Error(`api test server: store.put: ${t.kind} ${JSON.stringify(input.metadata!.name)} needs metadata.namespace`);
        try {
          const exists = this.collOf(t).objects.has(key(input.metadata!.namespace, input.metadata!.name));
          const out = exists ? this.update(t, input, false, false) : this.create(t, input, false);
          return clone(this.present(out, t.version));
        } catch (e) {
          if (e instanceof StatusError) throw new Error(`api test server: store.put: ${e.message}`);
          throw e;
        }
      },
      delete: (ref, opts = {}) => {
        const { coll, k } = locate(ref);
        if (!coll.objects.has(k)) return false;
        return this.deleteObject(coll, k, opts.propagationPolicy ?? 'Background', opts.force === true).gone;
      },
    };
  }
}

function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (isObj(t) && t.v === 'pkogen.test/v1' && Number.isInteger(t.rv) && typeof t.start === 'string') return { rv: t.rv, start: t.start };
  } catch {
    // fall through to the error below
  }
  throw new StatusError(400, 'invalid continue token: continue key is not valid: it was not issued by this server or is damaged');
}

/** Starts a server; stop it with `stop()` (jest must exit). */
export async function startApiServer(opts: ApiServerOptions): Promise<ApiTestServer> {
  const s = new ApiTestServer(opts);
  await s.start();
  return s;
}
