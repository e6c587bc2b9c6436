/**
 * A fleet of HCP namespaces with PKO objects in the states `pkogen status` must tell apart, as
 * package-operator writes them (conditions, annotations, labels, ownerReferences).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import type { ApiTestServer, KubeObject } from '../kube/api-server.js';

/** ../shared of the project root, found from here whether run from test/ (jest) or dist/test/ (bench). */
function crdDir(): string {
  let d = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++, d = path.dirname(d)) {
    const c = path.join(d, 'shared', 'reference', 'crds', 'pko');
    if (existsSync(c)) return c;
  }
  throw new Error('cannot find ../shared/reference/crds/pko');
}

export const CRD_DIR = crdDir();
export const crdFiles = () => readdirSync(CRD_DIR).filter((f) => f.endsWith('.yaml')).sort().map((f) => path.join(CRD_DIR, f));

export function registerPkoCrds(server: ApiTestServer): void {
  for (const f of crdFiles()) server.registerCRD(load(readFileSync(f, 'utf8')) as KubeObject);
}

export const NOW = Date.now();
/** 3h30m ago: far enough from a minute boundary that the printed age is stable. */
export const SINCE = new Date(NOW - (3 * 3600 + 30 * 60 + 20) * 1000).toISOString().replace(/\.\d+Z$/, 'Z');

export const D1 = 'sha256:' + '1'.repeat(64);
export const D2 = 'sha256:' + '2'.repeat(64);
export const IMAGE = `quay.io/example/on-cluster-build-package@${D1}`;
export const OLD_IMAGE = `quay.io/example/on-cluster-build-package@${D2}`;

export type Scenario = 'available' | 'progressing' | 'unpack' | 'invalid' | 'paused' | 'drift' | 'preflight' | 'collision' | 'hosted';

const c = (type: string, status: string, reason: string, message: string, generation = 1) => ({ type, status, reason, message, lastTransitionTime: SINCE, observedGeneration: generation });

export const PROBE_MESSAGE =
  'Phase "deploy" failed: apps Deployment hcp-{i}/machine-os-builder: Available=False, replicas not updated 0/1, batch Job hcp-{i}/warmup: not found';
export const PREFLIGHT_MESSAGE = 'Phase "rbac", rbac.authorization.k8s.io/v1, Kind=ClusterRole /machine-os-builder: must be namespaced';
export const COLLISION_MESSAGE = 'refusing adoption, object  /v1, Kind=ConfigMap hcp-{i}/settings not owned by previous owner';

