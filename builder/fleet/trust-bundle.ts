/**
 * The provider's CA bundle as the fleet reads it for its build pods and its own registry look-ups:
 * one reader, so both trust the same PEM.
 */
import { Kube, RESOURCES } from '../clusters/kube.js';
import { trustBundleOf } from '../hypershift/nodepool-facts.js';

/**
 * The provider's CA bundle (`--provider-trust-bundle`), or undefined when none is named; a
 * missing or unusable ConfigMap is an error that names it. Read by a list of the fleet
 * namespace's ConfigMaps (its Role lists them; a `get` by a configurable name is no rule RBAC can
 * narrow).
 */
export async function readTrustBundle(management: Kube, namespace: string, name: string | undefined): Promise<string | undefined> {
  if (!name) return undefined;
  const cm = (await management.list(RESOURCES.configMaps, { namespace, keep: (o) => (o.metadata.name === name ? o : undefined) })).items[0];
  if (!cm) throw new Error(`ConfigMap ${namespace}/${name} (--provider-trust-bundle) is missing`);
  const t = trustBundleOf(cm as never);
  if ('error' in t) throw new Error(t.error);
  if (t.pem === undefined) throw new Error(`ConfigMap ${namespace}/${name} (--provider-trust-bundle) has no PEM in key ca-bundle.crt`);
  return t.pem;
}
