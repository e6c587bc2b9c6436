import { UserError } from '../../core/errors.js';
import type { Command } from '../io.js';

// Placeholder until the command lands; replaced by its implementation.
export const command: Command = {
  name: 'update',
  summary: '',
  help: 'Usage: pkogen update (not implemented yet)',
  async run() {
    throw new UserError('pkogen update is not implemented yet');
  },
};
