/**
 * One pass of the fleet component's upgrade gate over every NodePool on the management cluster:
 * list them once (cluster-wide), and settle the gate for each. The running component drives this
 * from watches of NodePools and hand-off ConfigMaps (not in this branch); a pass is also its resync.
 *
 * The HCP namespace of a NodePool is HyperShift's own rule: `<NodePool namespace>-<clusterName
 * with dots as dashes>` (hypershift-operator/controllers/manifests/manifests.go
 * HostedControlPlaneNamespace; the NodePool controller calls it with `nodePool.Spec.ClusterName`,
 * nodepool_controller.go:212).
 */
import { Kube } from '../kube.js';
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

export async function fleetPass(o: FleetPassOptions): Promise<FleetPassResult> {
  const list = await o.management.list(NODEPOOLS, {
    // Only what the pass needs: a NodePool's spec (platform, config, …) is not kept.
    keep: (np) => ({ apiVersion: np.apiVersion, kind: np.kind, metadata: { name: np.metadata.name, namespace: np.metadata.namespace }, spec: { clusterName: (np as { spec?: { clusterName?: string } }).spec?.clusterName } }),
  });
  const todo = list.items.filter((np) => typeof (np as { spec?: { clusterName?: unknown } }).spec?.clusterName === 'string');
  const out = new Map<string, GateStep | { error: string }>();
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const np = todo[next++] as { metadata: { name?: string; namespace?: string }; spec: { clusterName: string } };
      const ns = np.metadata.namespace!;
      const name = np.metadata.name!;
      try {
        const { steps } = await settleGate({ ...o, nodePoolNamespace: ns, nodePoolName: name, hcpNamespace: hcpNamespaceOf(ns, np.spec.clusterName) });
        out.set(`${ns}/${name}`, steps[steps.length - 1]);
      } catch (e) {
        out.set(`${ns}/${name}`, { error: (e as Error).message });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, o.concurrency ?? 8) }, worker));
  return { nodePools: out };
}
