/**
 * What enters one build and names it: the Containerfile for the NodePool's architecture (the
 * NoArch one otherwise, MachineOSConfig's rule), the repository the build pushes to, and the hash
 * of the inputs that names the build, its record and its Job (a retry or a restarted controller
 * finds the Job it created). Pure.
 */
import { createHash } from 'node:crypto';
import type { KubeObject } from '../clusters/kube.js';
import { BUILD_NAME_HASH_LENGTH, LIMITS, NODE_POOL_NAME_MAX } from '../api/types.js';

const CONTAINERFILE_ARCH: Record<string, string> = { amd64: 'AMD64', arm64: 'ARM64', ppc64le: 'PPC64LE', s390x: 'S390X' };

/** The Containerfile for the NodePool's architecture, else the NoArch one (MachineOSConfig's rule). */
export function pickContainerfile(cfg: KubeObject & { spec?: Record<string, any> }, arch: string): string {
  const files: { containerfileArch?: string; content: string }[] = cfg.spec?.containerFile ?? [];
  const f = files.find((x) => x.containerfileArch === CONTAINERFILE_ARCH[arch]) ?? files.find((x) => (x.containerfileArch ?? 'NoArch') === 'NoArch');
  return f?.content ?? 'FROM configs AS final\n';
}

/** `host/ns/name:tag` → `host/ns/name` (the tag is replaced by the build's name, as upstream does). */
export function repositoryOf(spec: string): string {
  const at = spec.indexOf('@');
  const noDigest = at >= 0 ? spec.slice(0, at) : spec;
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  return colon > slash ? noDigest.slice(0, colon) : noDigest;
}

/** The hash of a build's inputs (key order does not count), `BUILD_NAME_HASH_LENGTH` hex digits. */
export function inputsHash(inputs: Record<string, string>): string {
  const canonical = JSON.stringify(Object.keys(inputs).sort().map((k) => [k, inputs[k]]));
  return createHash('sha256').update(canonical).digest('hex').slice(0, BUILD_NAME_HASH_LENGTH);
}

/**
 * The names of a config's build for inputs `hash`: its NodePoolOSBuild `<config>-<hash>` (a
 * DNS-1123 subdomain; the webhook checks this form) and its Job `build-<config>-<hash>` (a Job's
 * name is also a 63-character label value; a config's name fits it, `NODE_POOL_NAME_MAX`).
 */
export function buildNames(config: string, hash: string): { buildName: string; jobName: string } {
  return {
    buildName: `${config.slice(0, LIMITS.name - 1 - hash.length)}-${hash}`,
    jobName: `build-${config.slice(0, NODE_POOL_NAME_MAX).replace(/[.-]+$/, '')}-${hash}`,
  };
}
