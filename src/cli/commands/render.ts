import { UserError } from '../../core/errors.js';
import type { Command } from '../io.js';

// Placeholder until the command lands; replaced by its implementation.
export const command: Command = {
  name: 'render',
  summary: '',
  help: 'Usage: pkogen render (not implemented yet)',
  async run() {
    throw new UserError('pkogen render is not implemented yet');
  },
};
