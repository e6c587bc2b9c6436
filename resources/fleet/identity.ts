/**
 * Who the fleet component is on the management cluster: one namespace, one
 * ServiceAccount (and, apart, the namespace its provider builds run in, FLEET_BUILD_NAMESPACE). The per-HCP package binds the hand-off rights to this ServiceAccount in each
 * HCP namespace, and the fleet package's ValidatingAdmissionPolicies match its username; both
 * read these names from here.
 */
import { FLEET_NAMESPACE } from '../../builder/fleet/rbac.js';
export { FLEET_BUILD_NAMESPACE, FLEET_LEASE_NAME, FLEET_NAMESPACE, PUSH_SECRET_NAME } from '../../builder/fleet/rbac.js';

export const FLEET_NAME = FLEET_NAMESPACE;
export const FLEET_SERVICE_ACCOUNT = FLEET_NAME;
/** The Kubernetes username of the fleet ServiceAccount's tokens (`request.userInfo.username` in the VAPs). */
export const FLEET_USERNAME = `system:serviceaccount:${FLEET_NAMESPACE}:${FLEET_SERVICE_ACCOUNT}`;
