/**
 * simulate over 2,000 HCP namespaces: oc process, hive/ACM selection, fan-out, ObjectTemplate
 * rendering with the service-CA source, Package schema check, config admission and PKO render of
 * a static package per namespace. Target: < 10 s.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { readDirToFileMap } from '../../src/core/fs.js';
import { defaultFleet, hcpNamespaceNames } from '../../src/rollout/fleet.js';
import { emitRolloutTemplate, RolloutTemplateOptions } from '../../src/rollout/generate.js';
import { packageChecker } from '../../src/rollout/package-check.js';
import { renderObjectTemplateText, renderWithPko } from '../../src/rollout/pko-render.js';
import { rolloutSchemaValidator } from '../../src/rollout/schema.js';
import { simulateRollout } from '../../src/rollout/simulate.js';
import { OUR_PACKAGE, ourRolloutOptions } from './repo.js';

const N = 2000;
const TARGET_MS = 10_000;

const OPTIONS: RolloutTemplateOptions = await ourRolloutOptions();

// The parameters our rollout Template declares (resources/: REGISTRY_IMG, IMAGE_DIGEST, IMAGE_TAG,
// ON_CLUSTER_BUILD_IMAGE); the ObjectTemplate gives the Package {image, serviceCA} as config.
const DIGEST = 'sha256:' + 'a'.repeat(64);
const PARAMS = {
  REGISTRY_IMG: 'quay.io/app-sre/on-cluster-build-hs-package',
  IMAGE_DIGEST: DIGEST,
  IMAGE_TAG: 'abc1234',
  ON_CLUSTER_BUILD_IMAGE: 'quay.io/app-sre/on-cluster-build@' + DIGEST,
};

async function measure(label: string, opts: RolloutTemplateOptions, renderPackage: ReturnType<typeof packageChecker> | undefined): Promise<string> {
  const text = emitRolloutTemplate(opts);
  const fleet = defaultFleet(hcpNamespaceNames(N));
  const schema = rolloutSchemaValidator();
  simulateRollout('warmup.yaml', text, { parameters: PARAMS, fleet: defaultFleet(hcpNamespaceNames(5)), schema, renderTemplate: renderObjectTemplateText, renderPackage });
  const t0 = process.hrtime.bigint();
  const r = simulateRollout('bench.yaml', text, { parameters: PARAMS, fleet, schema, renderTemplate: renderObjectTemplateText, renderPackage });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const valid = r.packages.filter((p) => p.package && !p.findings.some((f) => f.severity === 'error')).length;
  const firstError = r.packages.flatMap((p) => p.findings).find((f) => f.severity === 'error')?.message;
  return `| ${label} | ${N} | ${r.packages.length} | ${valid} | ${ms.toFixed(0)} | ${(ms / N).toFixed(2)} | ${ms < TARGET_MS && valid === N ? 'yes' : 'no'}${firstError ? ` (${firstError.slice(0, 80)})` : ''} |`;
}

export async function bench(): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pkogen-bench-rollout-'));
  try {
    writeFileSync(path.join(dir, 'manifest.yaml'), `apiVersion: manifests.package-operator.run/v1alpha1
kind: PackageManifest
metadata: {name: on-cluster-build}
spec:
  scopes: [Namespaced]
  phases: [{name: deploy}]
  config:
    openAPIV3Schema:
      type: object
      properties:
        image: {type: string}
        serviceCA: {type: string}
`);
    writeFileSync(path.join(dir, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ocb\n  annotations:\n    package-operator.run/phase: deploy\ndata: {a: b}\n');
    // A templated workload per namespace, like the real package's builder controller.
    writeFileSync(path.join(dir, 'deployment.yaml.gotmpl'), `apiVersion: apps/v1
kind: Deployment
metadata:
  name: machine-os-builder
  namespace: {{ .package.metadata.namespace }}
  annotations:
    package-operator.run/phase: deploy
    hosted-cluster: {{ .environment.hyperShift.hostedCluster.metadata.name | quote }}
spec:
  replicas: 1
  selector: {matchLabels: {app: machine-os-builder}}
  template:
    metadata: {labels: {app: machine-os-builder}}
    spec:
      containers:
      - name: builder
        image: {{ .config.image }}
        env:
        - name: NAMESPACE
          value: {{ .package.metadata.namespace | quote }}
{{- if hasKey .config "serviceCA" }}
        - name: SERVICE_CA
          value: {{ .config.serviceCA | toJson }}
{{- end }}
`);
    const checker = packageChecker(await readDirToFileMap(dir), renderWithPko);
    const rows = [
      await measure('ObjectTemplate + service CA source, without --package (the chain alone)', OPTIONS, undefined),
      await measure('ObjectTemplate + service CA source, small templated package', OPTIONS, checker),
      await measure('Package (no sources), small templated package', { ...OPTIONS, sources: [] }, checker),
    ];
    // Our own package (13 objects, templated), when the bench runs from the repository root.
    if (existsSync(path.join(OUR_PACKAGE, 'manifest.yaml'))) {
      rows.push(await measure('ObjectTemplate + service CA source, our package (package/)', OPTIONS, packageChecker(await readDirToFileMap(OUR_PACKAGE), renderWithPko)));
    }
    return [
      '## Rollout simulate (2,000 HCP namespaces)',
      '',
      'Whole chain per run: oc process with saasherder parameters, lint, SelectorSyncSet and placement selection, namespaceSelector fan-out over 2,000 HCP namespaces, per namespace the ObjectTemplate rendered with its ConfigMap source, the Package checked against its CRD, config admitted against the package schema and the package (a ConfigMap and a templated Deployment using config and the HyperShift environment) rendered by the PKO renderer. Target: < 10 s for 2,000 namespaces.',
      '',
      '| form | namespaces | Packages | valid | total ms | ms/namespace | target met |',
      '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
      ...rows,
      '',
      `Machine: ${cpus().length} CPUs, load average ${loadavg().map((l) => l.toFixed(1)).join(' / ')} when measured (numbers scale with contention). The chain itself is the first row; the rest is the PKO renderer (template execution and YAML parsing of every rendered object per namespace).`,
      '',
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
