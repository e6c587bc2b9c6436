/** `pkogen/yaml`: YAML read with PKO's YAML 1.1 semantics, bounded (size, depth, aliases). */
export { parseYaml11, parseAllYaml11 } from '../yaml/parse.js';
