/**
 * A NodePoolOSConfig as large as the CRD (builder/api/crds.ts) and the webhook's size check
 * (builder/webhook/bounds.ts) let a tenant make it: four Containerfiles (one per arch, the
 * `containerFile` maxItems) of `LIMITS.containerFileContent` characters, a push spec and Secret
 * names at their maxLength, and a status the tenant wrote with `LIMITS.conditions` conditions,
 * each with a type, reason and message at their maxLength: ~290 kB of JSON. Shared by the
 * controller's bounds test and its bench.
 */
import { LIMITS } from '../../builder/api/types.js';

const GV = 'on-cluster-build.pkogen.io/v1alpha1';
const ARCHES = ['NoArch', 'AMD64', 'ARM64', 'PPC64LE'];

/** `s` repeated or cut to exactly `n` characters. */
const fill = (s: string, n: number) => s.repeat(Math.ceil(n / s.length)).slice(0, n);

function containerfile(i: number, arch: string): string {
  const head = `FROM configs AS final\nRUN echo ${i} ${arch} > /etc/layered\nRUN echo `;
  return `${head}${fill('x', LIMITS.containerFileContent - head.length - 1)}\n`;
}

/** `name` is also the NodePool's (the CRD's rule); `creationTimestamp` when the caller's server keeps it. */
export function maximalConfig(name: string, i: number, pushHost: string, pushSecret: string): Record<string, unknown> {
  const repo = `${pushHost}/layered/${name}`;
  const tag = `:${fill('t', 128)}`;
  const path = fill('/abcdefghij', LIMITS.imageSpec - repo.length - tag.length);
  const pushSpec = `${repo}${path.endsWith('/') ? `${path.slice(0, -1)}a` : path}${tag}`;
  const now = '2026-11-20T00:00:00Z';
  const types = ['Available', 'Building', 'Degraded', 'WaitingForCapacity', 'NodesUpdated'];
  while (types.length < LIMITS.conditions) types.push(`example.com/${fill(`Extra${types.length}x`, LIMITS.conditionType - 'example.com/'.length)}`);
  return {
    apiVersion: GV,
    kind: 'NodePoolOSConfig',
    metadata: { name },
    spec: {
      nodePool: { name },
      imageBuilder: { imageBuilderType: 'Job' },
      renderedImagePushSecret: { name: pushSecret },
      renderedImagePushSpec: pushSpec,
      containerFile: ARCHES.map((a) => ({ containerfileArch: a, content: containerfile(i, a) })),
    },
    status: {
      observedGeneration: 1,
      conditions: types.map((type, k) => ({
        type,
        status: 'False',
        reason: fill(`Forged${k}`, LIMITS.conditionReason),
        message: fill(`written by the tenant ${k} `, LIMITS.conditionMessage),
        lastTransitionTime: now,
        observedGeneration: 1,
      })),
    },
  };
}
