/** Push target admission: destinations on the management network are refused, with the field named. */
import { NetGuard } from '../../builder/registry/net-guard.js';
import { pushSpecHost, pushTargetProblem } from '../../builder/registry/push-target.js';

describe('pushTargetProblem', () => {
  it.each([
    'quay.io/example/workers-os:latest',
    'registry.example.com:5000/a/b:t',
    'registry-1.docker.io/library/x:1',
    '8.8.8.8/x/y:t',
    '[2001:4860:4860::8888]:5000/x/y:t',
  ])('allows %s', (spec) => {
    expect(pushTargetProblem(spec)).toBeUndefined();
  });

  it.each([
    ['127.0.0.1:5000/x/y:t', 'the registry "127.0.0.1:5000" is a loopback address'],
    ['127.1/x/y:t', 'the registry "127.1" is a loopback address'],
    ['0x7f.1:5000/x/y:t', 'the registry "0x7f.1:5000" is a loopback address'],
    ['0177.0.0.1/x/y:t', 'the registry "0177.0.0.1" is a loopback address'],
    ['[::1]:5000/x/y:t', 'the registry "[::1]:5000" is a loopback address'],
    ['[::ffff:127.0.0.1]:5000/x/y:t', 'is a loopback address'],
    ['169.254.169.254/latest/meta:t', 'is a link-local address (where cloud metadata services answer)'],
    ['0xa9fea9fe/x/y:t', 'is a link-local address'],
    ['[fe80::1]/x/y:t', 'is a link-local address'],
    ['10.0.0.8:5000/x/y:t', 'is a private address'],
    ['172.20.1.1/x/y:t', 'is a private address'],
    ['192.168.0.10/x/y:t', 'is a private address'],
    ['[fd00::1]/x/y:t', 'is a private address'],
    ['100.64.3.4/x/y:t', 'is a shared (CGNAT) address'],
    ['0.0.0.0:22/x/y:t', 'is the unspecified address'],
    ['224.0.0.1/x/y:t', 'is a multicast address'],
    ['localhost:5000/x/y:t', 'names the host the build runs on'],
    ['registry.localhost/x/y:t', 'names the host the build runs on'],
    ['kube-apiserver.clusters-hc1.svc:6443/x/y:t', 'is a cluster-internal Service name'],
    ['image-registry.openshift-image-registry.svc.cluster.local:5000/x/y:t', 'is a cluster-internal Service name'],
    ['Kube-APIServer.clusters-hc1.SVC./x/y:t', 'is a cluster-internal Service name'],
    ['registry/x/y:t', 'has no dot and no port'],
    ['kube-apiserver:6443/x/y:t', 'is a single-label name'],
    ['1.2.3.456/x/y:t', 'ends like an IPv4 address but is not a valid one'],
    ['quay.io:99999/x/y:t', 'the registry port is not a number from 1 to 65535'],
    ['y:t', 'has no registry host'],
  ])('refuses %s', (spec, why) => {
    const p = pushTargetProblem(spec);
    expect(p).toBeDefined();
    expect(p!.startsWith('spec.renderedImagePushSpec: ')).toBe(true);
    expect(p).toContain(why);
  });

  it('names the field asked for, and never echoes what follows the host (nor credentials before it)', () => {
    expect(pushTargetProblem('10.0.0.8/secret-path-xyz:t', { field: 'spec.x' })).toBe(
      'spec.x: the registry "10.0.0.8" is a private address; push to a registry outside the cluster, or ask the provider to allow-list it',
    );
    const p = pushTargetProblem('user:hunter2@quay.io/x/y:t')!;
    expect(p).toBe('spec.renderedImagePushSpec: the registry host part contains "@"; credentials belong in the push Secret, not in the push spec');
    expect(p).not.toContain('hunter2');
    expect(pushTargetProblem(42)).toBe('spec.renderedImagePushSpec: must be an image reference host[:port]/path/name:tag');
  });

  it('the allow-list admits a mirror by name, address, range or port', () => {
    const allow = ['mirror.clusters.svc', '10.1.0.0/16', '192.168.9.9:5000'];
    expect(pushTargetProblem('mirror.clusters.svc/x/y:t', { allow })).toBeUndefined();
    expect(pushTargetProblem('10.1.2.3:5000/x/y:t', { allow })).toBeUndefined();
    expect(pushTargetProblem('10.2.2.3:5000/x/y:t', { allow })).toContain('is a private address');
    expect(pushTargetProblem('192.168.9.9:5000/x/y:t', { allow: new NetGuard({ allow }) })).toBeUndefined();
    expect(pushTargetProblem('192.168.9.9:5001/x/y:t', { allow })).toContain('is a private address');
    expect(pushTargetProblem('other.clusters.svc/x/y:t', { allow })).toContain('cluster-internal');
  });

  it('pushSpecHost splits host and port', () => {
    expect(pushSpecHost('a.b:5000/x:t')).toEqual({ host: 'a.b', port: 5000, raw: 'a.b:5000' });
    expect(pushSpecHost('[::1]:5000/x:t')).toEqual({ host: '::1', port: 5000, raw: '[::1]:5000' });
    expect(pushSpecHost('a.b/x:t')).toEqual({ host: 'a.b', raw: 'a.b' });
    expect(pushSpecHost('x:t')).toBeUndefined();
  });
});
