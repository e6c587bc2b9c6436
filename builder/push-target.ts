/**
 * Can the nodes of a hosted cluster pull a pushed image at first boot? A new machine rebases to
 * the built image before anything in the hosted cluster runs, with the credentials its ignition
 * gave it: `/var/lib/kubelet/config.json`, rendered from the HostedCluster's pull secret (the HCP
 * namespace's `pull-secret`; evidence in docs/design.md "Image nodes can pull at first boot").
 * A push target that those credentials do not cover would leave new machines unable to join, so
 * the controller refuses it, and the webhook can refuse it with the same rule.
 *
 * The lookup is the container auth lookup (containers/image `pkg/docker/config`): the
 * repository, each parent namespace, then the host; URL keys mean the host; Docker Hub's
 * aliases are one host. Pure; never puts a credential in its answer.
 */
import { UserError } from '../src/core/errors.js';
import { authKeysFor } from '../src/oci/credentials.js';
import { parseReference, ReferenceError } from '../src/oci/reference.js';
import { credentialFor, parseDockerConfigJson } from './dockerconfig.js';

export type PullCoverage = { covered: true; key: string } | { covered: false; reason: string };

/**
 * Whether `pushSpec` (`host[:port]/path/name[:tag|@digest]`) is covered by an entry of the
 * `.dockerconfigjson` text `pullSecret`. `where` names the pull secret in messages.
 */
export function pushTargetCoveredByPullSecret(pushSpec: string, pullSecret: string | undefined, where = 'the hosted cluster pull secret'): PullCoverage {
  let registry: string;
  let repository: string;
  try {
    ({ registry, repository } = parseReference(pushSpec));
  } catch (e) {
    if (e instanceof ReferenceError) return { covered: false, reason: `${JSON.stringify(pushSpec)} is not an image reference: ${e.message}` };
    throw e;
  }
  if (pullSecret === undefined) return { covered: false, reason: `${where} is missing, so nodes have no credentials for ${registry}` };
  try {
    const cfg = parseDockerConfigJson(pullSecret, { file: where, path: '.dockerconfigjson' });
    if (credentialFor(cfg, registry, repository)) {
      const key = authKeysFor(registry, repository).find((k) => cfg.auths.has(k))!;
      return { covered: true, key };
    }
  } catch (e) {
    if (e instanceof UserError) return { covered: false, reason: e.describe() };
    throw e;
  }
  return {
    covered: false,
    reason: `${where} has no credentials for ${registry}/${repository} (looked up ${authKeysFor(registry, repository).join(', ')}); new nodes pull the built image at first boot with it and could not join; push to a registry it covers or add one to the HostedCluster's pull secret`,
  };
}
