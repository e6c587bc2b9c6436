/**
 * The contract between a bundle module (e.g. resources/resources.ts) and `pkogen generate` /
 * `pkogen verify`: a module whose default export produces every generated artifact.
 */
import { Finding } from '../core/errors.js';
import type { FileMap } from '../core/filemap.js';

export interface GeneratedOutput {
  /** Directories owned entirely by the generator, relative to the project root; replaced atomically. */
  directories: Record<string, FileMap>;
  /** Single generated files, relative to the project root; each written atomically. */
  files: Record<string, Uint8Array>;
  /** Results of the generation checks; any error fails the generation and writes nothing. */
  findings: Finding[];
}

export type BundleModule = { default: () => Promise<GeneratedOutput> | GeneratedOutput };
