/**
 * The provider's switch for the tenant layer (builder/policy/layers.ts): the webhook's rule,
 * the flag, the HostedCluster annotation. The controller's side (Degraded TenantLayerDisabled, no
 * build) and tenant descent from the provider-layered image are in e2e.test.ts.
 */
import { API_VERSION, CONFIG_KIND, CONTROLLER_USERNAME, GROUP, VERSION } from '../../builder/api/types.js';
import { decideAdmission, readAdmissionReview } from '../../builder/webhook/validate.js';
import { parseTenantLayer, TENANT_LAYER_ANNOTATION, TENANT_LAYER_DISABLED_MESSAGE, tenantLayerOf } from '../../builder/policy/layers.js';
import { parseCommand } from '../../builder/cli.js';
import { WEBHOOK_FLAGS } from '../../builder/webhook/main.js';
import { parseFlags } from '../../builder/flags.js';
import { MAX_PROVIDER_ENTRIES, NO_PROVIDER_LAYER, parseProviderImages, PROVIDER_IMAGES_CONFIGMAP, PROVIDER_LAYER_KEY, providerImageEntryText, providerImageFor } from '../../builder/controller/handoff.js';

const config = (over: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({
  apiVersion: API_VERSION,
  kind: CONFIG_KIND,
  metadata: { name: 'workers', ...meta },
  spec: {
    nodePool: { name: 'workers' },
    imageBuilder: { imageBuilderType: 'Job' },
    renderedImagePushSecret: { name: 'push-secret' },
    renderedImagePushSpec: 'quay.example.com/org/os-images:latest',
    containerFile: [{ containerfileArch: 'NoArch', content: 'FROM configs AS final\nRUN dnf install -y tree\n' }],
    ...over,
  },
});

function decide(operation: string, object: unknown, oldObject?: unknown, tenantLayerDisabled = true) {
  const review = {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'u1', kind: { group: GROUP, version: VERSION, kind: CONFIG_KIND }, operation, userInfo: { username: 'alice' }, object, ...(oldObject ? { oldObject } : {}) },
  };
  return decideAdmission(readAdmissionReview(review, CONFIG_KIND as never), { controllerUsername: CONTROLLER_USERNAME, tenantLayerDisabled }).review.response!;
}

describe('tenant layer off', () => {
  test('the webhook refuses a new config with the one clear message', () => {
    expect(decide('CREATE', config())).toEqual({ uid: 'u1', allowed: false, status: { code: 403, reason: 'Forbidden', message: TENANT_LAYER_DISABLED_MESSAGE } });
    expect(TENANT_LAYER_DISABLED_MESSAGE).toBe(
      'the provider has turned the tenant OS layer off for this hosted cluster (HostedCluster annotation on-cluster-build.pkogen.io/tenant-layer: Disabled): ' +
        "NodePoolOSConfigs are not accepted or built here; NodePools run the provider's OS image. Ask the provider to enable the tenant layer",
    );
  });

  test('refuses a spec change, lets a config be cleaned up (metadata-only update, delete)', () => {
    expect(decide('UPDATE', config({ renderedImagePushSpec: 'quay.example.com/org/other:latest' }), config()).allowed).toBe(false);
    expect(decide('UPDATE', config({}, { finalizers: [] }), config({}, { finalizers: ['x.example.com/keep'] })).allowed).toBe(true);
    expect(decide('DELETE', undefined, config()).allowed).toBe(true);
  });

  test('with the tenant layer on, the same config is allowed', () => {
    expect(decide('CREATE', config(), undefined, false)).toEqual({ uid: 'u1', allowed: true });
  });

  test('the HostedCluster annotation and the flag take Enabled or Disabled, nothing else', () => {
    expect(tenantLayerOf({ metadata: {} })).toEqual({ layer: 'Enabled' });
    expect(tenantLayerOf({ metadata: { annotations: { [TENANT_LAYER_ANNOTATION]: 'Disabled' } } })).toEqual({ layer: 'Disabled' });
    expect(tenantLayerOf({ metadata: { annotations: { [TENANT_LAYER_ANNOTATION]: 'off' } } })).toEqual({ error: 'annotation on-cluster-build.pkogen.io/tenant-layer is "off"; it takes Enabled or Disabled' });
    expect(parseTenantLayer(parseCommand('controller', ['--namespace=clusters-banana', '--hosted-kubeconfig=/k', '--tenant-layer=Disabled'])['tenant-layer'])).toBe('Disabled');
    expect(parseTenantLayer(parseCommand('controller', ['--namespace=clusters-banana', '--hosted-kubeconfig=/k'])['tenant-layer'])).toBe('Enabled');
    expect(parseTenantLayer(parseFlags('webhook', WEBHOOK_FLAGS, ['--tls-cert-file=c', '--tls-private-key-file=k', '--tenant-layer=Disabled'])['tenant-layer'])).toBe('Disabled');
    expect(() => parseTenantLayer('disabled')).toThrow('--tenant-layer takes Enabled or Disabled, got "disabled"');
  });
});

