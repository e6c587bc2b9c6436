/**
 * One Prometheus registry per process (prom-client's Registry, not its global one), holding the
 * catalogue's metrics of that process and Node's process metrics. Label values pass through
 * `bounded` here, at the one place metrics are touched, so a caller cannot add a label value.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { bounded, MetricSpec } from './catalogue.js';

export type Labels = Record<string, string | undefined>;

export class Metrics {
  readonly registry = new Registry();
  private readonly counters = new Map<string, Counter<string>>();
  private readonly gauges = new Map<string, Gauge<string>>();
  private readonly histograms = new Map<string, Histogram<string>>();
  private readonly specs = new Map<string, MetricSpec>();

  /** `collectors`: gauges computed at scrape time (name → a function returning [labels, value] pairs). */
  constructor(specs: MetricSpec[], o: { processMetrics?: boolean; collectors?: Record<string, () => [Labels, number][]> } = {}) {
    if (o.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
    for (const s of specs) {
      this.specs.set(s.name, s);
      const labelNames = Object.keys(s.labels);
      const base = { name: s.name, help: s.help, labelNames, registers: [this.registry] };
      if (s.type === 'counter') this.counters.set(s.name, new Counter(base));
      else if (s.type === 'histogram') this.histograms.set(s.name, new Histogram({ ...base, buckets: s.buckets! }));
      else {
        const collect = o.collectors?.[s.name];
        const self = this;
        this.gauges.set(
          s.name,
          new Gauge({
            ...base,
            ...(collect
              ? {
                  collect(this: Gauge<string>) {
                    this.reset();
                    for (const [l, v] of collect()) this.inc(self.labels(s, l), v);
                  },
                }
              : {}),
          }),
        );
      }
    }
  }

  private labels(s: MetricSpec, l: Labels): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, allowed] of Object.entries(s.labels)) out[k] = bounded(allowed, l[k]);
    return out;
  }

  private spec(name: string): MetricSpec {
    const s = this.specs.get(name);
    if (!s) throw new Error(`metric ${name} is not registered in this process`);
    return s;
  }

  inc(s: MetricSpec, l: Labels = {}, by = 1): void {
    this.counters.get(this.spec(s.name).name)!.inc(this.labels(s, l), by);
  }

  set(s: MetricSpec, value: number, l: Labels = {}): void {
    this.gauges.get(this.spec(s.name).name)!.set(this.labels(s, l), value);
  }

  observe(s: MetricSpec, seconds: number, l: Labels = {}): void {
    if (!Number.isFinite(seconds) || seconds < 0) return;
    this.histograms.get(this.spec(s.name).name)!.observe(this.labels(s, l), seconds);
  }

  /** Declares every label combination of a counter at 0, so rates and absences read right from the first scrape. */
  zero(s: MetricSpec): void {
    const names = Object.keys(s.labels);
    const combos = names.reduce<Record<string, string>[]>((acc, n) => acc.flatMap((c) => s.labels[n]!.map((v) => ({ ...c, [n]: v }))), [{}]);
    for (const c of combos) this.counters.get(s.name)?.inc(c, 0);
  }

  async render(): Promise<{ text: string; contentType: string }> {
    return { text: await this.registry.metrics(), contentType: this.registry.contentType };
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
