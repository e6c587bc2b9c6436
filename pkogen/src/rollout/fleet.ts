/**
 * A model of the clusters a rollout passes through, for simulate: hive shard ClusterDeployments,
 * the ACM hubs among them (service clusters) with their ManagedClusters, and the namespaces of
 * each management cluster. The default fleet is the smallest one that shows every selection
 * step: a service cluster and a management cluster on the shard, a management and a hosted
 * cluster on the hub, and next to the HCP namespaces a few that must not be selected.
 */
import { createHash } from 'node:crypto';
import { CLUSTER_TYPE_LABEL, HCP_NAMESPACE_LABEL, MANAGEMENT_CLUSTER_LABEL } from './generate.js';
import type { Labels } from './selectors.js';

export interface FleetObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Labels };
  data?: Record<string, string>;
  [k: string]: unknown;
}

export interface FleetNamespace {
  name: string;
  labels: Labels;
  terminating?: boolean;
  /** Objects in the namespace that ObjectTemplate sources can read. */
  objects?: FleetObject[];
  /** The HostedCluster this HCP namespace belongs to (PKO environment.hyperShift.hostedCluster). */
  hostedCluster?: { name: string; namespace: string; labels?: Labels; annotations?: Record<string, string> };
}

export interface FleetManagedCluster {
  name: string;
  labels: Labels;
  namespaces: FleetNamespace[];
  clusterSets?: string[];
}

export interface FleetClusterDeployment {
  name: string;
  namespace: string;
  labels: Labels;
  /** Set for ACM hubs: the ManagedClusters registered there. */
  managedClusters?: FleetManagedCluster[];
}

export interface Fleet {
  clusterDeployments: FleetClusterDeployment[];
}

function hex(s: string, n: number): string {
  return createHash('sha256').update(s).digest('hex').slice(0, n);
}

/** A deterministic stand-in for the management cluster's service CA bundle. */
export function fakeServiceCA(cluster: string): string {
  const body = Buffer.from(`pkogen simulate service CA of ${cluster} ${hex(cluster, 32)}`).toString('base64');
  return `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`;
}

/** `N` → OSD-style HCP namespace names; `a,b` → those names. */
export function hcpNamespaceNames(spec: string | number, env = 'staging'): string[] {
  if (typeof spec === 'number' || /^\d+$/.test(spec)) {
    const n = Number(spec);
    const width = String(Math.max(n, 1)).length;
    return Array.from({ length: n }, (_, i) => {
      const id = String(i + 1).padStart(width, '0');
      return `ocm-${env}-${hex(`cluster-${id}`, 32)}-hcp-${id}`;
    });
  }
  return spec.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

export function hcpNamespace(name: string, cluster: string): FleetNamespace {
  // HCP namespace = <HostedCluster namespace>-<HostedCluster name>; on OSD ocm-<env>-<id>-<name>.
  const m = /^(ocm-[a-z]+-[a-z0-9]+)-(.+)$/.exec(name);
  const hostedCluster = m ? { name: m[2], namespace: m[1] } : { name, namespace: 'clusters' };
  return {
    name,
    labels: { [HCP_NAMESPACE_LABEL]: 'true', 'kubernetes.io/metadata.name': name },
    hostedCluster,
    objects: [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'openshift-service-ca.crt', namespace: name },
        data: { 'service-ca.crt': fakeServiceCA(cluster) },
      },
    ],
  };
}

export function defaultFleet(hcpNamespaces: string[]): Fleet {
  const mc = 'mc-01';
  const plain = (name: string): FleetNamespace => ({ name, labels: { 'kubernetes.io/metadata.name': name } });
  return {
    clusterDeployments: [
      {
        name: 'sc-01',
        namespace: 'uhc-production-sc-01',
        labels: { [CLUSTER_TYPE_LABEL]: 'service-cluster', 'api.openshift.com/managed': 'true' },
        managedClusters: [
          {
            name: mc,
            labels: { [MANAGEMENT_CLUSTER_LABEL]: 'true' },
            clusterSets: ['global'],
            namespaces: [plain('default'), plain('openshift-monitoring'), plain('ocm-staging-hostedclusters'), ...hcpNamespaces.map((n) => hcpNamespace(n, mc))],
          },
          { name: 'hc-01', labels: { 'hypershift.open-cluster-management.io/hosted-cluster': 'true' }, clusterSets: ['global'], namespaces: [plain('default')] },
        ],
      },
      { name: mc, namespace: 'uhc-production-mc-01', labels: { [CLUSTER_TYPE_LABEL]: 'management-cluster', 'api.openshift.com/managed': 'true' } },
    ],
  };
}
