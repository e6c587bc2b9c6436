/**
 * Go text/template engine benchmark: a package-shaped set of 10 templates (helpers with
 * {{define}}s, deployments/services/config maps using range, if/else, with, variables, printf,
 * index, template calls), rendered with a PKO-like context. Measures:
 *  - parse: building the whole TemplateSet from source;
 *  - render: executing all 10 templates once (one package render), the set parsed once;
 *  - Go's own text/template compiled to WebAssembly doing parse+execute of the same templates,
 *    for scale (it cannot keep a parsed set between calls).
 * Target (issue 3): ≥ 1,000 renders/s of a ~10-template package.
 */
import { performance } from 'node:perf_hooks';
import { parse as goParse } from '@evertdespiegeleer/go-template';
import { TemplateSet, type GoValue } from '../../src/gotemplate/index.js';

const helpers = `{{- define "labels" -}}
app.kubernetes.io/name: {{ .package.metadata.name }}
app.kubernetes.io/instance: {{ .package.metadata.name }}-{{ .config.environment }}
{{- range $k, $v := .package.metadata.labels }}
{{ $k }}: {{ $v | printf "%q" }}
{{- end }}
{{- end -}}
{{- define "image" -}}{{ .registry }}/{{ .repository }}@{{ .digest }}{{- end -}}
{{- define "resources" -}}
resources:
  requests: {cpu: {{ .cpu }}, memory: {{ .memory }}}
{{- end -}}`;

const deployment = (n: number): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .package.metadata.name }}-c${n}
  namespace: {{ .package.metadata.namespace }}
  labels:
    {{- template "labels" . }}
  annotations:
    package-operator.run/phase: deploy
spec:
  replicas: {{ .config.replicas }}
  template:
    spec:
      containers:
      {{- range $i, $c := .config.containers }}
      - name: {{ $c.name }}-{{ $i }}
        image: {{ template "image" $c.image }}
        {{- if $c.args }}
        args:
        {{- range $c.args }}
        - {{ . | printf "%q" }}
        {{- end }}
        {{- end }}
        env:
        {{- range $k, $v := $.config.env }}
        - {name: {{ $k }}, value: {{ printf "%v" $v | printf "%q" }}}
        {{- end }}
        {{- with $c.resources }}
        {{ template "resources" . }}
        {{- else }}
        resources: {}
        {{- end }}
      {{- end }}
      {{- if eq .package.metadata.namespace "" }}
      # cluster scoped
      {{- else if and .config.proxy (index .config.proxy "httpProxy") }}
      # proxy {{ index .config.proxy "httpProxy" }}
      {{- end }}
`;

const files: Record<string, string> = { '_helpers.gotmpl': helpers };
for (let i = 0; i < 6; i++) files[`deployment-${i}.yaml.gotmpl`] = deployment(i);
files['service.yaml.gotmpl'] = `apiVersion: v1
kind: Service
metadata: {name: {{ .package.metadata.name }}, namespace: {{ .package.metadata.namespace }}}
spec:
  ports:
  {{- range .config.ports }}
  - {name: {{ .name }}, port: {{ .port }}, targetPort: {{ .target | printf "%.0f" }}}
  {{- end }}
`;
files['configmap.yaml.gotmpl'] = `apiVersion: v1
kind: ConfigMap
metadata: {name: {{ .package.metadata.name }}-cfg}
data:
{{- range $k, $v := .config.env }}
  {{ $k }}: {{ $v | printf "%v" | printf "%q" }}
{{- end }}
  count: "{{ len .config.containers }}"
