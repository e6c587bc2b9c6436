/**
 * The provider's switch for the tenant layer (issue 27, builder/layers.ts): the webhook's rule,
 * the flag, the HostedCluster annotation. The controller's side (Degraded TenantLayerDisabled, no
 * build) and tenant descent from the provider-layered image are in e2e.test.ts.
 */
import { API_VERSION, CONFIG_KIND, CONTROLLER_USERNAME, GROUP, VERSION } from '../../builder/api/types.js';
import { decideAdmission, readAdmissionReview } from '../../builder/webhook/validate.js';
import { parseTenantLayer, TENANT_LAYER_ANNOTATION, TENANT_LAYER_DISABLED_MESSAGE, tenantLayerOf } from '../../builder/layers.js';
import { parseCommand } from '../../builder/cli.js';
import { WEBHOOK_FLAGS } from '../../builder/webhook/main.js';
import { parseFlags } from '../../builder/flags.js';

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
