import { UserError } from '../../core/errors.js';
import type { Command } from '../io.js';

// Placeholder until the command lands; replaced by its implementation.
export const command: Command = {
  name: 'tree',
  summary: '',
  help: 'Usage: pkogen tree (not implemented yet)',
  async run() {
    throw new UserError('pkogen tree is not implemented yet');
  },
};
