/**
 * `pkogen/k8s`: TypeScript types of every kind pkogen validates, generated from the same schemas
 * as its validators: the built-in Kubernetes kinds (served API versions, from kubernetes-models'
 * declarations: hack/gen-k8s-types.mjs) at the top level (`Deployment`, `Service`, …; a kind
 * served in two versions or groups is qualified: `AutoscalingV2HorizontalPodAutoscaler`,
 * `EventsV1Event`), and the OpenShift kinds (from the pinned CRDs: hack/gen-openshift-types.mjs)
 * one namespace per group/version (`routeV1.Route`, `securityV1.SecurityContextConstraints`,
 * `monitoringV1.ServiceMonitor`). Types only: `import type { Deployment } from 'pkogen/k8s'` loads
 * nothing at run time. An object of these types is a KubeObject (pkogen/model).
 */
export type * from '../schema/generated/k8s-types.js';
export type * as cloudcredentialV1 from '../schema/generated/openshift-types/cloudcredential.openshift.io_v1.js';
export type * as configV1 from '../schema/generated/openshift-types/config.openshift.io_v1.js';
export type * as monitoringV1 from '../schema/generated/openshift-types/monitoring.coreos.com_v1.js';
export type * as operatorsV1 from '../schema/generated/openshift-types/operators.coreos.com_v1.js';
export type * as operatorsV1alpha1 from '../schema/generated/openshift-types/operators.coreos.com_v1alpha1.js';
export type * as operatorsV1alpha2 from '../schema/generated/openshift-types/operators.coreos.com_v1alpha2.js';
export type * as operatorsV2 from '../schema/generated/openshift-types/operators.coreos.com_v2.js';
export type * as routeV1 from '../schema/generated/openshift-types/route.openshift.io_v1.js';
export type * as securityV1 from '../schema/generated/openshift-types/security.openshift.io_v1.js';
