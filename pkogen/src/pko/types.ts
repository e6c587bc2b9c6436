/**
 * Package Operator's data types (manifests.package-operator.run/v1alpha1), as TypeScript, and
 * PKO's one error type. Field names and JSON keys follow package-operator's
 * apis/manifests/v1alpha1 exactly.
 */
import type { FileMap } from '../core/filemap.js';

export const MANIFEST_API_VERSION = 'manifests.package-operator.run/v1alpha1';
export const PHASE_ANNOTATION = 'package-operator.run/phase';
export const CONDITION_ANNOTATION = 'package-operator.run/condition';
export const CONDITION_MAP_ANNOTATION = 'package-operator.run/condition-map';
export const COLLISION_PROTECTION_ANNOTATION = 'package-operator.run/collision-protection';
export const PACKAGE_LABEL = 'package-operator.run/package';
export const INSTANCE_LABEL = 'package-operator.run/instance';
/** What `.images.<name>` is in template tests and `tree`. */
export const STATIC_IMAGE = 'registry.package-operator.run/static-image';

export type PackageManifestScope = 'Cluster' | 'Namespaced';

export interface ObjectMetaLite {
  name?: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface PackageManifestPhase {
  name: string;
  class?: string;
}

export interface ProbeSelector {
  kind?: { group: string; kind: string };
  selector?: { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] };
}

export interface Probe {
  condition?: { type: string; status: string };
  fieldsEqual?: { fieldA: string; fieldB: string };
  cel?: { rule: string; message: string };
}

export interface ObjectSetProbe {
  selector: ProbeSelector;
  probes: Probe[];
}

/** apiextensions/v1 JSONSchemaProps, loosely typed: validation is the validator's job. */
export interface JSONSchemaProps {
  type?: string;
  description?: string;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  required?: string[];
  default?: unknown;
  enum?: unknown[];
  nullable?: boolean;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  [key: string]: unknown;
}

export interface PackageManifestImage {
  name: string;
  image: string;
}

export interface PackageManifestNamedCondition {
  name: string;
  expression: string;
}

export interface PackageManifestPath {
  glob: string;
  expression: string;
}

export interface PackageManifestConstraint {
  platformVersion?: { name: 'Kubernetes' | 'OpenShift' | string; range: string };
  platform?: string[];
  uniqueInScope?: Record<string, never>;
}

export interface PackageManifestSpec {
  scopes: PackageManifestScope[];
  phases: PackageManifestPhase[];
  availabilityProbes?: ObjectSetProbe[];
  config?: { openAPIV3Schema?: JSONSchemaProps };
  images?: PackageManifestImage[];
  components?: Record<string, never> | null;
  filter?: { conditions?: PackageManifestNamedCondition[]; paths?: PackageManifestPath[] };
  constraints?: PackageManifestConstraint[];
  repositories?: { file?: string; image?: string }[];
  dependencies?: { image?: { name: string; package: string; range: string } }[];
}

