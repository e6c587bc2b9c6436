/**
 * The fleet package's CEL (resources/fleet/objects.ts): the two ValidatingAdmissionPolicies that
 * narrow the fleet ServiceAccount's NodePool `patch` and hand-off `update`, and the mutating
 * webhook's matchCondition. Evaluated with @bufbuild/cel (a CEL-spec evaluator; pkogen uses it
 * for PKO's CEL) over plain JSON maps, which is what the apiserver hands a VAP: its filter turns
 * object and oldObject into unstructured maps (k8s.io/apiserver admission/plugin/cel filter.go
 * objectToResolveVal). What this does NOT execute: a real apiserver's admission chain (binding
 * selection, validationActions, the CEL cost budget, cel-go's Kubernetes libraries — none used).
 *
 * The positive cases are not hand-written: every write the real gate (builder/fleet/gate.ts)
 * makes on the API test server through a release bump, a hold, a hand-off, a lift and a timeout
 * is recorded as (oldObject, object) and must be admitted.
 */
import { celEnv, isCelError, parse, plan, type CelInput } from '@bufbuild/cel';
import { ApiTestServer, startApiServer } from '../../pkogen/test/kube/api-server.js';
import { Kube, KubeObject } from '../../builder/clusters/kube.js';
import { FLEET_CLUSTER_RULES, HANDOFF_RULES } from '../../builder/fleet/rbac.js';
import { admitNodePoolUpdate, GateOptions, HANDOFF_RELEASE_ANNOTATION, HELD_SINCE_ANNOTATION, ImageState, NODEPOOLS, PAUSED_UNTIL_ANNOTATION, settleGate } from '../../builder/fleet/gate.js';
import { handoffName, PROVIDER_IMAGES_CONFIGMAP, WANTED_RELEASE_ANNOTATION } from '../../builder/controller/handoff.js';
import { providerHandoff, tenantHandoff } from '../builder/fleet-fixtures.js';
import { CREATE_POLICY, HANDOFF_POLICY, MAX_HOLD_TEMPLATE, NODEPOOL_POLICY, ONLY_FLEET, RELEASE_CHANGED, type PolicySpec } from '../../resources/fleet/objects.js';
import { FLEET_USERNAME } from '../../resources/fleet/identity.js';
import { fleetDefinition } from '../../resources/fleet/fleet.js';

const env = celEnv();
function toCel(v: unknown): CelInput {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return v.map(toCel) as CelInput;
  if (typeof v === 'object') return new Map(Object.entries(v as object).map(([k, x]) => [k, toCel(x)])) as unknown as CelInput;
  return v as CelInput;
}
/** PKO renders the package's maxHoldSeconds into the NodePool policy; the tests use the default. */
const MAX_HOLD = 3600;
function evalCel(expr: string, vars: Record<string, unknown>): unknown {
  const p = plan(env, parse(expr.split(MAX_HOLD_TEMPLATE).join(String(MAX_HOLD)))) as unknown as (v: Record<string, CelInput>) => unknown;
  return p(Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, k === 'variables' ? (v as CelInput) : toCel(v)])));
}

/** A VAP as the apiserver applies it to one UPDATE (or CREATE: no oldObject): not matched, or the messages of failed validations (an error fails: failurePolicy Fail). */
function admit(p: PolicySpec, username: string, oldObject: unknown, object: unknown): 'not matched' | string[] {
  const operation = oldObject == null ? 'CREATE' : 'UPDATE';
  if (!p.resourceRule.operations.includes(operation)) return 'not matched';
  const request = { operation, userInfo: { username } };
  if (evalCel(ONLY_FLEET.expression, { request }) !== true) return 'not matched';
  const variables = new Map<string, CelInput>();
  for (const v of p.variables) {
    const r = evalCel(v.expression, { object, oldObject, request, variables });
    if (isCelError(r)) throw new Error(`variable ${v.name}: ${String(r)}`);
    variables.set(v.name, r as CelInput);
  }
  const denied: string[] = [];
  for (const v of p.validations) {
    const r = evalCel(v.expression, { object, oldObject, request, variables });
    if (r !== true) denied.push(isCelError(r) ? `error: ${String(r)} (${v.message})` : v.message);
  }
  return denied;
}

