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
import { authKeysFor, parseReference, ReferenceError } from 'pkogen/oci';
import { UserError } from 'pkogen/model';
import { credentialFor, parseDockerConfigJson } from './dockerconfig.js';

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
 * namespace's `pull-secret`; evidence in docs/design.md "Image nodes can pull at first boot").
 * A push target that those credentials do not cover would leave new machines unable to join, so
 * the controller refuses it, and the webhook can refuse it with the same rule.
 *
 * The lookup is the container auth lookup (containers/image `pkg/docker/config`): the
 * repository, each parent namespace, then the host; URL keys mean the host; Docker Hub's
 * aliases are one host. Pure; never puts a credential in its answer.
 */
export type PullCoverage = { covered: true; key: string } | { covered: false; reason: string };

/**
 * Whether `pushSpec` (`host[:port]/path/name[:tag|@digest]`) is covered by an entry of the
 * `.dockerconfigjson` text `pullSecret`. `where` names the pull secret in messages.
 */
export function pushTargetCoveredByPullSecret(pushSpec: string, pullSecret: string | undefined, where = 'the hosted cluster pull secret'): PullCoverage {
  let registry: string;
  let repository: string;
  try {
    ({ registry, repository } = parseReference(pushSpec));
  } catch (e) {
    if (e instanceof ReferenceError) return { covered: false, reason: `${JSON.stringify(pushSpec)} is not an image reference: ${e.message}` };
    throw e;
  }
  if (pullSecret === undefined) return { covered: false, reason: `${where} is missing, so nodes have no credentials for ${registry}` };
  try {
    const cfg = parseDockerConfigJson(pullSecret, { file: where, path: '.dockerconfigjson' });
    if (credentialFor(cfg, registry, repository)) {
      const key = authKeysFor(registry, repository).find((k) => cfg.auths.has(k))!;
      return { covered: true, key };
    }
  } catch (e) {
    if (e instanceof UserError) return { covered: false, reason: e.describe() };
    throw e;
  }
  return {
    covered: false,
    reason: `${where} has no credentials for ${registry}/${repository} (looked up ${authKeysFor(registry, repository).join(', ')}); new nodes pull the built image at first boot with it and could not join; push to a registry it covers or add one to the HostedCluster's pull secret`,
  };
}
