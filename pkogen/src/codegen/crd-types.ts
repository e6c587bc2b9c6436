/**
 * CRD schemas → TypeScript types and small builders, the way `cdk8s import` does it: one module
 * per group/version, JSDoc from the schema descriptions, required fields required, enums as
 * unions of literals. Types are type aliases (not interfaces) so an object of one is accepted
 * wherever pkogen takes a KubeObject. `status` is left out: a package never writes it.
 */
import type { SourceFile } from 'ts-morph';
import { loadTsMorph } from './ts-morph.js';
import { crdFromObject, type BundledCrd } from '../schema/crd.js';
import { isObj } from '../core/guards.js';

type Schema = Record<string, unknown>;

export interface CrdInput {
  crd: BundledCrd;
  /** Where it came from, for the header. */
  source: string;
}

/** CRD objects among parsed documents (other kinds ignored); a malformed CRD throws with its source. */
export function crdsFromDocuments(docs: unknown[], source: string): CrdInput[] {
  const out: CrdInput[] = [];
  for (const d of docs) {
    const crd = crdFromObject(d, source);
    if (crd) out.push({ crd, source });
  }
  return out;
}

const pascal = (s: string) => s.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_, __, c: string) => c.toUpperCase()).replace(/^[0-9]/, '_$&');
const IDENT = /^[A-Za-z_$][\w$]*$/;
const prop = (k: string) => (IDENT.test(k) ? k : JSON.stringify(k));
const doc = (s: unknown) => (typeof s === 'string' && s.trim() ? s.trim().replace(/\*\//g, '*\\/') : undefined);

const RESERVED = new Set(['break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else', 'enum', 'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'import', 'in', 'instanceof', 'new', 'null', 'return', 'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof', 'var', 'void', 'while', 'with', 'implements', 'interface', 'let', 'package', 'private', 'protected', 'public', 'static', 'yield']);

/** The builder's name: the kind in lower camel case (`policy`), `Of` appended when that is a reserved word (`packageOf`). */
export function builderName(kind: string): string {
  const n = kind.charAt(0).toLowerCase() + kind.slice(1);
  return RESERVED.has(n) ? `${n}Of` : n;
}

class ModuleWriter {
  private names = new Set<string>();
  constructor(private readonly sf: SourceFile) {}

  private unique(name: string): string {
    let n = name;
    for (let i = 2; this.names.has(n); i++) n = `${name}${i}`;
    this.names.add(n);
    return n;
  }

  reserve(name: string): string {
    return this.unique(name);
  }

  /** The type text for a schema; named aliases are added for nested objects. */
  typeOf(s: unknown, name: string): string {
    // nullable: the API server takes null there (and drops it), so a package may write it.
    if (isObj(s) && s.nullable === true) {
      const t = this.typeOf({ ...s, nullable: false }, name);
      return t === 'JsonValue' ? t : `${t} | null`;
    }
    if (!isObj(s)) return 'JsonValue';
    if (Array.isArray(s.enum) && s.enum.length) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
    if (s['x-kubernetes-int-or-string'] === true) return 'number | string';
    const t = s.type;
    if (t === 'string') return 'string';
    if (t === 'integer' || t === 'number') return 'number';
    if (t === 'boolean') return 'boolean';
    if (t === 'array') return `Array<${this.typeOf(s.items, name + 'Item')}>`;
    if (t === 'object' || isObj(s.properties)) {
      if (isObj(s.properties) && Object.keys(s.properties).length) return this.objectAlias(s, name);
      if (isObj(s.additionalProperties)) return `{ [key: string]: ${this.typeOf(s.additionalProperties, name + 'Value')} }`;
      return '{ [key: string]: JsonValue }';
    }
    return 'JsonValue';
  }

  private objectAlias(s: Schema, name: string, fixed: string[] = []): string {
    const alias = this.unique(name);
    const required = new Set(Array.isArray(s.required) ? s.required.map(String) : []);
    const lines: string[] = [...fixed];
    for (const [k, v] of Object.entries(s.properties as Schema).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const d = doc(isObj(v) ? v.description : undefined);
      const t = this.typeOf(v, alias + pascal(k));
      lines.push(`${d ? `/** ${d.replace(/\n/g, '\n * ')} */\n` : ''}${prop(k)}${required.has(k) ? '' : '?'}: ${t};`);
    }
    this.sf.addTypeAlias({ name: alias, isExported: true, type: `{\n${lines.join('\n')}\n}`, docs: doc(s.description) ? [doc(s.description)!] : [] });
    return alias;
  }

  /** The root type of a kind: apiVersion and kind as literals, metadata, spec and the rest minus status. */
  kindAlias(crd: BundledCrd, version: string, schema: unknown): string {
    const s: Schema = isObj(schema) ? { ...schema } : { type: 'object' };
    const props: Schema = { ...(isObj(s.properties) ? s.properties : {}) };
    delete props.status;
    delete props.apiVersion;
    delete props.kind;
    delete props.metadata;
    const apiVersion = crd.group ? `${crd.group}/${version}` : version;
    const fixed = [`apiVersion: ${JSON.stringify(apiVersion)};`, `kind: ${JSON.stringify(crd.kind)};`, 'metadata: ObjectMeta;'];
    return this.objectAlias({ ...s, properties: props }, crd.kind, fixed);
  }
}

const PRELUDE = `/** Any JSON value: fields whose schema allows anything. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** The metadata a package sets on an object. */
export type ObjectMeta = {
  name: string;
  namespace?: string;
  labels?: { [key: string]: string };
  annotations?: { [key: string]: string };
  finalizers?: string[];
  ownerReferences?: JsonValue[];
};
`;

/** Returns module file name → source, one module per group/version, deterministic. */
export function emitCrdTypes(inputs: CrdInput[], opts: { command: string; /** Filled with "apiVersion/Kind" → module file and type name. */ kindTypes?: Map<string, { module: string; type: string }> }): Map<string, string> {
  const { Project } = loadTsMorph('pkogen import');
  const project = new Project({ useInMemoryFileSystem: true });
  const byGv = new Map<string, { group: string; version: string; kinds: { crd: BundledCrd; schema: unknown; source: string }[] }>();
  for (const { crd, source } of inputs) {
    for (const v of crd.versions) {
      if (!v.served) continue;
      const key = `${crd.group || 'core'}_${v.name}`;
      const e = byGv.get(key) ?? { group: crd.group, version: v.name, kinds: [] };
      if (e.kinds.some((k) => k.crd.kind === crd.kind)) throw new Error(`${source}: ${crd.kind} ${crd.group}/${v.name} is defined twice`);
      e.kinds.push({ crd, schema: v.schema, source });
      byGv.set(key, e);
    }
  }
  const out = new Map<string, string>();
  for (const key of [...byGv.keys()].sort()) {
    const e = byGv.get(key)!;
    const sf = project.createSourceFile(`${key}.ts`, '');
    sf.addStatements(`// Code generated by \`${opts.command}\`. DO NOT EDIT.\n// Types for ${e.group}/${e.version}: ${e.kinds.map((k) => k.crd.kind).sort().join(', ')}.\n\n${PRELUDE}`);
    const w = new ModuleWriter(sf);
    w.reserve('JsonValue');
    w.reserve('ObjectMeta');
    for (const k of [...e.kinds].sort((a, b) => (a.crd.kind < b.crd.kind ? -1 : 1))) {
      const alias = w.kindAlias(k.crd, e.version, k.schema);
      const apiVersion = k.crd.group ? `${k.crd.group}/${e.version}` : e.version;
      opts.kindTypes?.set(`${apiVersion}/${k.crd.kind}`, { module: `${key}.ts`, type: alias });
      sf.addFunction({
        isExported: true,
        name: w.reserve(builderName(k.crd.kind)),
        parameters: [{ name: 'o', type: `Omit<${alias}, 'apiVersion' | 'kind'>` }],
        returnType: alias,
        docs: [`A ${k.crd.kind} (${apiVersion}, ${k.crd.scope === 'Cluster' ? 'cluster-scoped' : 'namespaced'}) with apiVersion and kind filled in.`],
        statements: `return { apiVersion: ${JSON.stringify(apiVersion)}, kind: ${JSON.stringify(k.crd.kind)}, ...o };`,
      });
    }
    sf.formatText({ indentSize: 2, convertTabsToSpaces: true, ensureNewLineAtEndOfFile: true });
    out.set(`${key}.ts`, sf.getFullText());
  }
  return out;
}

/** The command line that (re)writes the committed OpenShift type modules (`pkogen/k8s`). */
export const OPENSHIFT_TYPES_COMMAND = 'node hack/gen-openshift-types.mjs';

/**
 * Type modules of the OpenShift kinds pkogen validates (src/schema/generated/openshift-types/),
 * from the same CRD schemas as the validators; for `pkogen/k8s` (types only: the builders in them
 * are not exported there).
 */
export function openshiftTypeModules(crds: readonly BundledCrd[]): Map<string, string> {
  return emitCrdTypes(crds.map((crd) => ({ crd, source: crd.source })), { command: OPENSHIFT_TYPES_COMMAND });
}
