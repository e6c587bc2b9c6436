/**
 * Admission of a push target (`spec.renderedImagePushSpec`): the build pod pushes there, and the
 * controller then reads the image back from there, both from the management network. A push
 * spec naming this host, a cluster Service, a link-local (cloud metadata), private or shared
 * address, or a single-label name (resolved through the cluster's search domains, i.e. to a
 * Service of the namespace the build runs in) is refused, unless the provider's allow-list names
 * it (a mirror registry). Pure: the webhook and the controller call it alike.
 *
 * Messages name the field and the host, never the rest of the spec (nothing else of a user's
 * input, and so no credential pasted into it, is echoed).
 */
import { classifyAddress, internalNameReason, NetGuard, parseIp } from './net-guard.js';
import { authKeysFor, credentialFromAuthEntry, parseReference, ReferenceError } from 'pkogen/oci';
import { UserError } from 'pkogen/model';
import { parseDockerConfigJson } from './dockerconfig.js';

export const PUSH_SPEC_FIELD = 'spec.renderedImagePushSpec';

export interface PushTargetOptions {
  /** The field named in the message (default `spec.renderedImagePushSpec`). */
  field?: string;
  /** Allow-list entries (hosts, `*.suffix`, addresses, CIDRs, each with an optional `:port`), or a guard built from them. */
  allow?: string[] | NetGuard;
}

const KIND: Record<string, string> = {
  loopback: 'a loopback address',
  'link-local': 'a link-local address (where cloud metadata services answer)',
  private: 'a private address',
  shared: 'a shared (CGNAT) address',
  unspecified: 'the unspecified address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address',
};

/** The registry part of a push spec: `host[:port]` or `[v6]:port`; undefined when there is none. */
export function pushSpecHost(spec: string): { host: string; port?: number; raw: string } | undefined {
  const slash = spec.indexOf('/');
  if (slash <= 0) return undefined;
  const raw = spec.slice(0, slash);
  const v6 = /^\[([^\]]*)\](?::(\d+))?$/.exec(raw);
  if (v6) return { host: v6[1], ...(v6[2] !== undefined ? { port: Number(v6[2]) } : {}), raw };
  const colon = raw.lastIndexOf(':');
  if (colon >= 0) return { host: raw.slice(0, colon), port: /^\d+$/.test(raw.slice(colon + 1)) ? Number(raw.slice(colon + 1)) : NaN, raw };
  return { host: raw, raw };
}

/**
 * Why this push spec may not be used, as `<field>: <reason>`; undefined when it may. Only the
 * destination is judged here (the shape of the spec is the CRD's pattern).
 */
export function pushTargetProblem(spec: unknown, o: PushTargetOptions = {}): string | undefined {
  const field = o.field ?? PUSH_SPEC_FIELD;
  const fail = (why: string) => `${field}: ${why}`;
  if (typeof spec !== 'string' || !spec) return fail('must be an image reference host[:port]/path/name:tag');
  const h = pushSpecHost(spec);
  if (!h) return fail('has no registry host (host[:port]/path/name:tag)');
  if (h.raw.includes('@')) return fail('the registry host part contains "@"; credentials belong in the push Secret, not in the push spec');
  if (h.port !== undefined && !(Number.isInteger(h.port) && h.port >= 1 && h.port <= 65535)) return fail('the registry port is not a number from 1 to 65535');
  const host = h.host.toLowerCase().replace(/\.$/, '');
  const shown = JSON.stringify(h.raw.slice(0, 260));
  const guard = o.allow instanceof NetGuard ? o.allow : new NetGuard({ allow: o.allow ?? [] });
  // The allow-list decides for hosts it names (by name, address or range); the port counts.
  if (guard.hostProblem(host, h.port ?? 443) === undefined && (parseIp(host) || internalNameReason(host))) return undefined;
  const ip = parseIp(host);
  if (ip) {
    const kind = classifyAddress(ip);
    if (kind !== 'public') return fail(`the registry ${shown} is ${KIND[kind]}; push to a registry outside the cluster, or ask the provider to allow-list it`);
    return undefined;
  }
  if (/^(0[xX][0-9a-fA-F]*|[0-9]+)$/.test(host.split('.').pop() ?? '')) return fail(`the registry ${shown} ends like an IPv4 address but is not a valid one`);
  if (host === 'localhost' || host.endsWith('.localhost')) return fail(`the registry ${shown} names the host the build runs on`);
  if (host.endsWith('.svc') || host.endsWith('.cluster.local')) return fail(`the registry ${shown} is a cluster-internal Service name; push to a registry outside the cluster, or ask the provider to allow-list it`);
  if (!host.includes('.')) {
    if (h.port === undefined) return fail(`the registry ${shown} has no dot and no port: it is not a registry host (an image reference would read it as a Docker Hub namespace)`);
    return fail(`the registry ${shown} is a single-label name: the cluster resolves it through its search domains, to a Service of the namespace the build runs in`);
  }
  return undefined;
}

