/** `pkogen/schema`: turning a CustomResourceDefinition into the JSON Schema and ajv keywords the Kubernetes API server enforces. */
export { crdFromObject, crdVersionToJsonSchema } from '../schema/crd.js';
export { addCelKeyword, addListMapKeyword } from '../schema/kube-keywords.js';
export { renderAjvErrors } from '../schema/errors.js';
export { addKubernetesFormats, isDns1123Subdomain } from '../schema/formats.js';
export { objectMetaSchema } from '../schema/objectmeta.js';
export { newAjv } from '../schema/ajv-setup.js';
