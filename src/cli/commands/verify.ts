import { UserError } from '../../core/errors.js';
import type { Command } from '../io.js';

// Placeholder until the command lands; replaced by its implementation.
export const command: Command = {
  name: 'verify',
  summary: '',
  help: 'Usage: pkogen verify (not implemented yet)',
  async run() {
    throw new UserError('pkogen verify is not implemented yet');
  },
};
