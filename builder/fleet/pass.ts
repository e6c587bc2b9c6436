/**
 * One pass of the fleet component's upgrade gate over every NodePool on the management cluster:
 * list them once (cluster-wide), and settle the gate for each. The running component drives this
 * from watches of NodePools and hand-off ConfigMaps (builder/fleet/run.ts), and resyncs
 * from the same listing (`listGateTargets`).
 *
 * The HCP namespace of a NodePool is HyperShift's own rule: `<NodePool namespace>-<clusterName
 * with dots as dashes>` (hypershift-operator/controllers/manifests/manifests.go
 * HostedControlPlaneNamespace; the NodePool controller calls it with `nodePool.Spec.ClusterName`,
 * nodepool_controller.go:212).
 */
import { Kube } from '../clusters/kube.js';
import { GateOptions, GateStep, NODEPOOLS, settleGate } from './gate.js';

export function hcpNamespaceOf(nodePoolNamespace: string, clusterName: string): string {
  return `${nodePoolNamespace}-${clusterName.replace(/\./g, '-')}`;
}

export interface FleetPassOptions extends Omit<GateOptions, 'nodePoolNamespace' | 'nodePoolName' | 'hcpNamespace'> {
  management: Kube;
  /** NodePools settled at once (default 8): one slow registry answer does not stall the fleet. */
  concurrency?: number;
}

export interface FleetPassResult {
  /** `<namespace>/<name>` → the last step (done) or the error that stopped it. */
  nodePools: Map<string, GateStep | { error: string }>;
}

/** A NodePool the gate looks at: its key and its HCP namespace (none without a spec.clusterName). */
export function gateTargetOf(np: { metadata: { name?: string; namespace?: string }; spec?: unknown }): { key: string; namespace: string; name: string; hcpNamespace: string } | undefined {
  const clusterName = (np.spec as { clusterName?: unknown } | undefined)?.clusterName;
  const { name, namespace } = np.metadata;
  if (typeof clusterName !== 'string' || !clusterName || !name || !namespace) return undefined;
  return { key: `${namespace}/${name}`, namespace, name, hcpNamespace: hcpNamespaceOf(namespace, clusterName) };
}

/** Every NodePool the gate looks at, from one cluster-wide list (the pass's and the running component's resync). */
export async function listGateTargets(management: Kube): Promise<NonNullable<ReturnType<typeof gateTargetOf>>[]> {
  const list = await management.list(NODEPOOLS, {
    // Only what the pass needs: a NodePool's spec (platform, config, …) is not kept.
    keep: (np) => ({ apiVersion: np.apiVersion, kind: np.kind, metadata: { name: np.metadata.name, namespace: np.metadata.namespace }, spec: { clusterName: (np as { spec?: { clusterName?: string } }).spec?.clusterName } }),
  });
  return list.items.map(gateTargetOf).filter((t): t is NonNullable<typeof t> => t !== undefined);
}

export async function fleetPass(o: FleetPassOptions): Promise<FleetPassResult> {
  const todo = await listGateTargets(o.management);
  const out = new Map<string, GateStep | { error: string }>();
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const { namespace: ns, name, hcpNamespace } = todo[next++]!;
      try {
        const { steps } = await settleGate({ ...o, nodePoolNamespace: ns, nodePoolName: name, hcpNamespace });
        out.set(`${ns}/${name}`, steps[steps.length - 1]);
      } catch (e) {
        out.set(`${ns}/${name}`, { error: (e as Error).message });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, o.concurrency ?? 8) }, worker));
  return { nodePools: out };
}
