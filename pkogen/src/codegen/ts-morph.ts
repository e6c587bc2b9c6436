/** ts-morph, loaded on first use: it brings the TypeScript compiler, which no other command needs. */
import { createRequire } from 'node:module';
import { UserError } from '../core/errors.js';

type TsMorph = typeof import('ts-morph');
let tsMorph: TsMorph | undefined;

/** ts-morph is an optional peer dependency of pkogen (a lean install has none): `what` names the command that needs it. */
export const loadTsMorph = (what = 'this command'): TsMorph => {
  if (tsMorph) return tsMorph;
  try {
    return (tsMorph = createRequire(import.meta.url)('ts-morph') as TsMorph);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw e;
    throw new UserError(`${what} needs ts-morph, an optional dependency of pkogen that is not installed: npm install --save-dev ts-morph@27`);
  }
};
