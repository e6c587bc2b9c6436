import { UserError } from '../../core/errors.js';
import type { Command } from '../io.js';

// Placeholder until the command lands; replaced by its implementation.
export const command: Command = {
  name: 'validate',
  summary: '',
  help: 'Usage: pkogen validate (not implemented yet)',
  async run() {
    throw new UserError('pkogen validate is not implemented yet');
  },
};
