/**
 * Rendering a package like PKO's packagerender: template context, one template set for every
 * `.gotmpl` file, output paths, which files become objects, document splitting, CEL filtering
 * (named conditions, path globs, the condition annotation), PKO's labels and object order.
 */
import { type FileMap, toBytes, toText } from '../core/filemap.js';
import { jsonRoundTrip } from '../core/json.js';
import { GoTemplateError } from '../gotemplate/exec.js';
import { formatValue } from '../gotemplate/fmt.js';
import { configValuesOf, redactRenderContext, redactValues } from './redact.js';
import { pkoFuncMap } from '../gotemplate/funcs/index.js';
import { fromJs } from '../gotemplate/funcs/json.js';
import { GoTyped, type GoMap } from '../gotemplate/types.js';
import { type ObjectRef, parseObjectFile, pkoPathCompare } from './objects.js';
import { CelContext, CelEvalError } from './cel.js';
import { admitConfig, type FieldError } from './config-admission.js';
import { aggregateText } from './field-errors.js';
import { globMatches } from '../core/glob.js';
import { buildTemplateSet, TemplateExecError, TemplateParseError, type TemplateRunner } from './template-runner.js';
import { copyOf, copyTemplate, ShapeCache, type CopyTemplate, type HoledText } from './render-shape.js';
import {
  CONDITION_ANNOTATION,
  INSTANCE_LABEL,
  PACKAGE_LABEL,
  PHASE_ANNOTATION,
  STATIC_IMAGE,
  type PackageEnvironment,
  type PackageManifest,
  type PackageManifestLock,
  Violation,
  ViolationReason,
} from './types.js';

export const TEMPLATE_SUFFIX = '.gotmpl';

/** What a caller knows about the Package being rendered (a test case's context, or CLI flags). */
export interface RenderRequest {
  manifest: PackageManifest;
  lock?: PackageManifestLock;
  /** Package files, without manifest and lock files. */
  files: FileMap;
  package: { metadata: { name: string; namespace?: string; labels?: Record<string, string> | null; annotations?: Record<string, string> | null }; image?: string };
  config?: Record<string, unknown> | null;
  environment?: PackageEnvironment | null;
  /** `.images`: defaults to the static image for every `spec.images` entry (tests and tree). */
  images?: Record<string, string>;
  /** `.dependencies`: defaults to the static image for every `spec.dependencies` entry (`{}` without any); `null` is Go's nil map (tree). */
  dependencies?: Record<string, string> | null;
  /** For messages: `component "<name>": …`. */
  component?: string;
  /**
   * Fail on config admission errors before rendering (install and `tree` do; template tests
   * ignore them because manifest validation already reported them).
   */
  rejectInvalidConfig?: boolean;
  /**
   * The caller never modifies the returned objects: what does not change between renders (static
   * files, template parts without printed values) is then the same deep-frozen objects each time
   * instead of fresh copies (simulate renders thousands of namespaces and only counts objects).
   */
  sharedObjects?: boolean;
  /**
   * With sharedObjects: the caller reads no more of an object than its apiVersion, kind and
   * metadata (simulate counts them; the renderer itself reads two annotations). Objects made from
   * a template's shape then carry only those; every printed value is still checked as for a full
   * object, so the same outputs fall back to a full parse.
   */
  metadataOnly?: boolean;
}

/** An object as PKO's RenderObjects reads it (validate's ObjectRef) plus its phase annotation. */
export interface RenderedObject extends ObjectRef {
  phase?: string;
}

export interface RenderResult {
  /** Every package file after templating: `.gotmpl` sources replaced by their outputs. */
  files: FileMap;
  /** Objects in PKO's order, before CEL filtering. */
  allObjects: RenderedObject[];
  /** Objects that survive path globs and condition annotations, in PKO's order. */
  objects: RenderedObject[];
  /** Rendered paths excluded by `spec.filter.paths`. */
  excludedPaths: Set<string>;
  /** The template context the templates saw (JSON data). */
  context: Record<string, unknown>;
  /** Config admission errors (render still ran with the admitted config). */
  configErrors: FieldError[];
  conditions: Record<string, boolean>;
}

