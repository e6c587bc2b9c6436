import { emitDocument, hypershift, type KubeObject } from '../../src/index.js';

const container = { name: 'c', image: 'quay.io/x/y@sha256:' + 'a'.repeat(64), resources: { requests: { cpu: '10m', memory: '20Mi' }, limits: { memory: '40Mi' } } };
const base = { name: 'w', replicas: 1, serviceAccountName: 'w', automountServiceAccountToken: false, managementKasAccess: false, containers: [container] };
const pod = (d: KubeObject) => ((d.spec as any).template.spec) as Record<string, any>;

describe('HyperShift helpers: each idiom opt-in and combinable', () => {
  it('hcpDeployment applies every idiom by default', () => {
    const p = pod(hypershift.hcpDeployment(base));
    expect(p.priorityClassName).toBe('hypershift-control-plane');
    expect(Object.keys(p.affinity).sort()).toEqual(['nodeAffinity', 'podAffinity']);
    expect(p.tolerations).toBeDefined();
    expect(p.securityContext).toEqual(hypershift.restrictedPodSecurityContext());
    expect(p.containers[0].securityContext).toEqual(hypershift.restrictedContainerSecurityContext());
    expect(p.volumes).toEqual([{ name: 'tmp', emptyDir: {} }]);
    expect(p.containers[0].env).toHaveLength(1); // the proxy block
  });

  it('with every idiom off it is a plain Deployment: no affinity, priority, proxy, security context, /tmp or empty lists', () => {
    const d = hypershift.hcpDeployment({ ...base, placement: false, priorityClass: false, proxy: false, restricted: false, tmpVolume: false });
    const p = pod(d);
    for (const k of ['affinity', 'tolerations', 'nodeSelector', 'priorityClassName', 'securityContext', 'volumes']) expect(p[k]).toBeUndefined();
    expect(p.containers[0].env).toBeUndefined();
    expect(p.containers[0].volumeMounts).toBeUndefined();
    expect((d.spec as any).template.metadata.labels).toEqual({ app: 'w' });
    expect(emitDocument(d)).not.toContain('[]');
  });

  it('the idioms apply to a Deployment a team wrote itself, and the kubeconfig goes only where asked', () => {
    const own: KubeObject = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'mine' },
      spec: { template: { metadata: { labels: { app: 'mine' } }, spec: { containers: [{ name: 'a', image: 'i' }, { name: 'b', image: 'i' }] } } },
    };
    hypershift.withManagementKasAccess(hypershift.withHcpPlacement(own, { component: 'mine', spreadOverZones: true }));
    hypershift.withHostedKubeconfig(own, ['b']);
    hypershift.withPriorityClass(own, 'system-cluster-critical');
    const p = pod(own);
    const labels = (own.spec as any).template.metadata.labels;
    expect(labels[hypershift.NEED_MANAGEMENT_KAS_ACCESS]).toBe('true');
    expect(labels[hypershift.CONTROL_PLANE_COMPONENT_LABEL]).toBe('mine');
    expect(p.affinity.podAntiAffinity).toEqual(hypershift.zoneAntiAffinity({ app: 'mine' }, true));
    expect(p.containers[0].volumeMounts).toBeUndefined();
    expect(p.containers[1].volumeMounts).toEqual([hypershift.hostedKubeconfigMount()]);
    expect(p.volumes).toEqual([hypershift.hostedKubeconfigVolume()]);
    expect(p.priorityClassName).toBe('system-cluster-critical');
    expect(p.securityContext).toBeUndefined();
  });
});
