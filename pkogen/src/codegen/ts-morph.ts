/** ts-morph, loaded on first use: it brings the TypeScript compiler, which no other command needs. */
import { createRequire } from 'node:module';

type TsMorph = typeof import('ts-morph');
let tsMorph: TsMorph | undefined;

export const loadTsMorph = (): TsMorph => (tsMorph ??= createRequire(import.meta.url)('ts-morph') as TsMorph);