export class RenderError extends Error {
  constructor(message: string, readonly file?: string, readonly line?: number, readonly column?: number, readonly doc?: number) {
    super(message);
    this.name = 'RenderError';
  }
}

export const isTemplateFile = (p: string): boolean => p.endsWith(TEMPLATE_SUFFIX);
export const stripTemplateSuffix = (p: string): string => (isTemplateFile(p) ? p.slice(0, -TEMPLATE_SUFFIX.length) : p);

export { isObjectFile, pkoPathCompare as comparePkoPaths } from './objects.js';
import { isObjectFile } from './objects.js';

/** The images map of tests and `tree`: every manifest image is the static image. */
export function staticImages(manifest: PackageManifest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of manifest.spec?.images ?? []) out[i.name] = STATIC_IMAGE;
  return out;
}

export function staticDependencies(manifest: PackageManifest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of manifest.spec?.dependencies ?? []) if (d.image?.name) out[d.image.name] = STATIC_IMAGE;
  return out;
}

const pick = (v: unknown, keys: string[]): Record<string, unknown> | undefined => {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const out: Record<string, unknown> = {};
  for (const k of keys) if ((v as Record<string, unknown>)[k] !== undefined) out[k] = (v as Record<string, unknown>)[k];
  return out;
};

/**
 * `.environment` as Go's PackageEnvironment struct round-trips it: `kubernetes.version` always
 * present (`""` when unset), optional sections only when given, unknown keys dropped.
 */
export function environmentJson(e: PackageEnvironment | null | undefined): Record<string, unknown> {
  const env: Record<string, unknown> = { kubernetes: { version: e?.kubernetes?.version ?? '' } };
  if (!e) return env;
  if (e.openShift) {
    const os = pick(e.openShift, ['version']) ?? {};
    os.version ??= '';
    if (e.openShift.managed) os.managed = pick(e.openShift.managed, ['data']);
    env.openShift = os;
  }
  if (e.proxy) env.proxy = pick(e.proxy, ['httpProxy', 'httpsProxy', 'noProxy']);
  if (e.hyperShift) {
    const hc = e.hyperShift.hostedCluster;
    env.hyperShift = {
      hostedCluster: hc
        ? { ...pick(hc, ['hostedClusterNamespace', 'nodeSelector']), metadata: pick(hc.metadata, ['name', 'namespace', 'labels', 'annotations']) ?? {} }
        : null,
    };
  }
  return env;
}

/** The JSON render context (PackageRenderContext JSON round trip). */
export function buildRenderContext(req: RenderRequest, config: Record<string, unknown>): Record<string, unknown> {
  const md = req.package.metadata;
  const metadata: Record<string, unknown> = { name: md.name ?? '', namespace: md.namespace ?? '' };
  if (md.labels) metadata.labels = md.labels;
  if (md.annotations) metadata.annotations = md.annotations;
  const env = environmentJson(req.environment);
  const ctx: Record<string, unknown> = {
    package: { metadata, image: req.package.image ?? '' },
    config,
    images: req.images ?? staticImages(req.manifest),
    environment: env,
  };
  // PackageRenderContext.Dependencies has no omitempty (packagetypes/types.go, PKO #2548): always
  // present, `{}` when none are declared (tests, install); `null` where PKO leaves it nil (tree).
  ctx.dependencies = req.dependencies === undefined ? staticDependencies(req.manifest) : req.dependencies;
  return jsonRoundTrip(ctx);
}

/**
 * The template data: the JSON context in the Go value model. Like PKO's `workaroundnovalue`
 * (packagerender/template.go), only labels/annotations that are nil become an empty
 * `map[string]string` (`index` of a missing key: `""`); given ones stay JSON maps
 * (`map[string]interface {}`: `index` of a missing key prints `<no value>`).
 */
