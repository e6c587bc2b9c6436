/**
 * Go's own text/template, compiled to WebAssembly (@evertdespiegeleer/go-template), used as the
 * reference implementation. It parses one template named "tpl" with Option("missingkey=error")
 * and executes it on JSON data (numbers are float64, as with encoding/json).
 */
import { parse } from '@evertdespiegeleer/go-template';
import { GoTemplateError, TemplateSet } from '../../src/gotemplate/index.js';
import type { GoValue } from '../../src/gotemplate/index.js';

export type Outcome = { ok: true; out: string } | { ok: false; err: string };

let ready: Promise<unknown> | null = null;
export async function initOracle(): Promise<void> {
  ready ??= parse('', {});
  await ready;
}

export function goRender(template: string, data: unknown): Outcome {
  const render = (globalThis as unknown as { Render: (t: string, d: string) => string }).Render;
  const r = render(template, JSON.stringify(data));
  if (r.startsWith('Template exec error: ')) return { ok: false, err: r.slice('Template exec error: '.length) };
  if (r.startsWith('Template parse error: ')) return { ok: false, err: r.slice('Template parse error: '.length) };
  if (r.startsWith('JSON parse error')) throw new Error(r);
  return { ok: true, out: r };
}

export function tsRender(template: string, data: unknown): Outcome {
  try {
    const set = new TemplateSet({ missingKey: 'error' });
    set.parse('tpl', template);
    return { ok: true, out: set.execute('tpl', data as GoValue) };
  } catch (e) {
    if (e instanceof GoTemplateError) return { ok: false, err: e.message };
    throw e;
  }
}
