/**
 * What the fleet process itself asks of registries, outside any build pod: a release tag's
 * digest (the build key), a release's base OS and MCO images (`resolveBase`), and the read-back
 * of a provider image (`verify`). Each trusts the provider's CA bundle besides the system's when
 * `--provider-trust-bundle` names one (a ConfigMap in `--namespace`, key `ca-bundle.crt`, read at
 * each look-up so a renewed CA needs no restart), as the build pods and the provider tag look-up
 * do (builder/fleet/provider-build.ts): a release mirror signed by a private CA is reachable.
 * Credentials: the push Secret's dockerconfigjson, never logged, never in a message.
 */
import { parseReference, RegistryClient, type ConnectPolicy } from 'pkogen/oci';
import { type Kube, RESOURCES } from '../clusters/kube.js';
import { builderImageFor } from '../controller/build-job.js';
import { describeError } from '../registry/describe-error.js';
import { dockerConfigCredentials, dockerConfigJson } from '../registry/dockerconfig.js';
import { verifyBuiltImage } from '../registry/image-check.js';
import { ReleaseResolver } from '../registry/release.js';
import type { BuildKey } from './build-registry.js';
import type { ProviderBase, ProviderBuildsOptions } from './provider-build.js';
import { readTrustBundle } from './trust-bundle.js';

/** pkogen's hint names its own CLI's remedies; the fleet's is the trust bundle. */
const fleetError = (e: unknown): Error => new Error(describeError(e).replace('; add its CA to NODE_EXTRA_CA_CERTS or use --insecure', "; the fleet trusts the system CAs and those of the ConfigMap --provider-trust-bundle names"));

export interface FleetRegistryLookupsOptions {
  management: Kube;
  /** The fleet's namespace: the push Secret and the trust bundle ConfigMap. */
  namespace: string;
  pushSecretName: string;
  /** `--provider-trust-bundle`; empty or absent: the system CAs only. */
  trustBundleConfigMap?: string;
  connectPolicy: ConnectPolicy;
  /** Release look-ups, cached (default: 16 releases). */
  resolver?: ReleaseResolver;
}

export interface FleetRegistryLookups {
  trustBundle: () => Promise<string | undefined>;
  resolveBase: (key: BuildKey, pullSecret: string | undefined) => Promise<ProviderBase>;
  resolveReleaseDigest: (releaseImage: string) => Promise<string>;
  verify: ProviderBuildsOptions['verify'];
}

export function fleetRegistryLookups(o: FleetRegistryLookupsOptions): FleetRegistryLookups {
  const resolver = o.resolver ?? new ReleaseResolver({ cacheSize: 16, connectPolicy: o.connectPolicy });
  const credentials = (auth: string | undefined) => dockerConfigCredentials(auth, { file: `Secret ${o.namespace}/${o.pushSecretName}`, path: '.dockerconfigjson' });
  const trustBundle = () => readTrustBundle(o.management, o.namespace, o.trustBundleConfigMap);
  return {
    trustBundle,
    async resolveBase(key, auth) {
      const ca = await trustBundle();
      let r;
      try {
        r = await resolver.resolve(key.releasePullSpec ?? key.releaseDigest, auth, { arch: key.arch, ...(key.stream ? { osStream: key.stream } : {}), ...(ca !== undefined ? { ca } : {}) });
      } catch (e) {
        throw fleetError(e);
      }
      const b = builderImageFor({ releaseVersion: r.version ?? '', mcoImage: r.machineConfigOperatorImage });
      if ('refused' in b) throw new Error(b.refused);
      return { baseOSImage: r.baseOSImage, builderImage: b.image };
    },
    async resolveReleaseDigest(releaseImage) {
      const ref = parseReference(releaseImage);
      if (ref.digest) return ref.digest;
      const s = await o.management.get(RESOURCES.secrets, o.pushSecretName, o.namespace);
      const auth = s ? dockerConfigJson(s) : undefined;
      const ca = await trustBundle();
      const c = new RegistryClient({ credentials: credentials(auth), connectPolicy: o.connectPolicy, attempts: 3, ...(ca !== undefined ? { ca } : {}) });
      try {
        return await c.resolveDigest(ref);
      } catch (e) {
        throw fleetError(e);
      } finally {
        c.close();
      }
    },
    async verify(i) {
      const r = await verifyBuiltImage({ pushRef: i.pushRef, arch: i.arch, baseImageRef: i.baseImageRef, credentials: credentials(i.credentials), connectPolicy: o.connectPolicy, ...(i.ca !== undefined ? { ca: i.ca } : {}) });
      return r.ok ? ({ ok: true } as const) : ({ ok: false, reason: `${r.reason}: ${r.message}` } as const);
    },
  };
}