function templateData(ctx: Record<string, unknown>): GoMap {
  const data = fromJs(ctx) as GoMap;
  const md = (data.package as GoMap).metadata as GoMap;
  for (const k of ['annotations', 'labels']) {
    if (md[k] === undefined || md[k] === null) md[k] = new GoTyped('map[string]string', {});
  }
  return data;
}

function prefix(req: RenderRequest, msg: string): string {
  return req.component ? `component "${req.component}": ${msg}` : msg;
}

/**
 * A parsed template set per package FileMap: parsing is most of a render's template cost and
 * does not depend on the context, so it is done once per package and reused (the set is only
 * reused while every template source is the very same bytes object). The CEL context, which
 * does change per render, is bound late through `celHolder`.
 */
interface CachedTemplateSet {
  sources: [string, Uint8Array][];
  runner: TemplateRunner;
  celHolder: { cel?: CelContext };
  /** Per template path: parsed shapes of its outputs (render-shape.ts). */
  shapes: Map<string, ShapeCache>;
}
const templateSetCache = new WeakMap<FileMap, CachedTemplateSet>();

function templateSetFor(req: RenderRequest, templatePaths: string[]): CachedTemplateSet {
  const hit = templateSetCache.get(req.files);
  if (hit && hit.sources.length === templatePaths.length && hit.sources.every(([p, b], i) => p === templatePaths[i] && req.files.get(p) === b)) return hit;
  const celHolder: { cel?: CelContext } = {};
  let runner: TemplateRunner;
  try {
    runner = buildTemplateSet(
      templatePaths.map((p) => ({ name: p, text: toText(req.files.get(p)!) })),
      (self) =>
        pkoFuncMap({
          executeTemplate: (name, d) => self.execute(name, d),
          files: req.files,
          cel: (expr) => {
            if (!celHolder.cel) throw new Error('cel: no CEL context');
            return celForTemplate(celHolder.cel, expr);
          },
        }),
    );
  } catch (e) {
    if (e instanceof TemplateParseError) throw new RenderError(prefix(req, `parsing template from ${e.file}: ${e.message}`), e.file, e.line, e.column);
    if (e instanceof TemplateExecError) throw new RenderError(prefix(req, e.message), e.file);
    throw e;
  }
  const entry: CachedTemplateSet = { sources: templatePaths.map((p) => [p, req.files.get(p)!]), runner, celHolder, shapes: new Map() };
  templateSetCache.set(req.files, entry);
  return entry;
}

/**
 * Rendered templates: every file after templating (a template's output as its text: UTF-8 bytes
 * are made only when asked for, see filesOf), and per output path its text with the action holes.
 */
interface RenderedTemplates {
  out: Map<string, Uint8Array | string>;
  holed: Map<string, HoledText>;
  shapes?: Map<string, ShapeCache>;
}

/** The file map of rendered templates: outputs encoded, in the order of `out`. */
function filesOf(out: Map<string, Uint8Array | string>): FileMap {
  const files: FileMap = new Map();
  for (const [p, v] of out) files.set(p, typeof v === 'string' ? toBytes(v) : v);
  return files;
}

/** Runs every `.gotmpl` through one template set. Returns the rendered file map. */
export function renderTemplates(req: RenderRequest, ctx: Record<string, unknown>, cel: CelContext | undefined): FileMap {
  return filesOf(runTemplates(req, ctx, cel).out);
}

