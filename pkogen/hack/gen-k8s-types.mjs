#!/usr/bin/env node
// Writes src/schema/generated/k8s-types.ts (and k8s-type-names.ts, the names as data): TypeScript types (type aliases only, nothing at run
// time) of every built-in kind pkogen validates, read from the same kubernetes-models type
// declarations that hack/gen-schema-data.mjs turns into the validators' field trees
// (src/schema/generated/builtin-shapes.ts). Served API versions only (the removed beta versions
// are reported as removed-api, so they get no type). `status` is left out of every kind: a package
// never writes it. Aliases, not interfaces, so a typed object is assignable to pkogen's KubeObject.
// Usage (from pkogen/): node hack/gen-k8s-types.mjs [--check]
// Output is deterministic: same kubernetes-models version → same bytes.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, basename } from 'node:path';
import ts from 'typescript';
import { dtsFiles, kubernetesModels } from './kubernetes-models.mjs';

const root = process.cwd();
const outFile = join(root, 'src', 'schema', 'generated', 'k8s-types.ts');
const { dir: kmDir, version: kmVersion } = kubernetesModels(root);
const kindFiles = dtsFiles(kmDir).filter((f) => /^ {4}"kind": "/m.test(readFileSync(f, 'utf8')) && !f.endsWith('List.d.ts'));
const program = ts.createProgram(kindFiles, { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true });
const checker = program.getTypeChecker();
// Same rule as gen-schema-data.mjs: beta/alpha versions kubernetes-models still ships are removed APIs.
const isLegacy = (key) => /^extensions\/|\/v\d+(alpha|beta)\d+\//.test(key);

// Def key: the declaring file relative to its package ("apps/v1/DeploymentSpec"; "meta:apis/meta/v1/ObjectMeta").
function defKey(decl) {
  const m = /node_modules\/(kubernetes-models|@kubernetes-models\/apimachinery)\/(.*)\.d\.ts$/.exec(decl.getSourceFile().fileName);
  return m ? (m[1] === 'kubernetes-models' ? '' : 'meta:') + m[2] : undefined;
}

const kinds = []; // { apiVersion, kind, key, type }
for (const f of kindFiles) {
  const sf = program.getSourceFile(f);
  const iface = sf.statements.find((s) => ts.isInterfaceDeclaration(s) && s.members.some((m) => m.name?.text === 'kind'));
  if (!iface) continue;
  const lit = (name) => {
    const m = iface.members.find((mm) => mm.name?.text === name);
    return m?.type && ts.isLiteralTypeNode(m.type) ? m.type.literal.text : undefined;
  };
  const apiVersion = lit('apiVersion');
  const kind = lit('kind');
  if (!apiVersion || !kind || isLegacy(`${apiVersion}/${kind}`)) continue;
  kinds.push({ apiVersion, kind, key: defKey(iface), type: checker.getDeclaredTypeOfSymbol(checker.getSymbolAtLocation(iface.name)) });
}
kinds.sort((a, b) => (`${a.apiVersion}/${a.kind}` < `${b.apiVersion}/${b.kind}` ? -1 : 1));
const kindKeys = new Set(kinds.map((k) => k.key));

// Names: the kind (or definition) name when it is unique, else prefixed with its group and version.
const pascal = (s) => s.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_, __, c) => c.toUpperCase());
function qualified(key) {
  const parts = key.replace(/^meta:/, '').split('/');
  const name = parts.pop();
  const gv = parts.filter((p) => p !== 'apis').map((p) => pascal(p.split('.')[0])).join('');
  return `${gv}${name}`;
}
const names = new Map(); // key -> alias name
function assignNames(keys) {
  const byBase = new Map();
  for (const k of keys) byBase.set(basename(k), [...(byBase.get(basename(k)) ?? []), k]);
  for (const [base, ks] of byBase) for (const k of ks) names.set(k, ks.length === 1 && !RESERVED.has(base) ? base : qualified(k));
}
const RESERVED = new Set(['JsonValue', 'TopLevelObjectMeta']);

