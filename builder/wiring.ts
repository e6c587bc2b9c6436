/**
 * The controller's collaborators, assembled once: release lookup (cached by digest), the registry
 * check of built images, NodePool inputs from token Secrets, and the webhook's validation rules
 * reused by the controller, so an object admitted before the webhook was registered is still
 * refused.
 *
 * Seams (ReconcilerOptions, builder/controller/options.ts): `resolveRelease(releaseImage, {arch,
 * stream, pullSecret})`, which passes the pull secret and `{arch, osStream}` to the one release
 * resolver, and `verifyImage({pushRef, arch, baseImageRef, credentials})`, the registry check of a
 * built image (builder/registry/image-check.ts).
 */
import type { KubeObject } from './clusters/kube.js';
import type { NodePoolInputs, ReleaseImages, ResolveOptions, VerifyImageInput, VerifyImageResult } from './controller/options.js';
import { dockerConfigCredentials } from './registry/dockerconfig.js';
import { describeError } from './registry/describe-error.js';
import { verifyBuiltImage } from './registry/image-check.js';
import { NetGuard } from './registry/net-guard.js';
import { pushTargetProblem } from './registry/push-target.js';
import { ReleaseResolver } from './registry/release.js';
import { currentNodePoolInputs } from './clusters/token-secret.js';
import { configProblems } from './webhook/validate.js';
import { startWebhookServer } from './webhook/server.js';
import type { ControllerTelemetry } from './metrics/controller.js';


export function wiring(o: { cacheSize: number; insecure?: boolean; registryAllow?: string[]; telemetry?: ControllerTelemetry }) {
  // What runs on the management network reaches internal destinations only when allow-listed.
  const guard = new NetGuard({ allow: o.registryAllow ?? [] });
  const resolver = new ReleaseResolver({ cacheSize: o.cacheSize, insecure: o.insecure, connectPolicy: guard });
  return {
    guard,
    async resolveRelease(releaseImage: string, opts: ResolveOptions): Promise<ReleaseImages> {
      try {
        const r = await resolver.resolve(releaseImage, opts.pullSecret, { arch: opts.arch, ...(opts.stream ? { osStream: opts.stream } : {}) });
        o.telemetry?.releaseResolved(true);
        return r;
      } catch (e) {
        o.telemetry?.releaseResolved(false);
        throw new Error(describeError(e));
      }
    },
    async verifyImage(i: VerifyImageInput): Promise<VerifyImageResult> {
      const r = await verifyBuiltImage({
        pushRef: i.pushRef,
        arch: i.arch,
        baseImageRef: i.baseImageRef,
        credentials: dockerConfigCredentials(i.credentials, { file: 'push secret', path: '.dockerconfigjson' }),
        ...(i.baseCredentials !== undefined ? { baseCredentials: dockerConfigCredentials(i.baseCredentials, { file: 'pull secret', path: '.dockerconfigjson' }) } : {}),
        insecure: o.insecure,
        connectPolicy: guard,
      });
      o.telemetry?.imageVerified(r.ok ? 'Verified' : REGISTRY_UNREADABLE.has(r.reason) ? 'RegistryError' : 'Rejected');
      return r.ok ? { ok: true } : { ok: false, reason: `${r.reason}: ${r.message}` };
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
    /** The webhook's rules, push target included (the same guard's allow-list). */
    validateConfig(config: KubeObject): string[] {
      return configProblems(config, { pushTarget: (spec) => pushTargetProblem(spec, { allow: guard }) });
    },
    startWebhook: startWebhookServer,
  };
}

/** Image-check reasons that say the registry could not be read (not that the image is wrong). */
const REGISTRY_UNREADABLE = new Set<string>(['Unreachable', 'Timeout', 'Unauthorized', 'BaseUnavailable', 'Refused', 'TooLarge']);
