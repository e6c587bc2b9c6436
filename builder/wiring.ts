/**
 * The controller's collaborators, assembled once: release lookup (cached by digest), the registry
 * check of built images, NodePool inputs from token Secrets, and the webhook's validation rules
 * reused by the controller, so an object admitted before the webhook was registered is still
 * refused.
 *
 * Seams (ReconcilerOptions): `resolveRelease(releaseImage, {arch, stream, pullSecret})` and
 * `verifyImage({pushRef, arch, baseImageRef, credentials})`. The release resolver of this branch
 * takes the arch as a third argument and the base OS tag per resolver, so each OS stream gets its
 * own resolver here; `verifyImage` uses the resolver's `verifyBuiltImage` when it has one and
 * otherwise refuses every image (fail closed: no hand-off without a registry check).
 */
import { UserError } from '../src/core/errors.js';
import type { KubeObject } from './kube.js';
import type { NodePoolInputs, ReleaseImages, ResolveOptions, VerifyImageInput, VerifyImageResult } from './controller/reconciler.js';
import { baseOSTagForStream } from './nodepool-facts.js';
import { ReleaseResolver } from './release.js';
import { currentNodePoolInputs } from './token-secret.js';
import { configProblems } from './webhook/validate.js';
import { startWebhookServer } from './webhook/server.js';

export const describeError = (e: unknown): string => (e instanceof UserError ? e.describe() : (e as Error).message);

type Verifier = (i: VerifyImageInput) => Promise<unknown>;

export function wiring(o: { cacheSize: number; insecure?: boolean }) {
  const resolvers = new Map<string, ReleaseResolver>();
  const resolverFor = (baseOSTag: string | undefined) => {
    const key = baseOSTag ?? '';
    let r = resolvers.get(key);
    if (!r) {
      r = new ReleaseResolver({ cacheSize: o.cacheSize, insecure: o.insecure, ...(baseOSTag ? { baseOSTag } : {}) });
      resolvers.set(key, r);
    }
    return r;
  };
  return {
    async resolveRelease(releaseImage: string, opts: ResolveOptions): Promise<ReleaseImages> {
      const tag = baseOSTagForStream(opts.stream);
      if ('error' in tag) throw new Error(tag.error);
      try {
        return await resolverFor(tag.tag).resolve(releaseImage, opts.pullSecret, opts.arch);
      } catch (e) {
        throw new Error(describeError(e));
      }
    },
    async verifyImage(i: VerifyImageInput): Promise<VerifyImageResult> {
      const verify = (resolverFor(undefined) as unknown as { verifyBuiltImage?: Verifier }).verifyBuiltImage;
      if (typeof verify !== 'function') return { ok: false, reason: 'this controller has no registry check of built images, so it hands off none' };
      try {
        await verify.call(resolverFor(undefined), i);
        return { ok: true };
      } catch (e) {
        return { ok: false, reason: describeError(e) };
      }
    },
    /** Keyed by NodePool name: a hosted cluster's NodePools share one namespace on the management cluster. */
    nodePoolInputs(secrets: KubeObject[]): Map<string, NodePoolInputs | { error: string }> {
      const r = currentNodePoolInputs(secrets);
      const out = new Map<string, NodePoolInputs | { error: string }>();
      for (const p of r.problems) if (p.nodePool) out.set(p.nodePool.slice(p.nodePool.indexOf('/') + 1), { error: p.message });
      for (const [key, t] of r.nodePools) {
        out.set(key.slice(key.indexOf('/') + 1), {
          nodePoolName: t.nodePoolName,
          nodePoolNamespace: t.nodePoolNamespace,
          secretName: t.secretName,
          releaseImage: t.releaseImage,
          ...(t.osStream ? { osStream: t.osStream.trim() } : {}),
        });
      }
      return out;
    },
    validateConfig(config: KubeObject): string[] {
      return configProblems(config);
    },
    startWebhook: startWebhookServer,
  };
}
