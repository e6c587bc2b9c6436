/**
 * The management cluster the fleet process's whole-process tests (fleet-run, observe-fleet,
 * observe-rollout) run it against, on the API test server: the fleet ServiceAccount with exactly
 * its RBAC (cluster-wide rules, the hand-off Role in each HCP namespace, its own and the build
 * namespace's Roles), HyperShift's kinds registered, the namespaces made; and what they share of
 * names, releases and the fake build's image.
 */
import { createHash } from 'node:crypto';
import * as net from 'node:net';
import { ApiTestServer, startApiServer } from '../../pkogen/test/kube/api-server.js';
import { hcpNamespaceOf } from '../../builder/fleet/pass.js';
import { FLEET_BUILD_NAMESPACE, FLEET_BUILD_NAMESPACE_RULES, FLEET_CLUSTER_RULES, FLEET_NAMESPACE_RULES, HANDOFF_RULES } from '../../builder/fleet/rbac.js';
import { clusterWide, withNamespace } from './clusters.js';

export const D = (c: string) => 'sha256:' + c.repeat(64);
export const R1 = `quay.io/openshift-release-dev/ocp-release@${D('1')}`;
export const R2 = `quay.io/openshift-release-dev/ocp-release@${D('2')}`;
export const NS = 'on-cluster-build-fleet';
export const FLEET_USER = `system:serviceaccount:${NS}:fleet`;
export const REPO = 'quay.example.com/provider/os';
/** The fake build's image for a key: its digest says which release and arch it was built for. */
export const imageOfKey = (k: { releaseDigest: string; arch: string }) => `${REPO}@sha256:${createHash('sha256').update(`layered ${k.releaseDigest} ${k.arch}`).digest('hex')}`;

/** A port free on 127.0.0.1 now (for --metrics-port, which takes no 0). */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });

/**
 * Starts the API test server for HostedClusters `clusters` (NodePools in namespace `clusters`,
 * HCP namespaces `clusters-<c>`): the fleet user with `clusterRules` (default FLEET_CLUSTER_RULES)
 * and `system:admin`, HyperShift's NodePool, HostedControlPlane and HostedCluster kinds, and the
 * namespaces. Objects are the caller's.
 */
export async function startFleetApi(clusters: string[], clusterRules = FLEET_CLUSTER_RULES): Promise<ApiTestServer> {
  const mgmt = await startApiServer({
    identities: [
      { name: FLEET_USER, token: 'fleet-token', rules: [...clusterWide(clusterRules), ...clusters.flatMap((c) => withNamespace(HANDOFF_RULES, hcpNamespaceOf('clusters', c))), ...withNamespace(FLEET_NAMESPACE_RULES, NS), ...withNamespace(FLEET_BUILD_NAMESPACE_RULES, FLEET_BUILD_NAMESPACE)] },
      { name: 'system:admin', token: 'admin-token' },
    ],
  });
  // The rollout policy's canary selectors read HostedCluster labels.
  for (const [kind, plural] of [['NodePool', 'nodepools'], ['HostedControlPlane', 'hostedcontrolplanes'], ['HostedCluster', 'hostedclusters']] as const) mgmt.registerType({ group: 'hypershift.openshift.io', version: 'v1beta1', kind, plural, namespaced: true, status: true });
  for (const n of ['clusters', NS, ...clusters.map((c) => hcpNamespaceOf('clusters', c))]) mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: n } });
  return mgmt;
}
