/**
 * The package model: a manifest plus objects assigned to phases. Pure data; `synthesize`
 * (render.ts) turns it into files. Template expressions are ordinary strings (or RawValue /
 * RawEntry for whole fragments); a file that contains any becomes a `.gotmpl` file.
 */
import type { YamlValue } from '../yaml/emit.js';
import type {
  JSONSchemaProps,
  ObjectSetProbe,
  PackageManifestConstraint,
  PackageManifest,
  PackageManifestImage,
  PackageManifestPhase,
  PackageManifestScope,
  PackageManifestSpec,
  PackageManifestTestCaseTemplate,
} from '../pko/types.js';

/** A Kubernetes object as the model holds it: plain data with optional template fragments. */
export type KubeObject = { apiVersion: string; kind: string; metadata: { name: string; [k: string]: YamlValue | undefined }; [k: string]: YamlValue | undefined };

export interface PackageObject {
  /** Name of a phase declared in the package. */
  phase: string;
  object: KubeObject;
  /**
   * Path of the file (without `.gotmpl`) the object goes into. Objects that share a path become
   * documents of one file in the order given. Default: `<phase>/<name>.<kind>.yaml`.
   */
  file?: string;
}

export interface PackageDefinition {
  name: string;
  scopes: PackageManifestScope[];
  phases: PackageManifestPhase[];
  availabilityProbes?: ObjectSetProbe[];
  config?: JSONSchemaProps;
  images?: PackageManifestImage[];
  constraints?: PackageManifestConstraint[];
  testCases?: PackageManifestTestCaseTemplate[];
  /** spec.filter: CEL conditions and path filters, as PKO reads them. */
  filter?: PackageManifestSpec['filter'];
  /** spec.components: a multi-component package (its components/<name>/ directories go in `files`). */
  components?: boolean;
  /** spec.repositories: package repositories (an index file in the package, or an image) for spec.dependencies. */
  repositories?: PackageManifestSpec['repositories'];
  /** spec.dependencies: other packages this one needs (`kubectl package update` locks them in manifest.lock.yaml). */
  dependencies?: PackageManifestSpec['dependencies'];
  /** test.kubeconform: PKO validates rendered test cases with kubeconform for this Kubernetes version. */
  kubeconform?: NonNullable<PackageManifest['test']>['kubeconform'];
  objects: PackageObject[];
  /** Extra files copied as they are (helpers `_x.gotmpl`, README.md, …). */
  files?: Record<string, string>;
}

export function defaultObjectPath(o: PackageObject): string {
  return `${o.phase}/${o.object.metadata.name}.${o.object.kind}.yaml`;
}

/** An example image when none is given (init's scaffold, kickstart's test case): pinned by digest (a placeholder), so --strict accepts it. */
export function placeholderImage(name: string): string {
  return `quay.io/example/${name}@sha256:${'0'.repeat(64)}`;
}
