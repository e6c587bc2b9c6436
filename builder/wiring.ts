/**
 * The controller's collaborators, assembled once: release lookup (cached by digest), NodePool
 * inputs from token Secrets, and the webhook's validation rules reused by the controller, so an
 * object admitted before the webhook was registered is still refused.
 */
import { UserError } from 'pkogen/model';
import type { KubeObject } from './kube.js';
import type { NodePoolInputs, ReleaseImages } from './controller/reconciler.js';
import { NetGuard } from './net-guard.js';
import { ReleaseResolver, type ResolveOptions } from './release.js';
import { currentNodePoolInputs } from './token-secret.js';
import { configProblems } from './webhook/validate.js';
import { startWebhookServer } from './webhook/server.js';

export const describeError = (e: unknown): string => (e instanceof UserError ? e.describe() : (e as Error).message);

export function wiring(o: { cacheSize: number; insecure?: boolean; registryAllow?: string[] }) {
  // Release fetches run on the management network: internal destinations only when allow-listed.
  const guard = new NetGuard({ allow: o.registryAllow ?? [] });
  const resolver = new ReleaseResolver({ cacheSize: o.cacheSize, insecure: o.insecure, connectPolicy: guard });
  return {
    guard,
    async resolveRelease(releaseImage: string, pullSecret: string | undefined, target?: ResolveOptions): Promise<ReleaseImages> {
      try {
        return await resolver.resolve(releaseImage, pullSecret, target);
      } catch (e) {
        throw new Error(describeError(e));
      }
    },
    /** Keyed by NodePool name: a hosted cluster's NodePools share one namespace on the management cluster. */
    nodePoolInputs(secrets: KubeObject[]): Map<string, NodePoolInputs | { error: string }> {
      const r = currentNodePoolInputs(secrets);
      const out = new Map<string, NodePoolInputs | { error: string }>();
      for (const p of r.problems) if (p.nodePool) out.set(p.nodePool.slice(p.nodePool.indexOf('/') + 1), { error: p.message });
      for (const [key, t] of r.nodePools) {
        out.set(key.slice(key.indexOf('/') + 1), { nodePoolName: t.nodePoolName, secretName: t.secretName, releaseImage: t.releaseImage, config: t.config });
      }
      return out;
    },
    validateConfig(config: KubeObject): string[] {
      return configProblems(config);
    },
    startWebhook: startWebhookServer,
  };
}
