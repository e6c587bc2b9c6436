/**
 * The rollback write: after `fleet-rollout rollback`, each NodePool this rollout changed forward
 * gets back the hand-off it had before (the image and release its entry recorded), under the same
 * policy and bounds (the planner admits `rollback` changes only within maxConcurrency and the
 * per-HostedCluster bound; under Progressive the canaries go back first, as they went forward). Only a provider-only hand-off still for that release is rewritten: a
 * NodePool whose release changed since would get an image built for another release (never), and a
 * tenant-layered one is the per-HCP controller's to rebuild.
 */
import { Kube, KubeObject, RESOURCES } from '../../clusters/kube.js';
import { CONFIG_LABEL } from '../../controller/build-job.js';
import { handedOffImage, handoffConfigMap, handoffName, HANDOFF_RELEASE_ANNOTATION } from '../../controller/handoff.js';
import type { RolloutRequest } from '../gate.js';
import type { RolloutEngine } from './engine.js';

export type RollbackStep = { did: 'none' } | { did: 'written'; image: string } | { did: 'deferred'; reason: string } | { did: 'skipped'; reason: string };

export async function rollbackStep(o: { management: Kube; engine: RolloutEngine; key: string; nodePool: KubeObject; hcpNamespace: string }): Promise<RollbackStep> {
  const target = o.engine.rollbackTarget(o.key);
  if (!target) return { did: 'none' };
  const name = o.key.slice(o.key.indexOf('/') + 1);
  const cm = await o.management.get<KubeObject & { data?: Record<string, string> }>(RESOURCES.configMaps, handoffName(name), o.hcpNamespace);
  const skip = (reason: string): RollbackStep => {
    o.engine.rollbackSkipped(o.key); // canaries first: the others do not wait for a rollback never written
    return { did: 'skipped', reason };
  };
  if (!cm) return skip('no hand-off to roll back');
  if (cm.metadata.labels?.[CONFIG_LABEL] !== undefined) return skip('a tenant-layered hand-off: the per-HCP controller rebuilds it');
  if (cm.metadata.annotations?.[HANDOFF_RELEASE_ANNOTATION] !== target.releaseImage) return skip(`the hand-off is for another release than the previous image (${target.releaseImage}) was built for`);
  const r: RolloutRequest = { key: o.key, nodePool: o.nodePool, change: 'rollback', image: target.image, releaseImage: target.releaseImage };
  if (handedOffImage(cm.data?.config ?? '') === target.image) {
    // Written before (a crash after the write): record it.
    const d = await o.engine.admit(r);
    if (d.admit) o.engine.started(r);
    return d.admit ? { did: 'written', image: target.image } : { did: 'deferred', reason: d.reason };
  }
  const d = await o.engine.admit(r);
  if (!d.admit) return { did: 'deferred', reason: d.reason };
  // The hand-off's own metadata kept (labels, annotations, resourceVersion: a concurrent write wins and is re-read); only the config changes.
  await o.management.update(RESOURCES.configMaps, { ...cm, data: { ...(cm.data ?? {}), config: (handoffConfigMap(o.hcpNamespace, name, '', target.image) as KubeObject & { data: { config: string } }).data.config } } as KubeObject);
  o.engine.started(r);
  return { did: 'written', image: target.image };
}