/**
 * Can the nodes of a hosted cluster pull a pushed image at first boot? A new machine rebases to
 * the built image before anything in the hosted cluster runs, with the credentials its ignition
 * gave it: `/var/lib/kubelet/config.json`, rendered from the HostedCluster's pull secret (the HCP
 * namespace's `pull-secret`; evidence in docs/design/hand-off.md "Image nodes can pull at first boot").
 * A push target that those credentials do not cover would leave new machines unable to join, so
 * the controller refuses it, and the webhook refuses it at admission with the same rule.
 *
 * The lookup is the container auth lookup (containers/image `pkg/docker/config`): the
 * repository, each parent namespace, then the host; URL keys mean the host; Docker Hub's
 * aliases are one host. It needs only the pull secret's *keys* (which registries and
 * repositories it has a credential for), never a credential: the controller publishes those
 * keys (`pullSecretAuthKeys`) for the webhook, which holds no Secret. Pure.
 */
export type PullCoverage = { covered: true; key: string } | { covered: false; reason: string };

/** Bounds of the published key list (a pull secret with more is not published: the webhook then admits and the controller still checks). */
export const PULL_KEYS_LIMITS = { count: 512, keyChars: 512, totalChars: 64 * 1024 } as const;

/**
 * The normalized auth keys of a `.dockerconfigjson` whose entries carry a credential, sorted and
 * deduplicated: exactly the keys `credentialFor` can answer from. An entry without a credential,
 * or with a malformed one, is left out (a lookup could not use it). Throws UserError (located,
 * never a value) when the text is not a docker config.
 */
export function pullSecretAuthKeys(pullSecret: string, where = 'the hosted cluster pull secret'): string[] {
  const cfg = parseDockerConfigJson(pullSecret, { file: where, path: '.dockerconfigjson' });
  const keys: string[] = [];
  for (const [k, { entry }] of cfg.auths) {
    try {
      if (credentialFromAuthEntry(entry, { file: where })) keys.push(k);
    } catch (e) {
      if (!(e instanceof UserError)) throw e;
    }
  }
  return [...new Set(keys)].sort();
}

/**
 * Whether `pushSpec` (`host[:port]/path/name[:tag|@digest]`) is covered by one of `keys`
 * (normalized auth keys, as `pullSecretAuthKeys` returns them). `where` names the pull secret in
 * messages; the message names the registry, the repository and the keys looked up, nothing else.
 */
export function pushTargetCoveredByKeys(pushSpec: string, keys: Iterable<string>, where = 'the hosted cluster pull secret'): PullCoverage {
  const ref = pushRef(pushSpec);
  if ('reason' in ref) return { covered: false, reason: ref.reason };
  const have = keys instanceof Set ? (keys as Set<string>) : new Set(keys);
  const wanted = authKeysFor(ref.registry, ref.repository);
  const key = wanted.find((k) => have.has(k));
  if (key !== undefined) return { covered: true, key };
  return {
    covered: false,
    reason: `${where} has no credentials for ${ref.registry}/${ref.repository} (looked up ${wanted.join(', ')}); new nodes pull the built image at first boot with it and could not join; push to a registry it covers or add one to the HostedCluster's pull secret`,
  };
}

function pushRef(pushSpec: string): { registry: string; repository: string } | { reason: string } {
  try {
    const { registry, repository } = parseReference(pushSpec);
    return { registry, repository };
  } catch (e) {
    if (e instanceof ReferenceError) return { reason: `${JSON.stringify(pushSpec)} is not an image reference: ${e.message}` };
    throw e;
  }
}

/** `pushTargetCoveredByKeys` from the `.dockerconfigjson` text itself (the controller's view). */
export function pushTargetCoveredByPullSecret(pushSpec: string, pullSecret: string | undefined, where = 'the hosted cluster pull secret'): PullCoverage {
  const ref = pushRef(pushSpec);
  if ('reason' in ref) return { covered: false, reason: ref.reason };
  if (pullSecret === undefined) return { covered: false, reason: `${where} is missing, so nodes have no credentials for ${ref.registry}` };
  let keys: string[];
  try {
    keys = pullSecretAuthKeys(pullSecret, where);
  } catch (e) {
    if (e instanceof UserError) return { covered: false, reason: e.describe() };
    throw e;
  }
  return pushTargetCoveredByKeys(pushSpec, keys, where);
}

/**
 * The published list: one normalized key a line. Undefined when the pull secret has more or
 * longer keys than `PULL_KEYS_LIMITS` allow (then nothing is published and the webhook admits).
 */
export function renderPullKeys(keys: readonly string[]): string | undefined {
  if (keys.length > PULL_KEYS_LIMITS.count || keys.some((k) => k.length > PULL_KEYS_LIMITS.keyChars || /[\s]/.test(k))) return undefined;
  const text = keys.map((k) => `${k}\n`).join('');
  return text.length > PULL_KEYS_LIMITS.totalChars ? undefined : text;
}

/** Reads the published list back (blank lines ignored); undefined when it is over the bounds. */
export function parsePullKeys(text: string): string[] | undefined {
  if (text.length > PULL_KEYS_LIMITS.totalChars) return undefined;
  const keys = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  if (keys.length > PULL_KEYS_LIMITS.count || keys.some((k) => k.length > PULL_KEYS_LIMITS.keyChars)) return undefined;
  return keys;
}
