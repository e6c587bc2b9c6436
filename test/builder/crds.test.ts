import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from '@bufbuild/cel';
import { tempDir } from '../../pkogen/test/helpers.js';
import { createSchemaRegistry, type SchemaRegistry } from '../../pkogen/src/schema/registry.js';
import { nodePoolOSBuildCRD, nodePoolOSConfigCRD, onClusterBuildCRDs } from '../../builder/api/crds.js';
import { API_VERSION, BUILD_CONDITION_TYPES, BUILD_KIND, CONFIG_KIND, GROUP, VERSION } from '../../builder/api/types.js';

type Json = Record<string, any>;
const DIGEST = 'sha256:' + 'b'.repeat(64);

function schemaOf(crd: Json): Json {
  return crd.spec.versions[0].schema.openAPIV3Schema;
}

/** Every sub-schema with its path, for structural checks. */
function walk(s: Json, at: string, visit: (s: Json, at: string) => void): void {
  visit(s, at);
  for (const [k, v] of Object.entries<Json>(s.properties ?? {})) walk(v, `${at}.${k}`, visit);
  if (s.items) walk(s.items, `${at}[]`, visit);
}

const config = (over: Json = {}, name = 'workers'): Json => ({
  apiVersion: API_VERSION,
  kind: CONFIG_KIND,
  metadata: { name },
  spec: {
    nodePool: { name: 'workers' },
    imageBuilder: { imageBuilderType: 'Job' },
    renderedImagePushSecret: { name: 'push' },
    renderedImagePushSpec: 'quay.example.com/org/os:latest',
    containerFile: [{ containerfileArch: 'AMD64', content: 'FROM configs AS final\nRUN true\n' }],
    ...over,
  },
});

