/**
 * The fleet gate's preconditions (builder/fleet/gate.ts `preconditions`): what must hold before a
 * NodePool is held or handed a provider image, each failure a reason the fleet view shows.
 *
 * - NodeTuning enabled: with the capability disabled (HostedControlPlane spec.capabilities.disabled,
 *   copied from the HostedCluster) HyperShift does not read NTO-labelled ConfigMaps, our hand-off
 *   among them (hypershift nodepool/config.go; support/capabilities IsNodeTuningCapabilityEnabled).
 * - Pull coverage: new machines pull the image at first boot with the HostedCluster's pull secret
 *   (HCP namespace Secret `pull-secret`). The fleet reads no Secret for it: the per-HCP controller
 *   publishes that secret's auth keys (no credential) in the HCP namespace (PULL_KEYS_CONFIGMAP),
 *   which the fleet may read where our package is installed (HANDOFF_RULES), and the check is the
 *   per-HCP controller's own (pushTargetCoveredByKeys).
 * - Build capacity: a provider build Job for an architecture selects `kubernetes.io/arch: <arch>`
 *   (builder/controller/build-job.ts). The architecture is buildable when a Ready, schedulable
 *   management Node of it exists, or the provider set a placement for it (`--build-placement`,
 *   builder/fleet/placement.ts: its nodes may come up for the pending pod, an autoscaled pool), or
 *   a prebuilt provider image (--provider-image) serves every architecture (no build runs).
 *
 * Reads are cached per HCP namespace and per architecture for `cacheMs` (default 30 s): a fleet
 * of 2,000 NodePools in 1,000 HCP namespaces costs one Node list per architecture per period, and
 * one HostedControlPlane list and one ConfigMap get per HCP namespace per period.
 */
import { Kube, KubeObject, RESOURCES } from '../clusters/kube.js';
import { PULL_KEYS_CONFIGMAP } from '../api/types.js';
import { nodeTuningDisabled, readyNodesOfArch } from '../hypershift/nodepool-facts.js';
import { parsePullKeys, pushTargetCoveredByKeys } from '../registry/push-target.js';
import type { PreconditionInput, Preconditions } from './gate.js';
import type { BuildPlacement } from './placement.js';

export interface FleetPreconditionOptions {
  management: Kube;
  /** The provider images' repository (`--provider-repository`); undefined: no provider layer, no pull check. */
  repository?: string;
  /** How provider images come to be: built on management Nodes of the arch, or prebuilt (no capacity needed). */
  builds: 'nodes' | 'prebuilt' | 'none';
  /** With `builds: 'nodes'`: architectures with a provider-set placement are buildable without a Node of them now. */
  placement?: BuildPlacement;
  cacheMs?: number;
  now?: () => number;
}

export function fleetPreconditions(o: FleetPreconditionOptions): Preconditions {
  const ttl = o.cacheMs ?? 30_000;
  const now = o.now ?? (() => Date.now());
  const cache = new Map<string, { at: number; value: Promise<string | undefined> }>();
  const cached = (key: string, f: () => Promise<string | undefined>): Promise<string | undefined> => {
    const hit = cache.get(key);
    if (hit && now() - hit.at < ttl) return hit.value;
    const value = f();
    cache.set(key, { at: now(), value });
    value.catch(() => cache.delete(key));
    return value;
  };

  const nodeTuning = (ns: string) =>
    cached(`hcp/${ns}`, async () => {
      const list = await o.management.list(RESOURCES.hostedControlPlanes, { namespace: ns, keep: (h) => ({ apiVersion: h.apiVersion, kind: h.kind, metadata: { name: h.metadata.name }, spec: { capabilities: (h as { spec?: { capabilities?: unknown } }).spec?.capabilities } }) as KubeObject });
      if (list.items.length === 0) return `no HostedControlPlane in ${ns}: cannot tell whether HyperShift reads the hand-off (NodeTuning capability)`;
      if (nodeTuningDisabled(list.items[0] as never)) return `the HostedCluster disables the NodeTuning capability (HostedControlPlane ${ns}/${list.items[0]!.metadata.name} spec.capabilities.disabled): HyperShift ignores the hand-off ConfigMap`;
      return undefined;
    });

  const pullCoverage = (ns: string, repository: string) =>
    cached(`pull/${ns}`, async () => {
      const where = `the HostedCluster pull secret (Secret ${ns}/pull-secret)`;
      const cm = await o.management.get<KubeObject & { data?: Record<string, string> }>(RESOURCES.configMaps, PULL_KEYS_CONFIGMAP.name, ns);
      if (!cm) return `cannot tell whether ${where} covers ${repository}: the per-HCP controller has not published its auth keys (ConfigMap ${ns}/${PULL_KEYS_CONFIGMAP.name})`;
      const text = cm.data?.[PULL_KEYS_CONFIGMAP.key];
      const keys = text === undefined ? undefined : parsePullKeys(text);
      if (keys === undefined) return `cannot tell whether ${where} covers ${repository}: ${(cm.data?.[PULL_KEYS_CONFIGMAP.unavailableKey] ?? 'its published auth keys are unreadable').slice(0, 200)}`;
      const c = pushTargetCoveredByKeys(repository, keys, where);
      return c.covered ? undefined : c.reason;
    });

  const capacity = (arch: string) =>
    cached(`arch/${arch}`, async () => {
      const list = await o.management.list(RESOURCES.nodes, { labelSelector: `kubernetes.io/arch=${arch}` });
      return readyNodesOfArch(list.items as never, arch).length > 0
        ? undefined
        : `no Ready, schedulable management cluster Node of architecture ${arch} (kubernetes.io/arch=${arch}) to run the provider build on, no build placement for ${arch} (--build-placement) and no prebuilt provider image`;
    });

  return async (i: PreconditionInput) => {
    const ns = i.hcpNamespace;
    const nt = await nodeTuning(ns);
    if (nt) return nt;
    if (o.repository !== undefined) {
      const pull = await pullCoverage(ns, o.repository);
      if (pull) return pull;
    }
    if (o.builds === 'nodes' && Object.hasOwn(o.placement ?? {}, i.key.arch)) return undefined;
    if (o.builds === 'nodes' && /^[a-z0-9]{1,16}$/.test(i.key.arch)) return capacity(i.key.arch);
    if (o.builds === 'nodes') return `NodePool spec.arch ${JSON.stringify(i.key.arch.slice(0, 32))} is not an architecture name`;
    return undefined;
  };
}
