/**
 * The bounded YAML reader lives in src/yaml/parse.ts (one reader for every path); these names
 * stay for the package loader and its tests.
 */
import { DEFAULT_YAML_LIMITS, parseYaml11, type YamlLimits } from '../yaml/parse.js';

export { decodeYamlBytes, DEFAULT_YAML_LIMITS, YamlLimitError, YamlParseError, type YamlLimits } from '../yaml/parse.js';

/** One document, YAML 1.1 like PKO, within the limits; throws YamlParseError or YamlLimitError. */
export function parseYamlSafe(text: string, limits: YamlLimits = DEFAULT_YAML_LIMITS): unknown {
  return parseYaml11(text, undefined, limits);
}