const D = (c: string) => 'sha256:' + c.repeat(64);
const R1 = `quay.io/openshift-release-dev/ocp-release@${D('1')}`;
const R2 = `quay.io/openshift-release-dev/ocp-release@${D('2')}`;
const R3 = `quay.io/openshift-release-dev/ocp-release@${D('3')}`;
const HC_NS = 'clusters';
const HCP_NS = 'clusters-banana';
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x));

describe('the fleet ValidatingAdmissionPolicies', () => {
  let mgmt: ApiTestServer;
  const writes: { resource: string; before: KubeObject; after: KubeObject }[] = [];
  afterAll(async () => mgmt?.stop());

  test('the package ships exactly these policies and bindings, Fail, Deny, for the fleet identity only', () => {
    const objs = fleetDefinition().objects.filter((o) => o.phase === 'policies').map((o) => o.object as KubeObject & { spec: any });
    const policies = objs.filter((o) => o.kind === 'ValidatingAdmissionPolicy');
    expect(policies.map((p) => p.metadata.name)).toEqual([NODEPOOL_POLICY.name, HANDOFF_POLICY.name, CREATE_POLICY.name]);
    for (const p of policies) {
      expect(p.apiVersion).toBe('admissionregistration.k8s.io/v1');
      expect(p.spec.failurePolicy).toBe('Fail');
      expect(p.spec.matchConditions).toEqual([ONLY_FLEET]);
    }
    const bindings = objs.filter((o) => o.kind === 'ValidatingAdmissionPolicyBinding');
    expect(bindings.map((b) => [b.spec.policyName, b.spec.validationActions])).toEqual([
      [NODEPOOL_POLICY.name, ['Deny']],
      [HANDOFF_POLICY.name, ['Deny']],
      [CREATE_POLICY.name, ['Deny']],
    ]);
    expect(ONLY_FLEET.expression).toBe('request.userInfo.username == "system:serviceaccount:on-cluster-build-fleet:on-cluster-build-fleet"');
  });

  test('admit every write the real gate makes through bump, hold, hand-off, lift and timeout', async () => {
    mgmt = await startApiServer({
      identities: [
        { name: FLEET_USERNAME, token: 'fleet-token', rules: [...FLEET_CLUSTER_RULES.map((r) => ({ apiGroups: [...r.apiGroups], resources: [...r.resources], verbs: [...r.verbs] })), ...HANDOFF_RULES.map((r) => ({ apiGroups: [...r.apiGroups], resources: [...r.resources], verbs: [...r.verbs], namespaces: [HCP_NS] }))] },
        { name: 'system:admin', token: 'admin-token' },
      ],
    });
    mgmt.registerType({ group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'NodePool', plural: 'nodepools', namespaced: true, status: true });
    mgmt.store.put({
      apiVersion: 'hypershift.openshift.io/v1beta1',
      kind: 'NodePool',
      metadata: { name: 'workers', namespace: HC_NS, labels: { team: 'a' }, annotations: { 'hypershift.openshift.io/nodePoolCurrentConfig': 'abc' }, finalizers: ['hypershift.openshift.io/finalizer'] },
      spec: { clusterName: 'banana', arch: 'amd64', release: { image: R1 }, replicas: 3, management: { upgradeType: 'Replace' }, platform: { type: 'AWS' } },
    });
    // A provider-only hand-off (no NodePoolOSConfig label): the gate rewrites it itself.
    mgmt.store.put(providerHandoff(HCP_NS, 'workers', 'quay.example.com/p@' + D('a'), R1));
    const get = (resource: string, ns: string, name: string) =>
      clone(mgmt.store.get(resource === 'nodepools' ? { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', name, namespace: ns } : { apiVersion: 'v1', kind: 'ConfigMap', name, namespace: ns }) as KubeObject);
    class Recorded extends Kube {
      override async request(method: string, path: string, body?: unknown, contentType?: string): Promise<unknown> {
        const m = /\/namespaces\/([^/]+)\/(nodepools|configmaps)\/([^/?]+)$/.exec(path.split('?')[0]);
        const before = method !== 'GET' && m ? get(m[2], m[1], m[3]) : undefined;
        const r = await super.request(method, path, body, contentType);
        if (before && m) writes.push({ resource: m[2], before, after: get(m[2], m[1], m[3]) });
        return r;
      }
    }
    let clock = new Date('2026-11-25T00:00:00Z');
    const images = new Map<string, ImageState>();
    const o: GateOptions = {
      management: new Recorded(mgmt.kubeConfig(FLEET_USERNAME)),
      nodePoolNamespace: HC_NS,
      nodePoolName: 'workers',
      hcpNamespace: HCP_NS,
      layer: 'provider',
      imageFor: (k) => images.get(k.releaseImage) ?? { pending: 'build queued' },
      maxHoldSeconds: 3600,
      now: () => clock,
    };
    const admin = new Kube(mgmt.kubeConfig('system:admin'));
    const bump = async (release: string, admitted: boolean) => {
      const old = get('nodepools', HC_NS, 'workers') as KubeObject & { spec: any };
      const ops = [{ op: 'replace', path: '/spec/release/image', value: release }, ...(admitted ? admitNodePoolUpdate(old, { ...old, spec: { ...old.spec, release: { image: release } } }, clock, 3600) : [])];
      await admin.request('PATCH', admin.path(NODEPOOLS, HC_NS, 'workers'), ops, 'application/json-patch+json');
    };
    const steps = async () => (await settleGate(o)).steps.map((s) => ('did' in s ? s.did : s.state));
    expect(await steps()).toEqual(['Labelled', 'Consistent']);
    await bump(R2, true); // held by the admission mutation, in the release change's own write
    expect(await steps()).toEqual(['Neutralised', 'Paused', 'Waiting']);
    images.set(R2, { image: 'quay.example.com/p@' + D('b') });
    expect(await steps()).toEqual(['HandedOff', 'Unpaused', 'Consistent']);
    await bump(R3, false); // no mutation: the gate holds after the fact
    expect(await steps()).toEqual(['Neutralised', 'Paused', 'Waiting']);
    // An older fleet's hold ("true", no recorded value): replaced by a time within the bound of its start.
    await admin.mergePatch(NODEPOOLS, 'workers', HC_NS, { metadata: { annotations: { [PAUSED_UNTIL_ANNOTATION]: null } }, spec: { pausedUntil: 'true' } });
    expect(await steps()).toEqual(['Paused', 'Waiting']);
    expect((get('nodepools', HC_NS, 'workers') as any).spec.pausedUntil).toBe('2026-11-25T01:00:00Z');
    clock = new Date(clock.getTime() + 3601_000);
    expect(await steps()).toEqual(['TimedOut', 'Released']);
    expect(writes.map((w) => w.resource)).toEqual(['nodepools', 'configmaps', 'nodepools', 'configmaps', 'nodepools', 'configmaps', 'nodepools', 'nodepools', 'nodepools']);

    for (const w of writes) {
      const policy = w.resource === 'nodepools' ? NODEPOOL_POLICY : HANDOFF_POLICY;
      expect([w.after.metadata.name, admit(policy, FLEET_USERNAME, w.before, w.after)]).toEqual([w.after.metadata.name, []]);
      // The other policy does not apply to this kind; and another user is never matched.
      expect(admit(policy, 'system:serviceaccount:clusters:someone', w.before, w.after)).toBe('not matched');
    }
  });

  test('refuse NodePool changes beyond the gate, each with its own message', () => {
    const held = writes.find((w) => w.resource === 'nodepools' && (w.after as any).spec.pausedUntil !== undefined && (w.before as any).spec.pausedUntil === undefined)!;
    expect(held).toBeDefined();
    const deny = (f: (np: any) => void, from = held.after) => {
      const next = clone(from) as any;
      f(next);
      return admit(NODEPOOL_POLICY, FLEET_USERNAME, from, next);
    };
    const SPEC = 'the on-cluster-build fleet component may change only spec.pausedUntil of a NodePool';
    expect(deny((n) => (n.spec.replicas = 30))).toEqual([SPEC]);
    expect(deny((n) => (n.spec.release.image = R1))).toEqual([SPEC]);
    expect(deny((n) => (n.spec.config = [{ name: 'root-on-every-node' }]))).toEqual([SPEC]);
    expect(deny((n) => delete n.spec.management)).toEqual([SPEC]);
    expect(deny((n) => (n.spec.someFieldAddedLater = true))).toEqual([SPEC]);
    const SET = `the on-cluster-build fleet component may set spec.pausedUntil only to an RFC3339 time recorded in ${PAUSED_UNTIL_ANNOTATION}, no later than ${HELD_SINCE_ANNOTATION} + maxHoldSeconds (never "true")`;
    const until = (v: string) => (n: any) => {
      n.spec.pausedUntil = v;
      n.metadata.annotations[PAUSED_UNTIL_ANNOTATION] = v;
    };
    expect(deny((n) => (n.spec.pausedUntil = '2026-11-25T00:30:00Z'))).toEqual([SET]); // not the recorded value
    expect(deny(until('true'))).toEqual([SET]); // never a hold without end
    expect(deny(until('2026-11-25T01:00:01Z'))).toEqual([SET]); // past HELD_SINCE + bound
    expect(deny(until('2026-11-25 00:30:00'))).toEqual([SET]); // not RFC3339 (HyperShift would read it as not paused)
    expect(deny(until('2026-11-25T00:30:00Z'))).toEqual([]); // shortened within the bound
    expect(deny(until('2026-11-25T02:00:00+01:00'))).toEqual([]); // = 01:00Z: the bound exactly
    // A pause that is not ours (its value is not the one we recorded): neither replaced nor removed.
    const dated = clone(held.after) as any;
    dated.spec.pausedUntil = '2099-01-01T00:00:00Z';
    expect(deny((n) => delete n.spec.pausedUntil, dated)).toEqual([`the on-cluster-build fleet component may remove only a spec.pausedUntil of its own (the value its ${PAUSED_UNTIL_ANNOTATION} records)`]);
    expect(deny(until('2026-11-25T00:30:00Z'), dated)).toEqual(['the on-cluster-build fleet component may replace only a spec.pausedUntil of its own']);
    const human = clone(held.before) as any;
    human.spec.pausedUntil = 'true';
    expect(deny((n) => delete n.spec.pausedUntil, human)).toEqual([`the on-cluster-build fleet component may remove only a spec.pausedUntil of its own (the value its ${PAUSED_UNTIL_ANNOTATION} records)`]);
    // The hold for one release is bounded from its start: the start does not move.
    expect(deny((n) => (n.metadata.annotations[HELD_SINCE_ANNOTATION] = '2026-11-25T00:30:00.000Z'))).toEqual([
      `the on-cluster-build fleet component may not move ${HELD_SINCE_ANNOTATION} while it holds a NodePool for the same release (the hold for one release is bounded from its start)`,
    ]);
    expect(deny((n) => (n.metadata.labels.team = 'b'))).toEqual(['the on-cluster-build fleet component may change only the label on-cluster-build.pkogen.io/upgrade-gate of a NodePool']);
    expect(deny((n) => delete n.metadata.labels.team)).toEqual(['the on-cluster-build fleet component may change only the label on-cluster-build.pkogen.io/upgrade-gate of a NodePool']);
    expect(deny((n) => (n.metadata.annotations['hypershift.openshift.io/nodePoolCurrentConfig'] = 'x'))).toEqual(['the on-cluster-build fleet component may change only its gate annotations (on-cluster-build.pkogen.io/gate-*) of a NodePool']);
    expect(deny((n) => (n.metadata.annotations['on-cluster-build.pkogen.io/other'] = 'x'))).toEqual(['the on-cluster-build fleet component may change only its gate annotations (on-cluster-build.pkogen.io/gate-*) of a NodePool']);
    expect(deny((n) => (n.metadata.finalizers = []))).toEqual(['the on-cluster-build fleet component may not change the finalizers or owner references of a NodePool']);
    expect(deny((n) => (n.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'u' }]))).toEqual(['the on-cluster-build fleet component may not change the finalizers or owner references of a NodePool']);
    // What the gate does is admitted from any state: a no-op, the label, the hold.
    expect(deny(() => {})).toEqual([]);
  });

  test('refuse ConfigMap changes beyond the hand-off', () => {
    const w = writes.find((x) => x.resource === 'configmaps')!;
    const deny = (f: (cm: any) => void, from: KubeObject = w.before) => {
      const next = clone(w.after) as any;
      f(next);
      return admit(HANDOFF_POLICY, FLEET_USERNAME, from, next);
    };
    const ONLY = 'the on-cluster-build fleet component may update only hand-off ConfigMaps (on-cluster-build-os-image-*, label app.kubernetes.io/managed-by=on-cluster-build) and on-cluster-build-provider-images';
    const other = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kube-apiserver', namespace: HCP_NS, labels: {} }, data: { config: 'x' } };
    expect(admit(HANDOFF_POLICY, FLEET_USERNAME, other, { ...other, data: { config: 'y' } })).toEqual([ONLY]);
    const relabelled = clone(w.before) as any;
    relabelled.metadata.name = 'on-cluster-build-os-image-x';
    delete relabelled.metadata.labels['app.kubernetes.io/managed-by'];
    expect(admit(HANDOFF_POLICY, FLEET_USERNAME, relabelled, relabelled)).toEqual([ONLY]);
    const KEPT = 'the on-cluster-build fleet component may not change the labels hypershift.openshift.io/nto-generated-machine-config, hypershift.openshift.io/nodePool, app.kubernetes.io/managed-by, on-cluster-build.pkogen.io/nodepoolosconfig of a hand-off';
    expect(deny((c) => (c.metadata.labels['hypershift.openshift.io/nodePool'] = 'another-pool'))).toEqual([KEPT]);
    expect(deny((c) => delete c.metadata.labels['hypershift.openshift.io/nto-generated-machine-config'])).toEqual([KEPT]);
    expect(deny((c) => (c.metadata.labels['on-cluster-build.pkogen.io/nodepoolosconfig'] = 'stolen'))).toEqual([KEPT]);
    expect(deny((c) => (c.data.extra = 'x'))).toEqual(['a hand-off ConfigMap carries only data.config']);
    expect(deny((c) => (c.binaryData = { x: 'eA==' }))).toEqual(['a hand-off ConfigMap carries only data.config']);
    expect(deny((c) => (c.metadata.annotations['x'] = 'y'))).toEqual([`the on-cluster-build fleet component may change only the annotations ${HANDOFF_RELEASE_ANNOTATION} and ${WANTED_RELEASE_ANNOTATION} of a hand-off`]);
    // An owner reference to a missing object would have the garbage collector delete the hand-off (a delete the fleet has no right to).
    const GC = 'the on-cluster-build fleet component may not change the owner references or finalizers of a hand-off';
    expect(deny((c) => (c.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Namespace', name: 'gone', uid: 'no-such-uid' }]))).toEqual([GC]);
    expect(deny((c) => (c.metadata.finalizers = ['example.com/hold']))).toEqual([GC]);
  });

  test('the mutating webhook is called only for a release change', () => {
    const np = (image?: string) => ({ spec: image ? { release: { image } } : {} });
    const m = (o: unknown, n: unknown) => evalCel(RELEASE_CHANGED, { oldObject: o, object: n });
    expect(m(np(R1), np(R2))).toBe(true);
    expect(m(np(R1), np(R1))).toBe(false);
    expect(m(np(), np(R1))).toBe(false);
    expect(m(np(R1), np())).toBe(false);
  });
  test("admit the gate's wanted-release write on a tenant-layered hand-off (the per-HCP controller's), made by the real gate", async () => {
    // A second NodePool whose hand-off the per-HCP controller wrote (it carries the NodePoolOSConfig label).
    mgmt.store.put({
      apiVersion: 'hypershift.openshift.io/v1beta1',
      kind: 'NodePool',
      metadata: { name: 'tenant', namespace: HC_NS },
      spec: { clusterName: 'banana', arch: 'amd64', release: { image: R1 }, replicas: 1, management: { upgradeType: 'Replace' }, platform: { type: 'AWS' } },
    });
    mgmt.store.put(tenantHandoff(HCP_NS, 'tenant', 'my-config', 'quay.example.com/t@' + D('c'), R1));
    const cm = () => clone(mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'on-cluster-build-os-image-tenant', namespace: HCP_NS }) as KubeObject);
    const o: GateOptions = {
      management: new Kube(mgmt.kubeConfig(FLEET_USERNAME)),
      nodePoolNamespace: HC_NS,
      nodePoolName: 'tenant',
      hcpNamespace: HCP_NS,
      layer: 'provider',
      imageFor: () => ({ pending: 'build queued' }),
      maxHoldSeconds: 3600,
      now: () => new Date('2026-11-25T00:00:00Z'),
    };
    expect((await settleGate(o)).steps.map((s) => ('did' in s ? s.did : s.state))).toEqual(['Labelled', 'Consistent']);
    const admin = new Kube(mgmt.kubeConfig('system:admin'));
    await admin.request('PATCH', admin.path(NODEPOOLS, HC_NS, 'tenant'), [{ op: 'replace', path: '/spec/release/image', value: R2 }], 'application/json-patch+json');
    const before = cm();
    expect((await settleGate(o)).steps.map((s) => ('did' in s ? s.did : s.state))).toEqual(['Wanted', 'Neutralised', 'Paused', 'Waiting']);
    const after = cm();
    expect(after.metadata.annotations![WANTED_RELEASE_ANNOTATION]).toBe(R2);
    expect(admit(HANDOFF_POLICY, FLEET_USERNAME, before, after)).toEqual([]);
    // The same write with the image swapped is what the fleet may never do to a tenant's hand-off: only the annotations are its.
    const forged = clone(after) as any;
    forged.metadata.labels['on-cluster-build.pkogen.io/nodepoolosconfig'] = 'other';
    expect(admit(HANDOFF_POLICY, FLEET_USERNAME, before, forged)).not.toEqual([]);
  });
  test('with a provider layer: admit the provider-only hand-off the real gate creates, its provider-images publication and a layer change; refuse any other create', async () => {
    mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: HCP_NS } });
    mgmt.store.put({
      apiVersion: 'hypershift.openshift.io/v1beta1',
      kind: 'NodePool',
      metadata: { name: 'fresh', namespace: HC_NS },
      spec: { clusterName: 'banana', arch: 'amd64', release: { image: R1 }, replicas: 1, management: { upgradeType: 'Replace' }, platform: { type: 'AWS' } },
    });
    const recorded: { resource: string; before: KubeObject | null; after: KubeObject }[] = [];
    const getCm = (ns: string, name: string) => clone(mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name, namespace: ns }) as KubeObject);
    class Recorded extends Kube {
      override async request(method: string, path: string, body?: unknown, contentType?: string): Promise<unknown> {
        const p = path.split('?')[0];
        const created = method === 'POST' ? /\/namespaces\/([^/]+)\/configmaps$/.exec(p) : null;
        const m = /\/namespaces\/([^/]+)\/(nodepools|configmaps)\/([^/]+)$/.exec(p);
        const before = method !== 'GET' && m ? (m[2] === 'configmaps' ? getCm(m[1], m[3]) : null) : null;
        const r = await super.request(method, path, body, contentType);
        if (created) recorded.push({ resource: 'configmaps', before: null, after: getCm(created[1], (body as KubeObject).metadata.name!) });
        else if (m && m[2] === 'configmaps' && method !== 'GET') recorded.push({ resource: 'configmaps', before, after: getCm(m[1], m[3]) });
        return r;
      }
    }
    let layer = 'provider-layer@' + D('e');
    const o = (): GateOptions => ({
      management: new Recorded(mgmt.kubeConfig(FLEET_USERNAME)),
      nodePoolNamespace: HC_NS,
      nodePoolName: 'fresh',
      hcpNamespace: HCP_NS,
      layer,
      providerLayer: true,
      imageFor: () => ({ image: `quay.example.com/p@${layer === 'provider-layer@' + D('e') ? D('e') : D('f')}` }),
      maxHoldSeconds: 3600,
      now: () => new Date('2026-11-25T00:00:00Z'),
    });
    const steps = async () => (await settleGate(o())).steps.map((s) => ('did' in s ? s.did : s.state));
    expect(await steps()).toEqual(['Labelled', 'Published', 'HandedOff', 'Consistent']);
    layer = 'provider-layer@' + D('f');
    expect(await steps()).toEqual(['Published', 'HandedOff', 'Consistent']);
    // Created: the provider-images ConfigMap and the hand-off; then both updated for the new layer.
    expect(recorded.map((w) => `${w.before ? 'update' : 'create'} ${w.after.metadata.name}`)).toEqual([
      `create ${PROVIDER_IMAGES_CONFIGMAP}`,
      `create ${handoffName('fresh')}`,
      `update ${PROVIDER_IMAGES_CONFIGMAP}`,
      `update ${handoffName('fresh')}`,
    ]);
    for (const w of recorded) {
      const policy = w.before ? HANDOFF_POLICY : CREATE_POLICY;
      expect([w.after.metadata.name, admit(policy, FLEET_USERNAME, w.before, w.after)]).toEqual([w.after.metadata.name, []]);
      expect(admit(w.before ? CREATE_POLICY : HANDOFF_POLICY, FLEET_USERNAME, w.before, w.after)).toBe('not matched');
    }

    // What the fleet identity may never create.
    const handoff = recorded[1]!.after as any;
    const images = recorded[0]!.after as any;
    const create = (f: (cm: any) => void, from: any = handoff) => {
      const next = clone(from);
      delete next.metadata.resourceVersion;
      f(next);
      return admit(CREATE_POLICY, FLEET_USERNAME, null, next);
    };
    const ONLY = 'the on-cluster-build fleet component may create only provider-only hand-offs (on-cluster-build-os-image-*) and on-cluster-build-provider-images';
    const LABELS = 'a provider-only hand-off carries exactly the labels hypershift.openshift.io/nto-generated-machine-config=true, app.kubernetes.io/managed-by=on-cluster-build and hypershift.openshift.io/nodePool naming its NodePool (no on-cluster-build.pkogen.io/nodepoolosconfig: tenant hand-offs are the per-HCP controller\'s)';
    const DATA = 'a provider-only hand-off carries only data.config and the annotation on-cluster-build.pkogen.io/release-image';
    const IMAGES = 'the on-cluster-build-provider-images ConfigMap keeps the label app.kubernetes.io/managed-by=on-cluster-build, never carries hypershift.openshift.io/nto-generated-machine-config, and has no binaryData';
    expect(create(() => {})).toEqual([]);
    expect(create((c) => (c.metadata.name = 'kube-apiserver-config'))).toEqual([ONLY]);
    expect(create((c) => (c.metadata.name = 'on-cluster-build-pull-keys'))).toEqual([ONLY]);
    expect(create((c) => (c.metadata.labels['on-cluster-build.pkogen.io/nodepoolosconfig'] = 'forged'))).toEqual([LABELS]);
    expect(create((c) => (c.metadata.labels['hypershift.openshift.io/nodePool'] = 'another-pool'))).toEqual([LABELS]);
    expect(create((c) => delete c.metadata.labels['hypershift.openshift.io/nto-generated-machine-config'])).toEqual([LABELS]);
    expect(create((c) => (c.data.extra = 'x'))).toEqual([DATA]);
    expect(create((c) => (c.metadata.annotations[WANTED_RELEASE_ANNOTATION] = R2))).toEqual([DATA]);
    const GC = 'a provider-only hand-off has no owner references or finalizers (nothing may garbage-collect or hold it)';
    expect(create((c) => (c.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Namespace', name: 'gone', uid: 'no-such-uid' }]))).toEqual([GC]);
    expect(create((c) => (c.metadata.finalizers = ['example.com/hold']))).toEqual([GC]);
    expect(create(() => {}, images)).toEqual([]);
    expect(create((c) => (c.metadata.labels['hypershift.openshift.io/nto-generated-machine-config'] = 'true'), images)).toEqual([IMAGES]);
    expect(create((c) => (c.binaryData = { x: 'eA==' }), images)).toEqual([IMAGES]);
    // And no update may turn the provider-images ConfigMap into machine config HyperShift would read.
    const upd = clone(images);
    upd.metadata.labels['hypershift.openshift.io/nto-generated-machine-config'] = 'true';
    expect(admit(HANDOFF_POLICY, FLEET_USERNAME, images, upd)).toEqual([IMAGES]);
  });
});
