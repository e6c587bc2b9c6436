/** `pkogen/hypershift`: the HCP-namespace idioms (each opt-in) and admission webhooks served to the hosted cluster. */
export * from '../model/hypershift.js';
export * from '../model/webhooks.js';
