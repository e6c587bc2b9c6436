/**
 * One line for an error from the registry and release code: pkogen's UserErrors carry a located
 * description (`describe()`), anything else its message. Never a stack, never a credential (the
 * registry client keeps those out of its errors).
 */
import { UserError } from 'pkogen/model';

export const describeError = (e: unknown): string => (e instanceof UserError ? e.describe() : (e as Error).message);
