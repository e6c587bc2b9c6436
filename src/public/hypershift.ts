/** `pkogen/hypershift`: the HCP-namespace idioms (each opt-in) and admission webhooks served to the hosted cluster. */
export * from '../model/hypershift.js';
export {
  checkWebhookRegistry,
  hcpWebhookConfiguration,
  type LabelSelector,
  type RuleSpec,
  type WebhookBackend,
  type WebhookConfigurationSpec,
  type WebhookSpec,
} from '../model/webhooks.js';