function runTemplates(req: RenderRequest, ctx: Record<string, unknown>, cel: CelContext | undefined): RenderedTemplates {
  const templatePaths = [...req.files.keys()].filter(isTemplateFile).sort();
  const out = new Map<string, Uint8Array | string>(req.files);
  const holed = new Map<string, HoledText>();
  if (templatePaths.length === 0) return { out, holed };
  const data = templateData(ctx);
  const { runner, celHolder, shapes } = templateSetFor(req, templatePaths);
  celHolder.cel = cel;
  try {
    for (const p of templatePaths) {
      let r: { out: string; holes: number[] };
      try {
        r = runner.executeWithHoles(p, data);
      } catch (e) {
        if (e instanceof GoTemplateError) {
          throw new RenderError(prefix(req, `executing template from ${p} with context ${formatValue(redactRenderContext(data))}: ${redactValues(e.message, configValuesOf(data.config))}`), e.template || p, e.line || undefined, e.column);
        }
        throw e;
      }
      out.delete(p);
      const outPath = stripTemplateSuffix(p);
      out.set(outPath, r.out);
      holed.set(outPath, { text: r.out, holes: r.holes });
    }
  } finally {
    celHolder.cel = undefined;
  }
  return { out, holed, shapes };
}

function celForTemplate(cel: CelContext, expr: string): boolean {
  try {
    return cel.evaluate(expr);
  } catch (e) {
    throw new Error((e as Error).message);
  }
}

/**
 * Static files (not templates) parse to the same objects in every render of a package: parse
 * them once per bytes object and keep a copy template of each object; the first render that does
 * not share gets the parsed objects themselves, later ones deep copies (callers may mutate them).
 */
type Parsed = ReturnType<typeof parseObjectFile>;
const parsedByBytes = new WeakMap<Uint8Array, { parsed: Parsed; copies: CopyTemplate[] }>();

function parseObjectsCached(path: string, bytes: Uint8Array, isStatic: boolean, share = false): Parsed {
  if (!isStatic) return parseObjectFile(path, bytes);
  let r = parsedByBytes.get(bytes);
  if (!r) {
    const parsed = parseObjectFile(path, bytes);
    // The templates read the objects before anyone may change them; unless shared (the same
    // frozen objects in every render), the objects go out as parsed.
    r = { parsed, copies: parsed.objects.map((o) => copyTemplate(o.object)) };
    parsedByBytes.set(bytes, r);
    if (!share) return { objects: parsed.objects.map((o) => ({ ...o })), violations: parsed.violations };
  }
  const copies = r.copies;
  return { objects: r.parsed.objects.map((o, i) => ({ ...o, object: copyOf(copies[i]!, share) })), violations: r.parsed.violations };
}

/**
 * A template output's objects: from the shape of its literal text when one applies (the same
 * objects the parse would give, render-shape.ts), else parsed.
 */
function parseRendered(path: string, isStatic: boolean, rendered: RenderedTemplates, share: boolean, metadataOnly: boolean): Parsed {
  const h = isStatic ? undefined : rendered.holed.get(path);
  if (h && rendered.shapes) {
    let cache = rendered.shapes.get(path);
    if (!cache) rendered.shapes.set(path, (cache = new ShapeCache()));
    const objects = cache.objects(path, h, share, metadataOnly);
    if (objects) return { objects, violations: [] };
  }
  let bytes = rendered.out.get(path)!;
  if (typeof bytes === 'string') rendered.out.set(path, (bytes = toBytes(bytes)));
  return parseObjectsCached(path, bytes, isStatic, share);
}

/**
 * The object files of a render in PKO's order. Every render of a package has the same output
 * paths in the same order (the package's files, templates under their output names), so the
 * sorted list is kept for the last list of paths seen.
 */
let lastPaths: { keys: string[]; paths: string[] } | undefined;
function objectPathsOf(out: Map<string, unknown>): string[] {
  const keys = [...out.keys()];
  if (lastPaths && lastPaths.keys.length === keys.length && lastPaths.keys.every((k, i) => k === keys[i])) return [...lastPaths.paths];
  const paths = keys.filter(isObjectFile).sort(pkoPathCompare);
  lastPaths = { keys, paths: [...paths] };
  return paths;
}

