/**
 * Package Operator's own template functions (internal/transform): `include` (recursion limit
 * 1000 per template name), `b64decMap`, `toYAML`/`fromYAML`, `getFile`/`getFileGlob` over the
 * package's pre-render files, and `cel`.
 */
import { type FileMap, toText } from '../../core/filemap.js';
import { parseYaml11, YamlParseError } from '../../yaml/parse.js';
import { GoTyped, type FuncMap, type GoMap, type GoValue } from '../types.js';
import { marshalGoYaml } from './goyaml.js';
import { fromJs } from './json.js';
import { b64decStrict } from './misc.js';
import { argMap, argString, arity, FuncError, isMap, unwrap } from './value.js';
import { globRegExp, GlobSyntaxError } from '../../core/glob.js';

export const INCLUDE_RECURSION_DEPTH = 1000;

export interface PkoFuncOptions {
  /** Executes the named template of the same set with `data`, returning its text. */
  executeTemplate: (name: string, data: GoValue) => string;
  /** The package's files before rendering (getFile sees `.gotmpl` sources). */
  files: FileMap;
  /** Evaluates a CEL expression against the render context; must return a boolean. */
  cel?: (expr: string) => boolean;
}

export function pkoFuncs(opts: PkoFuncOptions): FuncMap {
  const included = new Map<string, number>();
  return {
    include: (...a) => {
      arity('include', a, 2);
      const name = argString('include', a[0], 0);
      const n = included.get(name) ?? 0;
      if (n > INCLUDE_RECURSION_DEPTH) throw new FuncError(`including template with name ${name}: exceeded max include recursion depth`);
      included.set(name, n + 1);
      try {
        return opts.executeTemplate(name, a[1]);
      } finally {
        included.set(name, (included.get(name) ?? 1) - 1);
      }
    },
    b64decMap: (...a) => {
      arity('b64decMap', a, 1);
      const m = argMap('b64decMap', a[0]);
      const out: GoMap = {};
      for (const k of Object.keys(m)) {
        const v = unwrap(m[k]);
        if (typeof v !== 'string') continue;
        try {
          out[k] = b64decStrict(v).toString('utf8');
        } catch (e) {
          throw new FuncError(`decode base64 value at key ${k}: ${(e as Error).message}`);
        }
      }
      return out;
    },
    toYAML: (...a) => {
      arity('toYAML', a, 1);
      return marshalGoYaml(a[0]);
    },
    fromYAML: (...a) => {
      arity('fromYAML', a, 1);
      const s = argString('fromYAML', a[0], 0);
      let data: unknown;
      try {
        data = parseYaml11(s);
      } catch (e) {
        const pe = e as YamlParseError;
        throw new FuncError(`error converting YAML to JSON: yaml: ${pe.line ? `line ${pe.line}: ` : ''}${pe.message}`);
      }
      const v = fromJs(data);
      if (v !== null && !isMap(v)) throw new FuncError(`error unmarshaling JSON: json: cannot unmarshal ${Array.isArray(v) ? 'array' : typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'bool' : 'number'} into Go value of type map[string]interface {}`);
      return v ?? {};
    },
    getFile: (...a) => {
      arity('getFile', a, 1);
      const p = argString('getFile', a[0], 0);
      const b = opts.files.get(p);
      if (!b) throw new FuncError('file not found');
      return toText(b);
    },
    getFileGlob: (...a) => {
      arity('getFileGlob', a, 1);
      let g: RegExp;
      try {
        g = globRegExp(argString('getFileGlob', a[0], 0), 'gobwas');
      } catch (e) {
        // gobwas/glob's compiler says this for every malformed pattern.
        if (e instanceof GlobSyntaxError) throw new FuncError('unexpected end of input');
        throw e;
      }
      const out: GoMap = {};
      for (const [p, b] of opts.files) if (g.test(p)) out[p] = toText(b);
      return new GoTyped('map[string]string', out);
    },
    cel: (...a) => {
      arity('cel', a, 1);
      const expr = argString('cel', a[0], 0);
      if (!opts.cel) throw new FuncError('cel: no CEL context');
      return opts.cel(expr);
    },
  };
}
