/**
 * `pkogen status --explain NS/NAME`: why a Package is Invalid, as located findings. Pulls its
 * image, takes the config PKO admitted (the ObjectDeployment's package-config annotation, else the
 * Package's spec.config) and the namespace's HyperShift environment as PKO derives it, then runs
 * `pkogen validate`'s checks and a render with that config.
 */
import { UserError, type Finding } from '../../core/errors.js';
import type { CliIO } from '../io.js';
import { findingLines, renderReport } from '../output.js';
import { registryOptions } from '../registry-options.js';
import { PKO, type KubeReader, type Resource } from '../../kube/client.js';
import { pullImage } from '../../oci/sources.js';
import { packageFilesFromImage } from '../../pko/package-image.js';
import { loadPackage } from '../../pko/loader.js';
import { renderPackage } from '../../pko/render.js';
import { toUserError } from '../../pko/render-errors.js';
import type { PackageEnvironment } from '../../pko/types.js';
import { Violation } from '../../pko/types.js';
import { validatePackage, violationFinding } from '../../pko/validate.js';
import { ANN_CONFIG, conditionsOf } from '../../status/model.js';

const HOSTED_CLUSTERS: Resource = { group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'HostedCluster', plural: 'hostedclusters', namespaced: true };

/** PKO's environment for a namespace: hyperShift.hostedCluster when a HostedCluster's control-plane namespace is `ns`. */
export async function environmentFor(kube: KubeReader, ns: string): Promise<PackageEnvironment> {
  const hcs = await kube.list(HOSTED_CLUSTERS);
  if (!hcs) return {};
  for (const hc of hcs.items) {
    // HostedClusterNamespace: "<namespace>-<name with dots as dashes>".
    if (`${hc.metadata.namespace}-${hc.metadata.name.replace(/\./g, '-')}` !== ns) continue;
    const spec = (hc.spec ?? {}) as { nodeSelector?: Record<string, string> };
    return {
      hyperShift: {
        hostedCluster: {
          metadata: { name: hc.metadata.name, namespace: hc.metadata.namespace ?? '', labels: hc.metadata.labels ?? {}, annotations: hc.metadata.annotations ?? {} } as never,
          hostedClusterNamespace: ns,
          nodeSelector: spec.nodeSelector,
        },
      },
    };
  }
  return { hyperShift: { hostedCluster: null } };
}

export async function explain(kube: KubeReader, ns: string, name: string, io: CliIO, insecure: boolean, output = 'text'): Promise<number> {
  const pkg = await kube.get(PKO.packages, name, ns);
  if (!pkg) throw new UserError(`Package ${ns}/${name} not found at ${kube.server}`);
  const invalid = conditionsOf(pkg).find((c) => c.type === 'Invalid');
  const head = invalid?.status === 'True' ? `Package ${ns}/${name} is Invalid (${invalid.reason ?? 'no reason'}): ${invalid.message ?? ''}\n` : `Package ${ns}/${name} is not Invalid; validating its image anyway\n`;
  const image = String((pkg.spec as { image?: unknown } | undefined)?.image ?? '');
  if (!image) throw new UserError(`Package ${ns}/${name} has no spec.image`);
  const od = await kube.get(PKO.objectDeployments, name, ns);
  let config: Record<string, unknown> = ((pkg.spec as { config?: unknown }).config as Record<string, unknown> | undefined) ?? {};
  const ann = od?.metadata.annotations?.[ANN_CONFIG];
  if (ann !== undefined) {
    try {
      const v = JSON.parse(ann);
      if (v && typeof v === 'object' && !Array.isArray(v)) config = v;
    } catch {
      // PKO writes JSON here; anything else is ignored in favour of spec.config.
    }
  }
  const environment = await environmentFor(kube, ns);
  const img = await pullImage(image, registryOptions(io, insecure));
  const findings: Finding[] = [];
  let fm;
  try {
    fm = packageFilesFromImage(img).files;
  } catch (e) {
    if (!(e instanceof Violation)) throw e;
    findings.push(violationFinding(e));
  }
  if (fm) {
    findings.push(...(await validatePackage(fm)));
    if (!findings.some((f) => f.severity === 'error')) {
      try {
        const loaded = loadPackage(fm);
        renderPackage({ manifest: loaded.manifest, lock: loaded.manifestLock, files: loaded.files, package: { metadata: { name, namespace: ns }, image }, config, environment, rejectInvalidConfig: true });
      } catch (e) {
        const ue = toUserError(e);
        findings.push({ severity: 'error', rule: 'pko/render-with-config', message: ue.message, ...ue.location });
      }
    }
  }
  const errors = findings.filter((f) => f.severity === 'error').length;
  const ok = !(errors || invalid?.status === 'True');
  io.stdout(renderReport(output, {
    command: 'status --explain',
    subject: `${ns}/${name}`,
    findings,
    ok,
    result: { image, invalid: invalid?.status === 'True' ? { reason: invalid.reason ?? '', message: invalid.message ?? '' } : null },
    text: () =>
      head +
      `image ${image}\n` +
      findingLines(findings) +
      (errors ? `${errors} error(s) with this Package's config and environment\n` : 'no error found with this config and environment: the Invalid condition may be stale or come from the cluster\n'),
  }));
  return ok ? 0 : 1;
}