/** Merges PKO's labels into an object (overwriting same keys), as RenderObjects does. */
export function addPkoLabels(obj: Record<string, unknown>, packageName: string, instanceName: string): void {
  const md = (obj.metadata && typeof obj.metadata === 'object' ? obj.metadata : (obj.metadata = {})) as Record<string, unknown>;
  const labels = (md.labels && typeof md.labels === 'object' ? md.labels : (md.labels = {})) as Record<string, unknown>;
  labels[PACKAGE_LABEL] = packageName;
  labels[INSTANCE_LABEL] = instanceName;
}

/**
 * Renders a package: admit config, build the CEL context, run templates, parse objects, apply
 * CEL filters. Throws RenderError / Violation with PKO's messages.
 */
export function renderPackage(req: RenderRequest): RenderResult {
  const schema = req.manifest.spec?.config?.openAPIV3Schema;
  const admitted = admitConfig(req.config ?? {}, schema);
  if (req.rejectInvalidConfig && admitted.errors.length) throw new RenderError(prefix(req, aggregateText(admitted.errors)));
  const ctx = buildRenderContext(req, admitted.config);
  let cel: CelContext;
  try {
    cel = new CelContext(ctx, req.manifest.spec?.filter?.conditions ?? []);
  } catch (e) {
    if (e instanceof CelEvalError) throw new RenderError(prefix(req, `constructing CEL context: ${e.message}`));
    throw e;
  }
  const rendered = runTemplates(req, ctx, cel);

  const paths = objectPathsOf(rendered.out);
  const allObjects: RenderedObject[] = [];
  for (const p of paths) {
    const r = parseRendered(p, req.files.get(p) === rendered.out.get(p), rendered, req.sharedObjects === true, req.sharedObjects === true && req.metadataOnly === true);
    if (r.violations.length) {
      const v = r.violations[0];
      throw new Violation({ reason: v.reason, path: v.path, index: v.index, details: v.details, subject: v.subject, line: v.line, component: req.component });
    }
    for (const o of r.objects) {
      const phase = o.object.metadata?.annotations?.[PHASE_ANNOTATION];
      allObjects.push({ ...o, phase: typeof phase === 'string' ? phase : undefined });
    }
  }

  const excludedGlobs: string[] = [];
  for (const rule of req.manifest.spec?.filter?.paths ?? []) {
    let keep: boolean;
    try {
      keep = cel.evaluate(rule.expression);
    } catch (e) {
      throw new RenderError(prefix(req, `invalid spec.conditionalPaths expression: ${rule.glob}: ${(e as Error).message}`));
    }
    if (!keep) excludedGlobs.push(rule.glob);
  }
  const excludedPaths = new Set(paths.filter((p) => excludedGlobs.some((g) => globMatches(g, p, 'doublestar'))));

  const objects: RenderedObject[] = [];
  for (const o of allObjects) {
    if (excludedPaths.has(o.path)) continue;
    const ann = (o.object.metadata as { annotations?: Record<string, unknown> } | undefined)?.annotations;
    const cond = ann?.[CONDITION_ANNOTATION];
    if (typeof cond === 'string') {
      let ok: boolean;
      try {
        ok = cel.evaluate(cond);
      } catch (e) {
        const name = (o.object.metadata as { name?: string } | undefined)?.name ?? '';
        throw new Violation({
          reason: ViolationReason.InvalidCELCondition,
          details: (e as Error).message,
          subject: name,
          component: req.component,
          line: o.line,
        });
      }
      if (!ok) continue;
    }
    objects.push(o);
  }
  // Encoding every output to UTF-8 was a fifth of a render where only objects are used
  // (simulate): the file map is made on first read, once.
  let files: FileMap | undefined;
  return {
    get files() {
      return (files ??= filesOf(rendered.out));
    },
    allObjects,
    objects,
    excludedPaths,
    context: ctx,
    configErrors: admitted.errors,
    conditions: cel.conditions,
  };
}