/** Seeds one namespace; returns the objects created (for schema checks). */
export function seedNamespace(server: ApiTestServer, ns: string, scenario: Scenario, i: number): KubeObject[] {
  const name = 'on-cluster-build';
  const uid = (k: string) => `${k}-${ns}`;
  const image = scenario === 'drift' ? OLD_IMAGE : IMAGE;
  const sub = (s: string) => s.replace(/\{i\}/g, String(i).padStart(2, '0'));
  const pkgConds = {
    available: [c('Available', 'True', 'Available', 'Latest Revision is Available.'), c('Unpacked', 'True', 'UnpackSuccess', 'Unpack job succeeded'), c('Progressing', 'False', 'Idle', 'Update concluded.')],
    drift: [c('Available', 'True', 'Available', 'Latest Revision is Available.'), c('Unpacked', 'True', 'UnpackSuccess', 'Unpack job succeeded')],
    hosted: [c('Available', 'False', 'ObjectSetUnavailable', 'Latest ObjectSet is not available.'), c('Unpacked', 'True', 'UnpackSuccess', 'Unpack job succeeded')],
    progressing: [c('Available', 'False', 'ObjectSetUnavailable', 'Latest ObjectSet is not available.'), c('Progressing', 'True', 'RolloutInProgress', 'Progressing to a new ObjectSet.'), c('Unpacked', 'True', 'UnpackSuccess', 'Unpack job succeeded')],
    preflight: [c('Available', 'False', 'ObjectSetUnavailable', 'Latest ObjectSet is not available.'), c('Unpacked', 'True', 'UnpackSuccess', 'Unpack job succeeded')],
    collision: [c('Available', 'False', 'ObjectSetUnavailable', 'Latest ObjectSet is not available.'), c('Unpacked', 'True', 'UnpackSuccess', 'Unpack job succeeded')],
    unpack: [c('Unpacked', 'False', 'ImagePullBackOff', 'pulling image: GET https://quay.io/v2/example/on-cluster-build-package/manifests/sha256:1111: MANIFEST_UNKNOWN')],
    invalid: [c('Invalid', 'True', 'LoadError', 'Package validation: Phase name not found in manifest in deploy/job.yaml idx 0: phase "setup"'), c('Unpacked', 'True', 'UnpackSuccess', 'Unpack job succeeded')],
    paused: [c('Paused', 'True', 'Paused', 'Package is paused.'), c('Available', 'True', 'Available', 'Latest Revision is Available.'), c('Unpacked', 'True', 'UnpackSuccess', 'Unpack job succeeded')],
  }[scenario];
  const created: KubeObject[] = [];
  const put = (o: KubeObject) => {
    server.store.put(o);
    created.push(o);
  };
  server.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  put({
    apiVersion: 'package-operator.run/v1alpha1',
    kind: 'Package',
    metadata: { name, namespace: ns, uid: uid('pkg'), labels: { 'hypershift.openshift.io/hosted-control-plane': 'true' } },
    spec: { image, config: { replicas: 1 } },
    status: { conditions: pkgConds, ...(scenario === 'unpack' ? {} : { revision: scenario === 'progressing' ? 2 : 1, unpackedHash: 'abc' }) },
  });
  if (scenario === 'unpack' || scenario === 'invalid') return created;
  const annotations = { 'package-operator.run/package-source-image': image, 'package-operator.run/package-config': '{"replicas":1,"pullSecret":"do-not-print-me"}' };
  const labels = { 'package-operator.run/instance': name, 'package-operator.run/package': name };
  put({
    apiVersion: 'package-operator.run/v1alpha1',
    kind: 'ObjectDeployment',
    metadata: { name, namespace: ns, uid: uid('od'), labels, annotations, ownerReferences: [{ apiVersion: 'package-operator.run/v1alpha1', kind: 'Package', name, uid: uid('pkg'), controller: true }] },
    spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { phases: [{ name: 'deploy' }] } } },
    status: { revision: 1 },
  });
  const objectSet = (rev: number, state: string, avail: ReturnType<typeof c>, img: string) => ({
    apiVersion: 'package-operator.run/v1alpha1',
    kind: 'ObjectSet',
    metadata: {
      name: `${name}-${rev === 1 ? '6f7d8c9b5' : '7c6b5d4f8'}`,
      namespace: ns,
      uid: uid(`os${rev}`),
      labels: { ...labels, 'package-operator.run/object-deployment': name },
      annotations: { ...annotations, 'package-operator.run/package-source-image': img, 'package-operator.run/hash': String(rev) },
      ownerReferences: [{ apiVersion: 'package-operator.run/v1alpha1', kind: 'ObjectDeployment', name, uid: uid('od'), controller: true }],
    },
    spec: { revision: rev, lifecycleState: state, phases: [{ name: 'deploy' }] },
    status: { conditions: [avail], revision: rev },
  });
  const ok = c('Available', 'True', 'Available', 'Object is available and passes all probes.');
  if (scenario === 'progressing') {
    put(objectSet(1, 'Archived', ok, OLD_IMAGE));
    put(objectSet(2, 'Active', c('Available', 'False', 'ProbeFailure', sub(PROBE_MESSAGE)), IMAGE));
  } else if (scenario === 'preflight') {
    put(objectSet(1, 'Active', c('Available', 'False', 'PreflightError', PREFLIGHT_MESSAGE), image));
  } else if (scenario === 'collision') {
    put(objectSet(1, 'Active', c('Available', 'False', 'CollisionDetected', sub(COLLISION_MESSAGE)), image));
  } else if (scenario === 'hosted') {
    put(objectSet(1, 'Active', c('Available', 'False', 'ProbeFailure', 'Phase "hosted-cluster" failed: no status reported'), image));
  } else {
    put(objectSet(1, scenario === 'paused' ? 'Paused' : 'Active', ok, image));
  }
  if (scenario === 'hosted') {
    put({
      apiVersion: 'package-operator.run/v1alpha1',
      kind: 'ObjectSetPhase',
      metadata: {
        name: `${name}-6f7d8c9b5-hosted-cluster`,
        namespace: ns,
        uid: uid('osp'),
        labels: { 'package-operator.run/phase-class': 'hosted-cluster' },
        ownerReferences: [{ apiVersion: 'package-operator.run/v1alpha1', kind: 'ObjectSet', name: `${name}-6f7d8c9b5`, uid: uid('os1'), controller: true }],
      },
      spec: { revision: 1, objects: [], availabilityProbes: [] },
      status: { conditions: [c('Available', 'False', 'ProbeFailure', 'Phase "hosted-cluster" failed: apps Deployment openshift-machine-config-operator/machine-os-builder: not found')] },
    });
  }
  return created;
}

/** 50 namespaces: one of each special state, the rest available. */
export const SPECIAL: Record<number, Scenario> = { 3: 'progressing', 7: 'unpack', 11: 'invalid', 13: 'paused', 17: 'drift', 19: 'preflight', 23: 'collision', 29: 'hosted' };

export function seedFleet(server: ApiTestServer, count = 50): KubeObject[] {
  const out: KubeObject[] = [];
  for (let i = 0; i < count; i++) out.push(...seedNamespace(server, `hcp-${String(i).padStart(2, '0')}`, SPECIAL[i] ?? 'available', i));
  return out;
}