`;
files['rbac.yaml.gotmpl'] = `{{- $ns := .package.metadata.namespace -}}
{{- range $i, $r := .config.roles }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: {{ $r }}-{{ $i }}, namespace: {{ $ns }}}
{{- end }}
`;

const context: GoValue = {
  package: {
    metadata: { name: 'hcp-os-images', namespace: 'ocm-prod-abc', labels: { team: 'sre', tier: 'hcp' }, annotations: {} },
    image: 'quay.io/x/pkg@sha256:00',
  },
  config: {
    environment: 'production',
    replicas: 3,
    containers: [0, 1, 2].map((i) => ({
      name: `builder${i}`,
      image: { registry: 'quay.io', repository: `org/img${i}`, digest: 'sha256:' + 'ab'.repeat(32) },
      args: ['--verbose', `--worker=${i}`, '--timeout=30m'],
      resources: i === 2 ? null : { cpu: '100m', memory: '256Mi' },
    })),
    env: { LOG_LEVEL: 'info', WORKERS: 4, DRY_RUN: false, RATIO: 0.75 },
    ports: [
      { name: 'http', port: 8080, target: 8080 },
      { name: 'metrics', port: 9090, target: 9090 },
    ],
    roles: ['reader', 'writer'],
    proxy: { httpProxy: 'http://proxy:3128' },
  },
  images: {},
  environment: { kubernetes: { version: 'v1.30.0' } },
};

export function buildSet(): TemplateSet {
  const set = new TemplateSet({ missingKey: 'error' });
  for (const [name, text] of Object.entries(files)) set.parse(name, text);
  return set;
}

const renderNames = Object.keys(files).filter((n) => !n.startsWith('_'));

export function renderAll(set: TemplateSet): number {
  let bytes = 0;
  for (const n of renderNames) bytes += set.execute(n, context).length;
  return bytes;
}

/** Runs fn repeatedly for about `ms` milliseconds (after a warm-up); returns calls per second. */
function rate(fn: () => unknown, ms = 1500): number {
  for (let i = 0; i < 50; i++) fn();
  let n = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 20; i++) fn();
    n += 20;
    now = performance.now();
  }
  return (n * 1000) / (now - start);
}

export async function bench(): Promise<string> {
  const set = buildSet();
  const outBytes = renderAll(set);
  const parseRate = rate(buildSet);
  const renderRate = rate(() => renderAll(set));

  // Go text/template (WASM): parse + execute each template per call, helpers prepended so {{template}} resolves.
  await goParse('', {});
  const render = (globalThis as unknown as { Render: (t: string, d: string) => string }).Render;
  const json = JSON.stringify(context);
  const goTexts = renderNames.map((n) => helpers + files[n]);
  const goRate = rate(() => {
    for (const t of goTexts) render(t, json);
  }, 1500);
  const oursParseAndRender = rate(() => renderAll(buildSet()));

  const target = 1000;
  return [
    '## Go template engine (`src/gotemplate`)',
    '',
    `Package-shaped set: ${Object.keys(files).length} templates (${renderNames.length} rendered + helpers with 3 {{define}}s), ` +
      `${Object.values(files).reduce((a, t) => a + t.length, 0)} characters of template source, ${outBytes} characters of output per render, PKO-like context.`,
    '',
    '| measurement | per second | per operation |',
    '|---|---:|---:|',
    `| parse the whole set | ${parseRate.toFixed(0)} sets/s | ${(1000 / parseRate).toFixed(3)} ms |`,
    `| render the package (${renderNames.length} executions, set parsed once) | ${renderRate.toFixed(0)} renders/s | ${(1000 / renderRate).toFixed(3)} ms |`,
    `| parse + render (fresh set every time) | ${oursParseAndRender.toFixed(0)} /s | ${(1000 / oursParseAndRender).toFixed(3)} ms |`,
    `| Go text/template in WASM, parse + render of the same ${renderNames.length} templates | ${goRate.toFixed(0)} /s | ${(1000 / goRate).toFixed(3)} ms |`,
    '',
    `Target ≥ ${target} renders/s: ${renderRate >= target ? 'met' : 'NOT met'} (${renderRate.toFixed(0)}/s).`,
  ].join('\n');
}