describe('the provider-images channel as the per-HCP controller reads it (bounded, by digest only)', () => {
  const D = (c: string) => 'sha256:' + c.repeat(64);
  const R = `quay.io/openshift-release-dev/ocp-release@${D('1')}`;
  const IMG = `quay.example.com/provider/rhcos@${D('a')}`;
  const cm = (data: Record<string, string>, name = PROVIDER_IMAGES_CONFIGMAP) => ({ metadata: { name }, data });

  test('reads the layer and the entries, and answers FROM, wait or no provider layer', () => {
    const p = parseProviderImages(cm({ [PROVIDER_LAYER_KEY]: 'provider-layer@x', workers: providerImageEntryText({ release: R, arch: 'amd64', image: IMG }) }))!;
    expect(p.layer).toBe('provider-layer@x');
    expect(providerImageFor(p, { nodePool: 'workers', release: R, arch: 'amd64' })).toEqual({ image: IMG });
    expect(providerImageFor(p, { nodePool: 'workers', release: R, arch: 'arm64' })).toHaveProperty('waiting');
    expect(providerImageFor(p, { nodePool: 'workers', release: R, arch: 'amd64', stream: 'rhel-10' })).toHaveProperty('waiting');
    expect(providerImageFor(p, { nodePool: 'other', release: R, arch: 'amd64' })).toHaveProperty('waiting');
    expect(providerImageFor(parseProviderImages(cm({ [PROVIDER_LAYER_KEY]: NO_PROVIDER_LAYER })), { nodePool: 'workers', release: R, arch: 'amd64' })).toBeUndefined();
    expect(providerImageFor(undefined, { nodePool: 'workers', release: R, arch: 'amd64' })).toBeUndefined();
    // Another ConfigMap, or one without a layer, is no channel.
    expect(parseProviderImages(cm({ [PROVIDER_LAYER_KEY]: 'x' }, 'on-cluster-build-pull-keys'))).toBeUndefined();
    expect(parseProviderImages(cm({ workers: providerImageEntryText({ release: R, arch: 'amd64', image: IMG }) }))).toBeUndefined();
  });

  test('skips what is malformed, not by digest, oversized or beyond the entry cap: such a NodePool waits, never builds on it', () => {
    const data: Record<string, string> = {
      [PROVIDER_LAYER_KEY]: 'L',
      tag: providerImageEntryText({ release: R, arch: 'amd64', image: 'quay.example.com/provider/rhcos:latest' }),
      junk: '{not json',
      array: '[1,2]',
      noarch: JSON.stringify({ release: R, image: IMG }),
      huge: JSON.stringify({ release: R + 'x'.repeat(3000), arch: 'amd64', image: IMG }),
    };
    for (let i = 0; i < MAX_PROVIDER_ENTRIES + 50; i++) data[`np-${String(i).padStart(5, '0')}`] = providerImageEntryText({ release: R, arch: 'amd64', image: IMG });
    const p = parseProviderImages(cm(data))!;
    for (const k of ['tag', 'junk', 'array', 'noarch', 'huge']) {
      expect(p.entries.has(k)).toBe(false);
      expect(providerImageFor(p, { nodePool: k, release: R, arch: 'amd64' })).toHaveProperty('waiting');
    }
    expect(p.entries.size).toBe(MAX_PROVIDER_ENTRIES);
  });
});
