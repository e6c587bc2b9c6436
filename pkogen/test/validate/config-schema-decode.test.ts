/**
 * `spec.config.openAPIV3Schema` decoded as PKO decodes it: sigs.k8s.io/yaml → encoding/json into
 * apiextensions.k8s.io/v1 JSONSchemaProps (kubernetes/apiextensions-apiserver
 * 1aa2717a552ee6ca1e2a18f1f8ffccde981db923, pkg/apis/apiextensions/v1/types_jsonschema.go and
 * marshal.go; package-operator e03279db54c3fb57b195f76b8d0bf79f2bc024c8,
 * internal/packages/internal/packagestructure/conversion.go). One case per decoding rule: PKO's
 * verdict (accepted, or its error text) and, for a refusal, the line of the value.
 */
import { fileMap } from '../../src/core/filemap.js';
import { validatePackage } from '../../src/pko/validate.js';

const manifest = (schema: string) => `apiVersion: manifests.package-operator.run/v1alpha1
kind: PackageManifest
metadata:
  name: p
spec:
  scopes: [Namespaced]
  phases:
  - name: deploy
  config:
    openAPIV3Schema:
      type: object
${schema.replace(/^/gm, '      ')}
`;

const PREFIX = 'Invalid YAML in manifest.yaml: error unmarshaling JSON: while decoding JSON: ';

async function verdict(schema: string): Promise<{ errors: string[]; lines: (number | undefined)[] }> {
  const findings = await validatePackage(fileMap({ 'manifest.yaml': manifest(schema) }));
  const errors = findings.filter((f) => f.severity === 'error');
  return { errors: errors.map((f) => f.message), lines: errors.map((f) => f.line) };
}

describe('config.openAPIV3Schema decoded into JSONSchemaProps, with PKO\'s error text', () => {
  const refused: [string, string, string, number][] = [
    ['required as a string', 'required: image\nproperties:\n  image: {type: string}', 'json: cannot unmarshal string into Go struct field JSONSchemaProps.spec.config.openAPIV3Schema.required of type []string', 12],
    ['a stray type: object under properties', 'properties:\n  type: object\n  image: {type: string}', 'json: cannot unmarshal string into Go struct field JSONSchemaProps.spec.config.openAPIV3Schema.properties of type v1.JSONSchemaProps', 13],
    ['maxLength as a string', 'properties:\n  image:\n    type: string\n    maxLength: "3"', 'json: cannot unmarshal string into Go struct field JSONSchemaProps.spec.config.openAPIV3Schema.properties.maxLength of type int64', 15],
    ['maxLength not an integer', 'properties:\n  image:\n    type: string\n    maxLength: 1.5', 'json: cannot unmarshal number 1.5 into Go struct field JSONSchemaProps.spec.config.openAPIV3Schema.properties.maxLength of type int64', 15],
    ['minimum as a string', 'properties:\n  n:\n    type: integer\n    minimum: one', 'json: cannot unmarshal string into Go struct field JSONSchemaProps.spec.config.openAPIV3Schema.properties.minimum of type float64', 15],
    ['enum not a list', 'properties:\n  mode:\n    type: string\n    enum: fast', 'json: cannot unmarshal string into Go struct field JSONSchemaProps.spec.config.openAPIV3Schema.properties.enum of type []v1.JSON', 15],
    ['additionalProperties neither a schema nor a boolean', 'additionalProperties: "no"', 'boolean or JSON schema expected', 12],
    ['required as a string inside items', 'properties:\n  list:\n    type: array\n    items:\n      type: object\n      required: name', 'json: cannot unmarshal string into Go struct field JSONSchemaProps.spec.config.openAPIV3Schema.properties.items.required of type []string', 17],
    ['x-kubernetes-validations not a list', 'x-kubernetes-validations:\n  rule: self.a', 'json: cannot unmarshal object into Go struct field JSONSchemaProps.spec.config.openAPIV3Schema.x-kubernetes-validations of type v1.ValidationRules', 12],
    ['nullable not a boolean', 'nullable: "false"', 'json: cannot unmarshal string into Go struct field JSONSchemaProps.spec.config.openAPIV3Schema.nullable of type bool', 12],
  ];
  test.each(refused)('%s: refused, located', async (_n, schema, text, line) => {
    const v = await verdict(schema);
    expect(v.errors).toEqual([PREFIX + text]);
    expect(v.lines).toEqual([line]);
  });

  const accepted: [string, string][] = [
    ['keys matched case-insensitively, as encoding/json does', 'Required: [image]\nproperties:\n  image: {type: string, description: d}'],
    ['enum and default of any JSON type (JSON takes anything)', 'properties:\n  n:\n    type: integer\n    enum: [1, 2]\n    default: 1'],
    ['additionalProperties as a boolean or a schema', 'properties:\n  a:\n    type: object\n    additionalProperties: {type: string}\n  b:\n    type: object\n    x-kubernetes-preserve-unknown-fields: true'],
  ];
  test.each(accepted)('%s: accepted', async (_n, schema) => {
    expect((await verdict(schema)).errors).toEqual([]);
  });
});
