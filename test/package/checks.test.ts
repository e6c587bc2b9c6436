import * as path from 'node:path';
import { ROOT } from '../../pkogen/test/helpers.js';
import { readFileSync } from 'node:fs';
import { checkDefinition, GENERATION_CHECKS, templateConfigReads } from '../../pkogen/src/model/checks.js';
import { toBytes } from '../../pkogen/src/core/filemap.js';
import { synthesize } from '../../pkogen/src/model/synthesize.js';
import type { PackageDefinition, PackageObject } from '../../pkogen/src/model/package.js';
import { definition } from '../../resources/resources.js';

function rulesOf(def: PackageDefinition): string[] {
  return checkDefinition(def, synthesize(def)).map((f) => `${f.rule}: ${f.message}`);
}

function withObjects(objects: PackageObject[], patch: Partial<PackageDefinition> = {}): PackageDefinition {
  return { ...definition(), objects, ...patch };
}

const cm = (name: string, phase = 'deploy', extra: Record<string, unknown> = {}): PackageObject => ({
  phase,
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra } } as PackageObject['object'],
});

describe('generation checks', () => {
  const base = definition().objects;

  it('rejects an object in an undeclared phase', () => {
    expect(rulesOf(withObjects([...base, cm('x', 'deplyo')]))).toEqual([
      expect.stringMatching(/^phase-declared: ConfigMap x: phase "deplyo" is not declared/),
    ]);
  });

  it('warns on an empty phase (PKO drops it), without failing generation', () => {
    const def = withObjects(base.filter((o) => o.phase !== 'rbac'));
    expect(rulesOf(def)).toEqual([expect.stringMatching(/^phase-empty: phase "rbac" has no objects/)]);
    expect(checkDefinition(def, synthesize(def)).map((f) => f.severity)).toEqual(['warning']);
  });

  it('rejects duplicates (same group, kind, namespace, name)', () => {
    expect(rulesOf(withObjects([...base, cm('dup', 'deploy'), cm('dup', 'rbac')]))).toEqual([
      expect.stringMatching(/^duplicate-object: ConfigMap dup: duplicate of the object in deploy\//),
    ]);
  });

  it('rejects a namespace on objects of unclassed phases', () => {
    expect(rulesOf(withObjects([...base, cm('y', 'deploy', { namespace: 'other' })]))).toEqual([
      expect.stringMatching(/^scope: ConfigMap y: objects in the HCP namespace must not set metadata.namespace/),
    ]);
  });

  it('rejects cluster-scoped objects outside the hosted-cluster phase', () => {
    const crb: PackageObject = {
      phase: 'rbac',
      object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'mob' } },
    };
    expect(rulesOf(withObjects([...base, crb]))).toEqual([expect.stringMatching(/^scope: ClusterRoleBinding mob: cluster-scoped object in phase "rbac"/)]);
  });

  it('rejects a template read of a config key the schema lacks', () => {
    const bad = cm('z', 'deploy', {});
    (bad.object as Record<string, unknown>).data = { a: '{{ .config.imagePullSecret }}' };
    expect(rulesOf(withObjects([...base, bad]))).toEqual([
      expect.stringMatching(/^config-schema: template reads .config.imagePullSecret, which the config schema does not define/),
    ]);
  });

  it('sees reads through with, variables and define blocks, not only literal .config.X text', () => {
    const def = definition();
    const viaWith = withObjects([...def.objects], { files: { '_helpers.gotmpl': '{{- define "x" }}{{ with .config }}{{ .pullSecretRef }}{{ end }}{{ end }}' } });
    const cmObj = cm('uses-helper', 'deploy');
    (cmObj.object as Record<string, unknown>).data = { a: '{{ include "x" . }}' };
    viaWith.objects.push(cmObj);
    expect(rulesOf(viaWith)).toEqual([
      expect.stringMatching(/^config-schema: template reads .config.pullSecretRef, which the config schema does not define/),
    ]);
  });

  it('reports a template that does not parse, with its place', () => {
    const broken = withObjects([...definition().objects], { files: { '_helpers.gotmpl': '{{ define "y" }}{{ .config.serviceCA ' } });
    const findings = checkDefinition(broken, synthesize(broken));
    expect(findings).toEqual([expect.objectContaining({ rule: 'template-parse', file: '_helpers.gotmpl', line: 1 })]);
    expect(findings[0].message).toMatch(/^template: _helpers.gotmpl:1: unclosed action/);
  });

  it('demands required keys be exactly those templates need', () => {
    const def = definition();
    const schema = structuredClone(def.config!);
    schema.required = [...schema.required!.filter((k) => k !== 'serviceCA'), 'buildHistoryLimit'];
    expect(rulesOf({ ...def, config: schema })).toEqual([
      expect.stringMatching(/^config-required: templates read .config.serviceCA unguarded/),
      expect.stringMatching(/^config-required: .config.buildHistoryLimit is both required and defaulted/),
    ]);
    const unused = structuredClone(def.config!);
    unused.properties!.extra = { type: 'string', description: 'x' };
    unused.required!.push('extra');
    expect(rulesOf({ ...def, config: unused })).toEqual([expect.stringMatching(/^config-required: .config.extra is required but no template reads it/)]);
  });

  it('demands a description on every config field', () => {
    const def = definition();
    const schema = structuredClone(def.config!);
    schema.properties!.extraLabels = { type: 'object', description: 'Labels.', additionalProperties: { type: 'string' } };
    expect(rulesOf({ ...def, config: schema })).toEqual([
      'config-description: config schema spec.config.openAPIV3Schema.properties.extraLabels.additionalProperties has no description',
    ]);
    const noDesc = structuredClone(def.config!);
    delete noDesc.properties!.serviceCA.description;
    expect(rulesOf({ ...def, config: noDesc })).toEqual(['config-description: config field "serviceCA" has no description']);
  });

  it('rejects duplicate phase names', () => {
    const def = definition();
    expect(rulesOf({ ...def, phases: [...def.phases, { name: 'rbac' }] })).toEqual([expect.stringMatching(/^phase-unique: phase "rbac" is declared twice/)]);
  });
});

