import { UserError } from '../../core/errors.js';
import type { Command } from '../io.js';

// Placeholder until the command lands; replaced by its implementation.
export const command: Command = {
  name: 'lint-rollout',
  summary: '',
  help: 'Usage: pkogen lint-rollout (not implemented yet)',
  async run() {
    throw new UserError('pkogen lint-rollout is not implemented yet');
  },
};
