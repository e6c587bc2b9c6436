/**
 * One HCP namespace on the API test servers, as the controller's tests that run it whole
 * (controller-events, observe-hcp, e2e) set it up: the management side (its Namespace, pull
 * secret, HostedControlPlane, per NodePool a token Secret and a MachineDeployment) and the hosted
 * side (our namespaces, the pull and push secrets, Ready amd64 Nodes, per NodePool a
 * NodePoolOSConfig), and the reconciler options they share.
 */
import type { ApiTestServer } from '../../pkogen/test/kube/api-server.js';
import type { ReconcilerOptions } from '../../builder/controller/options.js';
import { b64, dockerConfigJson, pullSecret, tokenSecret } from './fixtures.js';

export const NS = 'clusters-banana';
export const HOSTED_NS = 'openshift-on-cluster-build';
export const BUILD_NS = 'on-cluster-build-jobs';
export const PUSH_HOST = 'quay.example.com';
export const GV = 'on-cluster-build.pkogen.io/v1alpha1';
export const DIGEST = (c: string) => 'sha256:' + c.repeat(64);
export const BASE = `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${DIGEST('e')}`;
export const CONTAINERFILE = 'FROM configs AS final\nRUN echo layered > /etc/layered\n';

/** What every whole-controller test runs with: no rate limit, two builds kept, an hour's deadline. */
export const RECONCILER_DEFAULTS = {
  pullSecretName: 'pull-secret',
  activeDeadlineSeconds: 3600,
  backoffLimit: 2,
  historyLimit: 2,
  userNamespaces: false,
  minRebuildIntervalSeconds: 0,
} as const satisfies Partial<ReconcilerOptions>;

/** Puts the HCP namespace `NS` (release `release`) and the NodePools `pools`, each with a config, on both sides. */
export function seedHcp(mgmt: ApiTestServer, hosted: ApiTestServer, o: { release: string; pools: string[]; nodes: number; hostedNamespaces?: string[] }): void {
  mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  mgmt.store.put(pullSecret(NS, 'pull-secret', JSON.stringify({ auths: { 'quay.io': { auth: b64('hcp:hcp-password') }, [PUSH_HOST]: { auth: b64('nodes:nodes-password') } } })));
  mgmt.store.put({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedControlPlane', metadata: { name: 'banana', namespace: NS }, spec: { releaseImage: o.release } });
  for (const ns of [HOSTED_NS, BUILD_NS, 'openshift-config', ...(o.hostedNamespaces ?? [])]) hosted.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  hosted.store.put(pullSecret('openshift-config', 'pull-secret', dockerConfigJson('quay.io', 'hosted-pull', 'hosted-pull-password')));
  hosted.store.put(pullSecret(HOSTED_NS, 'push-creds', dockerConfigJson(PUSH_HOST, 'robot', 'push-password')));
  for (let n = 1; n <= o.nodes; n++) hosted.store.put({ apiVersion: 'v1', kind: 'Node', metadata: { name: `ip-10-0-1-${n}`, labels: { 'kubernetes.io/arch': 'amd64' } }, spec: {}, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
  for (const name of o.pools) {
    const key = `clusters/${name}`;
    mgmt.store.put(tokenSecret({ namespace: NS, nodePoolNamespace: 'clusters', nodePool: name, hash: '1a2b3c4d', release: o.release, config: 'kind: MachineConfig\n', created: '2026-11-23T09:00:00Z' }));
    mgmt.store.put({
      apiVersion: 'cluster.x-k8s.io/v1beta1',
      kind: 'MachineDeployment',
      metadata: { name: `banana-${name}`, namespace: NS, annotations: { 'hypershift.openshift.io/nodePool': key, 'capacity.cluster-autoscaler.kubernetes.io/labels': 'kubernetes.io/arch=amd64' } },
      spec: { template: { metadata: { annotations: { 'hypershift.openshift.io/nodePool': key } } } },
    });
    hosted.store.put(nodePoolOSConfig(name));
  }
}

/** A config for NodePool `name` pushing to `PUSH_HOST` with the push-creds Secret; `extra` adds to its spec. */
export function nodePoolOSConfig(name: string, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: GV,
    kind: 'NodePoolOSConfig',
    metadata: { name },
    spec: {
      nodePool: { name },
      imageBuilder: { imageBuilderType: 'Job' },
      renderedImagePushSecret: { name: 'push-creds' },
      renderedImagePushSpec: `${PUSH_HOST}/layered/${name}:latest`,
      containerFile: [{ containerfileArch: 'NoArch', content: CONTAINERFILE }],
      ...extra,
    },
  };
}

/** Reads of the hosted side the tests make (the server as it is when called): a config, its build Job, a condition. */
export function hostedReads(hosted: () => ApiTestServer) {
  return {
    config: (name: string) => hosted().store.get({ apiVersion: GV, kind: 'NodePoolOSConfig', name })!,
    jobOf: (name: string) => hosted().store.list('batch/v1', 'Job', BUILD_NS).find((j) => j.metadata!.labels['on-cluster-build.pkogen.io/nodepoolosconfig'] === name)!,
    cond: (o: any, type: string) => (o?.status?.conditions ?? []).find((c: any) => c.type === type),
  };
}
