/**
 * Typed template expressions: a Go template expression where TypeScript wants a number, a
 * boolean or an object. The emitted .gotmpl holds it unquoted, so PKO renders a number (3), a
 * boolean (true) and a map, not the strings "3" and "true".
 */
import { buildPackage, templateBoolean, templateNumber, templateObject, TemplateExpressionError, type KubeObject, type PackageDefinition } from '../../src/index.js';
import { toText } from '../../src/core/filemap.js';
import { loadPackage } from '../../src/pko/loader.js';
import { renderPackage } from '../../src/pko/render.js';
import { testCaseRequest } from '../../src/pko/template-tests.js';

interface Resources { limits?: Record<string, string>; requests?: Record<string, string> }
interface DeploymentSpec { replicas?: number; paused?: boolean; template: { spec: { containers: { name: string; image: string; resources?: Resources }[] } } }

function definition(): PackageDefinition {
  // Typed: a string here would not compile (replicas: number, paused: boolean, resources: Resources).
  const spec: DeploymentSpec = {
    replicas: templateNumber('.config.replicas'),
    paused: templateBoolean('{{ .config.paused }}'),
    template: { spec: { containers: [{ name: 'main', image: 'quay.io/a/b@sha256:' + 'a'.repeat(64), resources: templateObject<Resources>('.config.resources') }] } },
  };
  const deploy: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: spec as unknown as KubeObject['spec'] };
  return {
    name: 'typed',
    scopes: ['Namespaced'],
    phases: [{ name: 'deploy' }],
    availabilityProbes: [],
    config: {
      type: 'object',
      description: 'settings',
      properties: {
        replicas: { type: 'integer', description: 'replicas' },
        paused: { type: 'boolean', description: 'paused' },
        resources: { type: 'object', description: 'resources', 'x-kubernetes-preserve-unknown-fields': true } as never,
      },
    },
    testCases: [{ name: 'default', context: { package: { metadata: { name: 'typed', namespace: 'ns' } }, config: { replicas: 3, paused: true, resources: { limits: { memory: '1Gi' } } }, environment: { kubernetes: { version: 'v1.31.4' } } } }],
    objects: [{ phase: 'deploy', object: deploy }],
  };
}

describe('typed template expressions', () => {
  test('emit unquoted and render to a number, a boolean and a map', async () => {
    const built = await buildPackage(definition());
    const [p, bytes] = [...built.files].find(([f]) => f.endsWith('.gotmpl'))!;
    const text = toText(bytes);
    expect(p).toMatch(/\.gotmpl$/);
    expect(text).toContain('  replicas: {{ .config.replicas }}\n');
    expect(text).toContain('  paused: {{ .config.paused }}\n');
    expect(text).toContain('resources: {{ toJson .config.resources }}\n');
    const pkg = loadPackage(built.files);
    const r = renderPackage(testCaseRequest(pkg, pkg.manifest.test!.template![0]));
    const d = r.objects.find((o) => (o.object as { kind?: string }).kind === 'Deployment')!.object as unknown as { spec: DeploymentSpec };
    expect(d.spec.replicas).toBe(3);
    expect(d.spec.paused).toBe(true);
    expect(d.spec.template.spec.containers[0].resources).toEqual({ limits: { memory: '1Gi' } });
  });

  test('a malformed expression is refused where it is written', () => {
    expect(() => templateNumber('')).toThrow(TemplateExpressionError);
    expect(() => templateNumber('.a }} {{ .b')).toThrow(/one template action expected/);
    expect(() => templateBoolean('.a\n.b')).toThrow(/one line/);
    expect(templateObject('{{ .config.x | toJson }}')).toBeDefined();
  });
});
