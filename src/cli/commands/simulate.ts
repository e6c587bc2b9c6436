import { UserError } from '../../core/errors.js';
import type { Command } from '../io.js';

// Placeholder until the command lands; replaced by its implementation.
export const command: Command = {
  name: 'simulate',
  summary: '',
  help: 'Usage: pkogen simulate (not implemented yet)',
  async run() {
    throw new UserError('pkogen simulate is not implemented yet');
  },
};
