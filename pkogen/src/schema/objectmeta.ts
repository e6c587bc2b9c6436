/** How a kind's metadata.name is validated by the API server. */
export type NameRule = 'subdomain' | 'label' | 'path-segment' | 'any';

const NAME_FORMAT: Record<NameRule, string | undefined> = {
  subdomain: 'k8s-dns1123-subdomain',
  label: 'k8s-dns1123-label',
  'path-segment': 'k8s-path-segment',
  any: undefined,
};

export const objectMetaId = (rule: NameRule): string => `k8s:ObjectMeta:${rule}`;

const str = { type: ['string', 'null'] };
const int = { type: ['integer', 'null'] };

/**
 * Strict ObjectMeta (k8s.io/apimachinery/pkg/apis/meta/v1): every field, unknown ones rejected,
 * label/annotation keys and label values checked like the API server does. Optional fields may
 * be null (the server treats null as unset).
 */
export function objectMetaSchema(rule: NameRule): Record<string, unknown> {
  const fmt = NAME_FORMAT[rule];
  return {
    $id: objectMetaId(rule),
    type: 'object',
    additionalProperties: false,
    properties: {
      name: fmt ? { type: 'string', format: fmt } : { type: 'string' },
      generateName: str,
      namespace: { type: ['string', 'null'], format: 'k8s-dns1123-label' },
      selfLink: str,
      uid: str,
      resourceVersion: str,
      generation: int,
      creationTimestamp: { type: ['string', 'null'], format: 'date-time' },
      deletionTimestamp: { type: ['string', 'null'], format: 'date-time' },
      deletionGracePeriodSeconds: int,
      labels: {
        type: ['object', 'null'],
        propertyNames: { format: 'k8s-qualified-name' },
        additionalProperties: { type: 'string', format: 'k8s-label-value' },
      },
      annotations: {
        type: ['object', 'null'],
        propertyNames: { format: 'k8s-qualified-name' },
        additionalProperties: { type: 'string' },
      },
      finalizers: { type: ['array', 'null'], items: { type: 'string' } },
      ownerReferences: {
        type: ['array', 'null'],
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['apiVersion', 'kind', 'name', 'uid'],
          properties: {
            apiVersion: { type: 'string' },
            kind: { type: 'string' },
            name: { type: 'string' },
            uid: { type: 'string' },
            controller: { type: ['boolean', 'null'] },
            blockOwnerDeletion: { type: ['boolean', 'null'] },
          },
        },
      },
      // Server-maintained bookkeeping; accepted as free-form.
      managedFields: { type: ['array', 'null'] },
    },
  };
}

export const LABEL_SELECTOR_ID = 'k8s:LabelSelector';

/**
 * metav1.LabelSelector as the API server validates it (ValidateLabelSelector): label keys and values
 * like metadata.labels, operators In/NotIn (values required) or Exists/DoesNotExist (values empty).
 */
export function labelSelectorSchema(): Record<string, unknown> {
  return {
    $id: LABEL_SELECTOR_ID,
    type: 'object',
    additionalProperties: false,
    properties: {
      matchLabels: {
        type: ['object', 'null'],
        propertyNames: { format: 'k8s-qualified-name' },
        additionalProperties: { type: 'string', format: 'k8s-label-value' },
      },
      matchExpressions: {
        type: ['array', 'null'],
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['key', 'operator'],
          properties: {
            key: { type: 'string', format: 'k8s-qualified-name' },
            operator: { type: 'string', enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'] },
            values: { type: ['array', 'null'], items: { type: 'string', format: 'k8s-label-value' } },
          },
          allOf: [
            {
              if: { required: ['operator'], properties: { operator: { enum: ['In', 'NotIn'] } } },
              then: { required: ['values'], properties: { values: { type: 'array', minItems: 1 } } },
            },
            {
              if: { required: ['operator'], properties: { operator: { enum: ['Exists', 'DoesNotExist'] } } },
              then: { properties: { values: { maxItems: 0 } } },
            },
          ],
        },
      },
    },
  };
}

/** The schemas every registry has, each with its $id. */
export function ownSchemas(): Record<string, unknown>[] {
  return [...(['subdomain', 'label', 'path-segment', 'any'] as const).map((rule) => objectMetaSchema(rule)), labelSelectorSchema()];
}
