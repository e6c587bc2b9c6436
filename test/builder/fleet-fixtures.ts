/**
 * Shared pieces of the fleet tests: a provider-only hand-off (no NodePoolOSConfig label: the gate
 * rewrites it itself) and a tenant-layered one (the per-HCP controller's: the gate asks for it
 * through the wanted-release annotation).
 */
import { CONFIG_LABEL } from '../../builder/controller/build-job.js';
import { HANDOFF_RELEASE_ANNOTATION, handoffConfigMap } from '../../builder/controller/handoff.js';
import type { KubeObject } from '../../builder/clusters/kube.js';

export function providerHandoff(hcpNamespace: string, nodePool: string, image: string, release: string): KubeObject {
  const cm = handoffConfigMap(hcpNamespace, nodePool, '', image);
  delete cm.metadata.labels![CONFIG_LABEL];
  cm.metadata.annotations = { [HANDOFF_RELEASE_ANNOTATION]: release };
  return cm;
}

export function tenantHandoff(hcpNamespace: string, nodePool: string, config: string, image: string, release: string): KubeObject {
  const cm = handoffConfigMap(hcpNamespace, nodePool, config, image);
  cm.metadata.annotations = { [HANDOFF_RELEASE_ANNOTATION]: release };
  return cm;
}
