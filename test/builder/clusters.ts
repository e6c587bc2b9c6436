/**
 * The two clusters the controller talks to, as the project's API test server plays them: the
 * management cluster (the controller's ServiceAccount with exactly the package's management Role
 * in the HCP namespace; Cluster API objects and HostedControlPlanes served) and the hosted cluster
 * (the controller with the package's ClusterRole and one Role per hosted namespace; our CRDs and
 * Nodes served). Shared by the end-to-end test and the controller bench, which load the server
 * differently (from source, from pkogen's build), so it is passed in.
 */
import type { ApiTestServer, startApiServer as StartApiServer } from '../../pkogen/test/kube/api-server.js';
import { nodePoolOSBuildCRD, nodePoolOSConfigCRD } from '../../builder/api/crds.js';
import { CONTROLLER_USERNAME } from '../../builder/api/types.js';
import { HOSTED_NAMESPACED_RULES, HOSTED_RULES, MANAGEMENT_RULES, type PolicyRule } from '../../builder/policy/rbac.js';

/** The controller's identity on the management cluster (its ServiceAccount in the HCP namespace). */
export const managementUser = (ns: string) => `system:serviceaccount:${ns}:on-cluster-build-controller`;

const copy = (r: PolicyRule) => ({ ...r, apiGroups: [...r.apiGroups], resources: [...r.resources], verbs: [...r.verbs], resourceNames: r.resourceNames ? [...r.resourceNames] : undefined });
/** Rules granted by a Role in `ns`. */
export const withNamespace = (rules: readonly PolicyRule[], ns: string) => rules.map((r) => ({ ...copy(r), namespaces: [ns] }));
/** Rules granted by a ClusterRole. */
export const clusterWide = (rules: readonly PolicyRule[]) => rules.map(copy);

/** `hostedExtra`: rules the controller's hosted identity gets besides the tables (a test of a Role of its own, such as Events). */
export async function startClusters(startApiServer: typeof StartApiServer, ns: string, hostedExtra: ReturnType<typeof withNamespace> = []): Promise<{ mgmt: ApiTestServer; hosted: ApiTestServer }> {
  const mgmt = await startApiServer({
    identities: [
      { name: managementUser(ns), token: 'mgmt-controller-token', rules: withNamespace(MANAGEMENT_RULES, ns) },
      { name: 'system:admin', token: 'mgmt-admin-token' },
    ],
  });
  const hosted = await startApiServer({
    identities: [
      { name: CONTROLLER_USERNAME, token: 'hosted-controller-token', rules: [...clusterWide(HOSTED_RULES), ...Object.entries(HOSTED_NAMESPACED_RULES).flatMap(([n, rs]) => withNamespace(rs, n)), ...hostedExtra] },
      { name: 'system:admin', token: 'hosted-admin-token' },
    ],
  });
  hosted.registerCRD(nodePoolOSConfigCRD());
  hosted.registerCRD(nodePoolOSBuildCRD());
  hosted.registerType({ group: '', version: 'v1', kind: 'Node', plural: 'nodes', namespaced: false, status: true });
  for (const kind of ['MachineDeployment', 'MachineSet', 'Machine']) mgmt.registerType({ group: 'cluster.x-k8s.io', version: 'v1beta1', kind, plural: `${kind.toLowerCase()}s`, namespaced: true, status: true });
  mgmt.registerType({ group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'HostedControlPlane', plural: 'hostedcontrolplanes', namespaced: true, status: true });
  return { mgmt, hosted };
}
