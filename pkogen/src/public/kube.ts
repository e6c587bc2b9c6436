/** `pkogen/kube`: the small Kubernetes REST client pkogen's `status` uses, for a team's own controller or tool. */
export {
  apiVersionOf,
  connect,
  kubeRequest,
  KubeApiError,
  resourcePath,
  type ConnectOptions,
  type KubeConfigLike,
  type KubeObject,
  type KubeReader,
  type KubeRequestOptions,
  type ListOptions,
  type Resource,
  type WatchEvent,
} from '../kube/client.js';
