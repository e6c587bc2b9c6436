import { UserError } from '../../core/errors.js';
import type { Command } from '../io.js';

// Placeholder until the command lands; replaced by its implementation.
export const command: Command = {
  name: 'build',
  summary: '',
  help: 'Usage: pkogen build (not implemented yet)',
  async run() {
    throw new UserError('pkogen build is not implemented yet');
  },
};