describe('GENERATION_CHECKS', () => {
  it('lists exactly the rules its checks report, each check once', () => {
    const src = readFileSync(path.join(ROOT, 'src', 'model', 'checks.ts'), 'utf8');
    const reported = new Set([...src.matchAll(/(?:err\(|rule: )'([a-z-]+)'/g)].map((m) => m[1]));
    const listed = GENERATION_CHECKS.flatMap((c) => c.rules);
    expect(new Set(listed).size).toBe(listed.length);
    expect([...reported].sort()).toEqual([...listed].sort());
    expect(new Set(GENERATION_CHECKS.map((c) => c.id)).size).toBe(GENERATION_CHECKS.length);
  });
});

describe('templateConfigReads (parse trees, not a text scan)', () => {
  const readsOf = (text: string) => {
    const findings: { rule: string }[] = [];
    const r = templateConfigReads(new Map([['t.yaml.gotmpl', toBytes(text)]]), findings as never);
    return { ...r.reads.get('t.yaml.gotmpl'), complete: r.complete, findings };
  };

  it('finds root reads, $ reads, variables and guards, not other .config fields or plain text', () => {
    const r = readsOf('{{ .config.a }} {{ $.config.b.c }} {{ .environment.config.x }} {{ if hasKey .config "d" }}{{ end }} {{ $c := .config }}{{ $c.e }} {{ dig "f" "g" "" .config }} plain .config.h');
    expect(r.chains!.map((c) => c.join('.')).sort()).toEqual(['a', 'b.c', 'd', 'e', 'f.g']);
    expect([...r.guarded!].sort()).toEqual(['d', 'f']);
    expect(r.complete).toBe(true);
  });

  it('does not take .config inside a string literal or a comment for a read', () => {
    const r = readsOf('{{/* .config.commented */}}{{ printf "{{ .config.quoted }}" }}{{ .config.real }}');
    expect(r.chains!.map((c) => c.join('.'))).toEqual(['real']);
  });

  it('reports a template that does not parse, and then claims nothing about what is read', () => {
    const r = readsOf('{{ .config.a ');
    expect(r.complete).toBe(false);
    expect(r.findings.map((f) => f.rule)).toEqual(['template-parse']);
  });
});