const build = (over: Json = {}, status?: Json): Json => ({
  apiVersion: API_VERSION,
  kind: BUILD_KIND,
  metadata: { name: 'workers-0123456789' },
  spec: {
    nodePoolOSConfig: { name: 'workers' },
    nodePool: { name: 'workers' },
    releaseImage: 'quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64',
    baseOSImage: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${DIGEST}`,
    renderedImagePushSpec: 'quay.example.com/org/os:latest',
    ...over,
  },
  ...(status ? { status } : {}),
});

describe('the on-cluster-build CRDs', () => {
  const tmp = tempDir('pkogen-crds-');
  let registry: SchemaRegistry;
  beforeAll(() => {
    const file = path.join(tmp.dir, 'crds.yaml');
    // JSON is YAML: the registry reads the CRDs exactly as the package will carry them.
    writeFileSync(file, onClusterBuildCRDs().map((c) => JSON.stringify(c)).join('\n---\n') + '\n');
    registry = createSchemaRegistry({ crdFiles: [file] });
  });
  afterAll(() => tmp.cleanup());

  const issues = (obj: Json): string[] => {
    const r = registry.validate(obj);
    expect(r.known).toBe(true);
    return r.issues.map((i) => `${i.path}: ${i.message}`);
  };

  test('the CRD objects are valid apiextensions.k8s.io/v1 CustomResourceDefinitions', () => {
    for (const crd of onClusterBuildCRDs()) expect(issues(crd)).toEqual([]);
  });

  test('names, scope, short names, category and the status subresource', () => {
    const [c, b] = [nodePoolOSConfigCRD(), nodePoolOSBuildCRD()] as Json[];
    expect(c!.metadata.name).toBe(`nodepoolosconfigs.${GROUP}`);
    expect(b!.metadata.name).toBe(`nodepoolosbuilds.${GROUP}`);
    for (const [crd, short] of [[c, 'nposc'], [b, 'nposb']] as [Json, string][]) {
      expect(crd.spec.scope).toBe('Cluster');
      expect(crd.spec.names.shortNames).toEqual([short]);
      expect(crd.spec.names.categories).toEqual(['on-cluster-build']);
      expect(crd.spec.versions).toHaveLength(1);
      expect(crd.spec.versions[0]).toMatchObject({ name: VERSION, served: true, storage: true, subresources: { status: {} } });
    }
    expect(b!.spec.versions[0].additionalPrinterColumns.map((p: Json) => p.name)).toEqual(['NodePool', ...BUILD_CONDITION_TYPES, 'Age']);
  });

  test('structural: every field has a type and a description; every string and list is bounded', () => {
    for (const crd of onClusterBuildCRDs()) {
      walk(schemaOf(crd), '', (s, at) => {
        if (at === '.metadata') return; // ObjectMeta is the API server's
        expect([at, typeof s.type]).toEqual([at, 'string']);
        if (at !== '') expect([at, typeof s.description === 'string' && s.description.length > 0]).toEqual([at, true]);
        // Bounds keep the API server's CEL cost estimate small.
        if (s.type === 'string' && !s.enum && !s.format && at !== '.apiVersion' && at !== '.kind') expect([at, typeof s.maxLength]).toEqual([at, 'number']);
        if (s.type === 'array') expect([at, typeof s.maxItems]).toEqual([at, 'number']);
      });
    }
  });

  test('list-map keys are required or defaulted, as the API server demands', () => {
    for (const crd of onClusterBuildCRDs()) {
      walk(schemaOf(crd), '', (s, at) => {
        if (s['x-kubernetes-list-type'] !== 'map') return;
        for (const key of s['x-kubernetes-list-map-keys'] as string[]) {
          const defaulted = s.items.properties[key]?.default !== undefined;
          expect([at, key, defaulted || (s.items.required ?? []).includes(key)]).toEqual([at, key, true]);
        }
      });
    }
  });

  test('every CEL rule parses and uses no Kubernetes-only library', () => {
    let rules = 0;
    for (const crd of onClusterBuildCRDs()) {
      walk(schemaOf(crd), '', (s) => {
        for (const r of (s['x-kubernetes-validations'] ?? []) as Json[]) {
          rules++;
          expect(() => parse(r.rule)).not.toThrow();
          expect(r.rule).not.toMatch(/format\.|quantity\(|optionalOldSelf/);
          expect(typeof r.message).toBe('string');
        }
      });
    }
    expect(rules).toBeGreaterThanOrEqual(10);
  });

  test('good sample objects are accepted, and CEL rules ran', () => {
    const before = registry.celStats().evaluated;
    expect(issues(config())).toEqual([]);
    expect(issues(config({ containerFile: undefined, baseImagePullSecret: { name: 'pull' } }))).toEqual([]);
    expect(issues(build({}, {
      conditions: [{ type: 'Succeeded', status: 'True', reason: 'BuildSucceeded', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }],
      builder: { imageBuilderType: 'Job', job: { group: 'batch', resource: 'jobs', namespace: 'clusters-demo', name: 'build-workers-0123456789' } },
      buildStart: '2026-01-01T00:00:00Z',
      buildEnd: '2026-01-01T00:10:00Z',
      digestedImagePushSpec: `quay.example.com/org/os@${DIGEST}`,
      relatedObjects: [{ group: '', resource: 'configmaps', namespace: 'clusters-demo', name: 'build-workers-0123456789' }],
    }))).toEqual([]);
    expect(registry.celStats().evaluated).toBeGreaterThan(before);
  });

  test.each<[string, Json, string]>([
    ['name not the NodePool', config({}, 'other'), 'metadata.name must equal spec.nodePool.name'],
    ['no final stage (CEL)', config({ containerFile: [{ content: 'FROM scratch' }] }), 'spec.containerFile[0].content: must contain the line "FROM configs AS final"'],
    ['digest push spec (CEL)', config({ renderedImagePushSpec: `quay.example.com/org/os@${DIGEST}` }), 'spec.renderedImagePushSpec: must be host[:port][/namespace]/name:tag'],
    ['duplicate arch (list-map)', config({ containerFile: [{ containerfileArch: 'AMD64', content: 'FROM configs AS final' }, { containerfileArch: 'AMD64', content: 'FROM configs AS final' }] }), 'spec.containerFile: duplicate entry: items 0 and 1'],
    ['bad secret name (pattern)', config({ renderedImagePushSecret: { name: 'Bad_Name' } }), 'spec.renderedImagePushSecret.name: must match the regular expression'],
    ['unknown field', config({ extra: true }), 'spec.extra: unknown field'],
    ['builder type', config({ imageBuilder: { imageBuilderType: 'Pod' } }), 'spec.imageBuilder.imageBuilderType: must be one of "Job"'],
    ['build job missing', build({}, { builder: { imageBuilderType: 'Job' } }), 'status.builder: job is required when imageBuilderType is Job'],
    ['tagged digested push spec', build({}, { digestedImagePushSpec: 'quay.example.com/org/os:latest' }), 'status.digestedImagePushSpec: must be host[:port][/namespace]/name@sha256:'],
    ['release image with spaces', build({ releaseImage: 'quay.io/x y:1' }), 'spec.releaseImage: must match the regular expression'],
  ])('%s is refused', (_, obj, text) => {
    expect(issues(obj).join('\n')).toContain(text);
  });
});
