/**
 * Where a process's Kubernetes Events go (builder/metrics/events.ts EventSink): core/v1 Events
 * created in the involved object's namespace, and merge-patched (count, lastTimestamp, message)
 * when the recorder sees the same Event again. The only Event verbs our Roles grant.
 */
import { Kube, KubeObject, RESOURCES } from './kube.js';

export function kubeEventSink(kube: Kube) {
  return {
    create: (e: object) => kube.create(RESOURCES.events, e as KubeObject),
    patch: (namespace: string, name: string, patch: { count: number; lastTimestamp: string; message: string }) => kube.mergePatch(RESOURCES.events, name, namespace, patch),
  };
}