const defs = new Map(); // key -> type text (null while being built)
const primitive = (t) => (t.flags & (ts.TypeFlags.StringLike | ts.TypeFlags.NumberLike | ts.TypeFlags.BooleanLike | ts.TypeFlags.Null)) !== 0;
function primText(t) {
  if (t.isStringLiteral()) return JSON.stringify(t.value);
  if (t.isNumberLiteral()) return String(t.value);
  if (t.flags & ts.TypeFlags.StringLike) return 'string';
  if (t.flags & ts.TypeFlags.NumberLike) return 'number';
  if (t.flags & ts.TypeFlags.BooleanLike) return 'boolean';
  return 'null';
}

function typeText(t) {
  if (t.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return 'JsonValue';
  if (t.isUnion()) {
    const members = t.types.filter((m) => !(m.flags & ts.TypeFlags.Undefined));
    if (members.every(primitive)) return [...new Set(members.map(primText))].join(' | ');
    return [...new Set(members.map(typeText))].join(' | ');
  }
  if (primitive(t)) return primText(t);
  if (checker.isArrayType(t)) {
    const el = typeText(checker.getTypeArguments(t)[0]);
    return `Array<${el}>`;
  }
  if (t.flags & ts.TypeFlags.Object) {
    const sym = t.getSymbol() ?? t.aliasSymbol;
    const decl = sym?.declarations?.[0];
    const key = decl && ts.isInterfaceDeclaration(decl) ? defKey(decl) : undefined;
    if (key !== undefined) {
      if (!defs.has(key)) {
        defs.set(key, null);
        defs.set(key, objectText(t, false));
      }
      if (defs.get(key) === 'JsonValue') return 'JsonValue';
      // A kind nested in another (a StatefulSet's volumeClaimTemplates): apiVersion, kind and metadata optional there.
      return kindKeys.has(key) ? `Embedded<${'\u0000' + key + '\u0000'}>` : '\u0000' + key + '\u0000';
    }
    return objectText(t, false);
  }
  return 'JsonValue';
}

function docOf(p) {
  const text = ts.displayPartsToString(p.getDocumentationComment(checker)).trim();
  return text ? `/** ${text.replace(/\*\//g, '*\\/').replace(/\n/g, '\n * ')} */\n` : '';
}

function objectText(t, top) {
  const props = checker.getPropertiesOfType(t);
  const index = checker.getIndexInfoOfType(t, ts.IndexKind.String);
  if (props.length === 0) return index ? `{ [key: string]: ${typeText(index.type)} }` : 'JsonValue';
  const lines = [];
  for (const p of [...props].sort((a, b) => (a.getName() < b.getName() ? -1 : 1))) {
    const name = p.getName();
    if (top && name === 'status') continue;
    const decl = p.valueDeclaration ?? p.declarations?.[0];
    const optional = (p.flags & ts.SymbolFlags.Optional) !== 0;
    let text = typeText(checker.getTypeOfSymbolAtLocation(p, decl));
    if (top && name === 'metadata') text = 'TopLevelObjectMeta';
    const req = top && (name === 'apiVersion' || name === 'kind' || name === 'metadata');
    const key = /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
    lines.push(`${docOf(p)}${key}${optional && !req ? '?' : ''}: ${text};`);
  }
  return `{\n${lines.join('\n').replace(/^/gm, '  ')}\n}`;
}

const kindTexts = kinds.map((k) => ({ ...k, text: objectText(k.type, true), doc: ts.displayPartsToString(k.type.getSymbol().getDocumentationComment(checker)).trim() }));
// Kind names: unique kinds by name, the rest qualified by group and version.
const kindNames = new Map();
{
  const byKind = new Map();
  for (const k of kinds) byKind.set(k.kind, [...(byKind.get(k.kind) ?? []), k]);
  for (const [kind, ks] of byKind) for (const k of ks) kindNames.set(k.key, ks.length === 1 ? kind : qualified(k.key));
}
assignNames([...defs.keys()].filter((k) => defs.get(k) !== 'JsonValue' && !kindKeys.has(k)));
for (const [k, n] of kindNames) names.set(k, n);
// Names of nested definitions must not clash with kind names.
const taken = new Set(kindNames.values());
for (const [k, n] of [...names]) if (!kindKeys.has(k) && taken.has(n)) names.set(k, qualified(k));
const resolve = (text) => text.replace(/\u0000([^\u0000]+)\u0000/g, (_, key) => names.get(key));

let out = `// Code generated by hack/gen-k8s-types.mjs from kubernetes-models@${kmVersion} type declarations. DO NOT EDIT.\n`;
out += `// Types of the built-in kinds pkogen validates (served API versions), for \`import type … from 'pkogen/k8s'\`.\n/* eslint-disable */\n\n`;
out += `/** Any JSON value: fields whose schema allows anything (RawExtension, JSON, FieldsV1). */\n`;
out += `export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };\n\n`;
out += `/** The metadata of an object a package ships: \`name\` is required. */\nexport type TopLevelObjectMeta = ObjectMeta & { name: string };\n\n`;
out += `/** A kind nested in another object: apiVersion, kind and metadata optional. */\n`;
out += `export type Embedded<T extends { apiVersion: string; kind: string; metadata: TopLevelObjectMeta }> = Omit<T, 'apiVersion' | 'kind' | 'metadata'> & { apiVersion?: T['apiVersion']; kind?: T['kind']; metadata?: ObjectMeta };\n\n`;
for (const k of kindTexts) {
  out += `/** ${k.apiVersion} ${k.kind}${k.doc ? `: ${k.doc.replace(/\*\//g, '*\\/').replace(/\n/g, '\n * ')}` : ''} */\n`;
  out += `export type ${names.get(k.key)} = ${resolve(k.text)};\n\n`;
}
for (const key of [...defs.keys()].filter((k) => !kindKeys.has(k) && defs.get(k) !== 'JsonValue').sort((a, b) => (names.get(a) < names.get(b) ? -1 : 1))) {
  out += `export type ${names.get(key)} = ${resolve(defs.get(key))};\n\n`;
}
out += `/** "apiVersion/Kind" → its type. */\nexport type KindTypes = {\n${kinds.map((k) => `  ${JSON.stringify(`${k.apiVersion}/${k.kind}`)}: ${names.get(k.key)};`).join('\n')}\n};\n`;

// The same names as data, for code that writes TypeScript (kickstart types each object it emits).
let namesOut = `// Code generated by hack/gen-k8s-types.mjs from kubernetes-models@${kmVersion} type declarations. DO NOT EDIT.\n`;
namesOut += `/** "apiVersion/Kind" → the name of its type in pkogen/k8s (as KindTypes maps it). */\n`;
namesOut += `export const K8S_TYPE_NAMES: Readonly<Record<string, string>> = {\n${kinds.map((k) => `  ${JSON.stringify(`${k.apiVersion}/${k.kind}`)}: ${JSON.stringify(names.get(k.key))},`).join('\n')}\n};\n`;
const namesFile = join(root, 'src', 'schema', 'generated', 'k8s-type-names.ts');

if (process.argv.includes('--check')) {
  for (const [file, text] of [[outFile, out], [namesFile, namesOut]]) {
    if (readFileSync(file, 'utf8') !== text) {
      console.error(`${file} is out of date: run node hack/gen-k8s-types.mjs`);
      process.exit(1);
    }
  }
} else {
  writeFileSync(outFile, out);
  writeFileSync(namesFile, namesOut);
}
console.log(`k8s types: ${kinds.length} kinds, ${defs.size} definitions`);
