/**
 * promtool (Debian's `prometheus` package) on our alert rules: `check rules` on the rule file,
 * and `test rules` with input series made of what a test scraped at its checkpoints (each held
 * for its minutes), so each alert is evaluated against what our processes exported during a run.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { dump } from 'js-yaml';
import type { AlertRule } from '../../resources/monitoring.js';

export function promtool(args: string[], cwd: string): { code: number; out: string } {
  try {
    return { code: 0, out: execFileSync('promtool', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 }) };
  } catch (e) {
    const x = e as { status?: number; stdout?: string; stderr?: string };
    return { code: x.status ?? 1, out: `${x.stdout ?? ''}${x.stderr ?? ''}` };
  }
}

/** Scrapes at checkpoints: [minute it starts at, samples]. Each value holds until the next checkpoint. */
export type Recording = [number, Map<string, number>][];

/** The recording as promtool input_series, every series with the target labels Prometheus adds. */
export function inputSeries(rec: Recording, endMinute: number, target: Record<string, string>): { series: string; values: string }[] {
  const names = new Set(rec.flatMap(([, m]) => [...m.keys()]));
  const out: { series: string; values: string }[] = [];
  for (const name of [...names].sort()) {
    const parts: string[] = [];
    for (let i = 0; i < rec.length; i++) {
      const [start, m] = rec[i]!;
      const end = i + 1 < rec.length ? rec[i + 1]![0] : endMinute + 1;
      const v = m.get(name) ?? 0;
      // promtool's `a+0xN` is N+1 samples; hold v for (end - start) samples.
      parts.push(end - start > 1 ? `${v}+0x${end - start - 1}` : `${v}`);
    }
    const extra = Object.entries(target).map(([k, v]) => `${k}="${v}"`).join(',');
    const series = name.includes('{') ? name.replace('{', `{${extra},`) : `${name}{${extra}}`;
    out.push({ series, values: parts.join(' ') });
  }
  return out;
}

export interface AlertCase {
  minute: number;
  alert: string;
  /** Expected firing alerts' labels (empty: silent). */
  firing: Record<string, string>[];
}

/** Writes rules.yaml and test.yaml in `dir`; returns promtool's verdicts. */
export function checkAndTest(dir: string, rules: AlertRule[], series: { series: string; values: string }[], cases: AlertCase[]): { check: { code: number; out: string }; test: { code: number; out: string } } {
  writeFileSync(path.join(dir, 'rules.yaml'), dump({ groups: [{ name: 'on-cluster-build', rules }] }, { lineWidth: -1 }));
  // The same rules without annotations for `test rules` (it compares annotations too; the cases state labels).
  writeFileSync(path.join(dir, 'rules-test.yaml'), dump({ groups: [{ name: 'on-cluster-build', rules: rules.map(({ annotations: _, ...r }) => r) }] }, { lineWidth: -1 }));
  writeFileSync(
    path.join(dir, 'test.yaml'),
    dump(
      {
        rule_files: ['rules-test.yaml'],
        evaluation_interval: '1m',
        tests: [
          {
            interval: '1m',
            input_series: series,
            alert_rule_test: cases.map((c) => ({ eval_time: `${c.minute}m`, alertname: c.alert, exp_alerts: c.firing.map((l) => ({ exp_labels: l })) })),
          },
        ],
      },
      { lineWidth: -1 },
    ),
  );
  return { check: promtool(['check', 'rules', 'rules.yaml'], dir), test: promtool(['test', 'rules', 'test.yaml'], dir) };
}
