import { readFileSync } from 'node:fs';
import type { Finding } from '../../src/core/errors.js';
import { lintRolloutTemplate, LintOptions } from '../../src/rollout/lint.js';
import { rolloutSchemaValidator } from '../../src/rollout/schema.js';
import { renderObjectTemplateText } from '../../src/rollout/pko-render.js';
import type { RolloutTemplateOptions } from '../../src/rollout/generate.js';
import { ourResources } from '../helpers.js';

export const REF_DIR = '../../shared/reference/rollout-templates';
export const SKELETON = readFileSync(`${REF_DIR}/synthesized-reference-skeleton.yaml`, 'utf8');
export const MCVW = readFileSync(`${REF_DIR}/mcvw-hs.SelectorSyncSet.yaml.tmpl`, 'utf8');
export const RAW = readFileSync(`${REF_DIR}/synthesized-object-templates-raw-variant.yaml`, 'utf8');

/** Replaces exactly one occurrence, so a test never passes because its mutation silently missed. */
export function mutate(text: string, from: string | RegExp, to: string): string {
  const count = typeof from === 'string' ? text.split(from).length - 1 : (text.match(new RegExp(from.source, from.flags.includes('g') ? from.flags : from.flags + 'g')) ?? []).length;
  if (count !== 1) throw new Error(`mutation target found ${count} times: ${String(from)}`);
  return text.replace(from, to);
}

export function lint(text: string, opts: LintOptions = {}): Finding[] {
  return lintRolloutTemplate('t.yaml', text, { schema: rolloutSchemaValidator(), renderTemplate: renderObjectTemplateText, ...opts }).findings;
}

export function errors(fs: Finding[]): Finding[] {
  return fs.filter((f) => f.severity === 'error');
}

export function has(fs: Finding[], severity: string, rule: string, message: RegExp): Finding {
  const f = fs.find((x) => x.severity === severity && x.rule === rule && message.test(x.message));
  if (!f) throw new Error(`no ${severity} ${rule} ${message}; got:\n${fs.map((x) => `${x.severity} ${x.rule} ${x.path} ${x.message}`).join('\n')}`);
  return f;
}

/** The call our bundle makes (resources/resources.ts). */
export const ON_CLUSTER_BUILD: RolloutTemplateOptions = (await ourResources()).rolloutOptions();
