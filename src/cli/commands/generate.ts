import { UserError } from '../../core/errors.js';
import type { Command } from '../io.js';

// Placeholder until the command lands; replaced by its implementation.
export const command: Command = {
  name: 'generate',
  summary: '',
  help: 'Usage: pkogen generate (not implemented yet)',
  async run() {
    throw new UserError('pkogen generate is not implemented yet');
  },
};