export interface TemplateContextObjectMeta {
  /** Optional, as PKO decodes it (no omitempty, but a missing key is ""). */
  name?: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/**
 * As PKO decodes it (encoding/json into Go structs): a missing key or `null` leaves the zero
 * value, so every field is optional and the pointer fields take `null`.
 */
export interface PackageEnvironment {
  kubernetes?: { version?: string } | null;
  openShift?: { version?: string; managed?: { data?: Record<string, string> | null } | null } | null;
  proxy?: { httpProxy?: string; httpsProxy?: string; noProxy?: string } | null;
  hyperShift?: {
    hostedCluster?: {
      metadata: TemplateContextObjectMeta;
      hostedClusterNamespace: string;
      nodeSelector?: Record<string, string>;
    } | null;
  } | null;
}

export interface TemplateContext {
  package?: { metadata: TemplateContextObjectMeta; image?: string };
  config?: Record<string, unknown>;
  /**
   * Optional, as PKO reads it: Go's `Environment PackageEnvironment "environment"` is a struct
   * value, so a test case without it decodes to the zero environment (`kubernetes.version` "").
   */
  environment?: PackageEnvironment;
}

export interface PackageManifestTestCaseTemplate {
  name: string;
  context: TemplateContext;
}

export interface PackageManifest {
  apiVersion: string;
  kind: 'PackageManifest';
  metadata: ObjectMetaLite;
  spec: PackageManifestSpec;
  test?: {
    template?: PackageManifestTestCaseTemplate[];
    kubeconform?: { kubernetesVersion: string; schemaLocations?: string[] };
  };
}

export interface PackageManifestLock {
  apiVersion: string;
  kind: 'PackageManifestLock';
  metadata?: ObjectMetaLite & { creationTimestamp?: string };
  spec: {
    images: { name: string; image: string; digest: string }[];
    dependencies?: { name: string; image: string; digest: string; version: string }[];
  };
}

/** A package as PKO's structural loader produces it (packagetypes.Package). */
export interface LoadedPackage {
  manifest: PackageManifest;
  manifestLock?: PackageManifestLock;
  /** Package files without the manifest and lock files. */
  files: FileMap;
  /** Set only for multi-component packages; keyed by component (directory) name. */
  components?: Record<string, LoadedPackage>;
}

/** PKO's violation reasons, verbatim (internal/packages/internal/packagetypes/violation.go). */
export const ViolationReason = {
  EmptyPackage: 'Package image contains no files. Might be corrupted.',
  PackageManifestNotFound: 'PackageManifest not found',
  UnknownGVK: 'unknown GVK',
  PackageManifestInvalid: 'PackageManifest invalid',
  PackageManifestDuplicated: 'PackageManifest present multiple times',
  PackageManifestLockInvalid: 'PackageManifestLock invalid',
  PackageManifestLockDuplicated: 'PackageManifestLock present multiple times',
  InvalidYAML: 'Invalid YAML',
  MissingPhaseAnnotation: 'Missing package-operator.run/phase Annotation',
  PhaseNotFound: 'Phase name not found in manifest',
  MissingGVK: 'GroupVersionKind not set',
  DuplicateObject: 'Duplicate Object',
  LabelsInvalid: 'Labels invalid',
  UnsupportedScope: 'Package unsupported scope',
  FixtureMismatch: 'File mismatch against fixture',
  ComponentsNotEnabled: 'Components not enabled',
  ComponentNotFound: 'Component not found',
  InvalidComponentPath: 'Invalid component path',
  Unknown: 'Unknown reason',
  NestedMultiComponentPkg: 'Nesting multi-component packages not allowed',
  InvalidFileInComponentsDir: 'The components directory may only contain folders and dot files',
  KubeconformRejected: 'Kubeconform rejected schema',
  LockfileMissing: 'Missing image in manifest.lock.yaml, but using PackageManifest.spec.images. Try running: kubectl package update',
  ImageMissingInLockfile: 'Image specified in manifest but missing from lockfile. Try running: kubectl package update',
  ImageMismatchInLockfile: 'Image specified in manifest does not match with lockfile. Try running: kubectl package update',
  InvalidCELCondition: 'The CEL expression in package-operator.run/condition annotation is invalid.',
} as const;

export interface ViolationFields {
  reason: string;
  details?: string;
  path?: string;
  index?: number;
  component?: string;
  subject?: string;
  /** Not part of PKO's message: where in the file, when known (1-based). */
  line?: number;
}

/**
 * PKO's ViolationError. `message` is exactly PKO's text:
 * `<Reason>[ in <Path>[ idx <Index>]][ [<Component>]][: <Details>][\n<Subject>]`.
 */
export class Violation extends Error implements ViolationFields {
  readonly reason: string;
  readonly details?: string;
  readonly path?: string;
  readonly index?: number;
  readonly component?: string;
  readonly subject?: string;
  readonly line?: number;
  constructor(f: ViolationFields) {
    super(formatViolation(f));
    this.name = 'Violation';
    this.reason = f.reason;
    this.details = f.details;
    this.path = f.path;
    this.index = f.index;
    this.component = f.component;
    this.subject = f.subject;
    this.line = f.line;
  }
}

export function formatViolation(f: ViolationFields): string {
  let s = f.reason;
  if (f.path) {
    s += ` in ${f.path}`;
    if (f.index !== undefined) s += ` idx ${f.index}`;
  }
  if (f.component) s += ` [${f.component}]`;
  if (f.details) s += `: ${f.details}`;
  if (f.subject) s += `\n${f.subject}`;
  return s;
}
