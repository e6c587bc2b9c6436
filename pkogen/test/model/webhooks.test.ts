/** The library's webhook registry: checks, and Validating or Mutating configurations for the hosted cluster. */
import { checkWebhookRegistry, hcpWebhookConfiguration, type WebhookConfigurationSpec } from '../../src/index.js';

const hook = (name: string, path: string, extra: Record<string, unknown> = {}) => ({
  name,
  path,
  rules: [{ apiGroups: ['example.com'], apiVersions: ['v1'], operations: ['CREATE' as const], resources: ['widgets'], scope: 'Namespaced' as const }],
  failurePolicy: 'Ignore' as const,
  sideEffects: 'None' as const,
  timeoutSeconds: 3,
  ...extra,
});

describe('webhook registry', () => {
  it('builds a MutatingWebhookConfiguration calling the Service in the HCP namespace', () => {
    const c: WebhookConfigurationSpec = { name: 'defaults', type: 'Mutating', webhooks: [hook('defaults.widgets.example.com', '/mutate', { reinvocationPolicy: 'IfNeeded' })] };
    expect(checkWebhookRegistry([c])).toEqual([]);
    const o = hcpWebhookConfiguration(c, { service: 'widget-webhook', caConfigKey: 'serviceCA' }) as any;
    expect(o.kind).toBe('MutatingWebhookConfiguration');
    expect(o.metadata.annotations).toEqual({ 'service.beta.openshift.io/inject-cabundle': 'false' });
    expect(o.webhooks[0]).toMatchObject({
      name: 'defaults.widgets.example.com',
      admissionReviewVersions: ['v1'],
      reinvocationPolicy: 'IfNeeded',
      clientConfig: { url: 'https://widget-webhook.{{ .package.metadata.namespace }}.svc.cluster.local/mutate', caBundle: '{{ .config.serviceCA | b64enc }}' },
    });
  });

  it('builds a ValidatingWebhookConfiguration by default, with no reinvocationPolicy', () => {
    const o = hcpWebhookConfiguration({ name: 'v', webhooks: [hook('check.widgets.example.com', '/validate')] }, { service: 's', caConfigKey: 'ca' }) as any;
    expect(o.kind).toBe('ValidatingWebhookConfiguration');
    expect(o.webhooks[0].reinvocationPolicy).toBeUndefined();
  });

  it('names every problem of a bad registry', () => {
    expect(
      checkWebhookRegistry([
        { name: 'a', webhooks: [hook('short.name', 'no-slash', { timeoutSeconds: 40, reinvocationPolicy: 'Never' })] },
        { name: 'a', webhooks: [hook('x.example.com', '/p'), hook('x.example.com', '/p', { rules: [] })] },
        { name: 'empty', type: 'Mutating', webhooks: [] },
      ]),
    ).toEqual([
      'webhook short.name: name must be fully qualified (at least three DNS labels)',
      'webhook short.name: path must start with "/"',
      'webhook short.name: timeoutSeconds must be 1..30',
      'webhook short.name: reinvocationPolicy is for Mutating configurations only',
      'webhook configuration a is registered twice',
      'webhook x.example.com is registered twice',
      'webhook x.example.com: path /p is used twice',
      'webhook x.example.com has no rules',
      'webhook configuration empty has no webhooks',
    ]);
  });
});
