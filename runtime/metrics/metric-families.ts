// Counter, gauge and histogram families for the paths every event and request takes. prom-client's own
// metrics hash and validate the label set on every update, even through the child `labels()` returns (8.7 %
// of the operator's CPU per ClusterVersion change, docs/benchmarks.md); here `labels()` resolves the series
// once and the child it returns updates it with arithmetic.
// A family registers in a prom-client Registry, which formats it: it offers what the registry reads from a
// metric (name, help, type, aggregator, get(), getForPromString(), reset()), and the text is the one
// prom-client's classes produce for the same updates (test/unit/metric-families.test.ts compares them).
import type { Registry } from 'prom-client';

type Labels<L extends string> = Partial<Record<L, string | number>>;

interface Exported {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
  sharedLabels?: Record<string, string | number>;
}

/** One label set's series; `live` while the family exports it (a remove or reset ends it). */
interface Entry<S> { readonly key: string; readonly labels: Record<string, string | number>; series: S; live: boolean }

abstract class Family<L extends string, S> {
  abstract readonly type: 'counter' | 'gauge' | 'histogram';
  readonly aggregator = 'sum';
  /** Called before every read, as prom-client's `collect` (a series computed on scrape). */
  collect: (() => void) | undefined;
  /** A family without labels shows its one series (at 0) before any update; prom-client's histogram not after a reset. */
  protected bareSeries = true;
  private readonly entries = new Map<string, Entry<S>>();

  constructor(readonly name: string, readonly help: string, readonly labelNames: readonly L[], registry: Registry) {
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(name)) throw new Error(`metric ${JSON.stringify(name)}: invalid metric name`);
    registry.registerMetric(this as never);
  }

  protected abstract fresh(): S;
  protected abstract export(labels: Record<string, string | number>, series: S): Exported[];

  /**
   * The series of these label values, for a child to update: resolved now (every label must be one of the
   * family's), exported from its first update on, as prom-client does; after a remove or reset the next
   * update starts it again from zero.
   */
  protected bind(labels: Labels<L>): () => S {
    let entry = this.entryOf(labels);
    return () => (entry.live ? entry.series : (entry = this.revive(entry)).series);
  }

  /** The series of these label values for one update (a direct call with labels). */
  protected seriesOf(labels: Labels<L>): S {
    const entry = this.entryOf(labels);
    return (entry.live ? entry : this.revive(entry)).series;
  }

  remove(labels: Labels<L>): void {
    const key = this.keyOf(labels);
    const entry = this.entries.get(key);
    if (entry) entry.live = false;
    this.entries.delete(key);
  }

  reset(): void {
    for (const e of this.entries.values()) e.live = false;
    this.entries.clear();
  }

  getForPromString(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Exported[] }> {
    this.collect?.();
    if (this.labelNames.length === 0 && this.bareSeries) this.seriesOf({});
    const values = [...this.entries.values()].flatMap((e) => this.export(e.labels, e.series));
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Exported[] }> {
    const data = await this.getForPromString();
    data.values = data.values.map(({ sharedLabels, ...v }) => ({ ...v, labels: { ...v.labels, ...sharedLabels } }));
    return data;
  }

  private entryOf(labels: Labels<L>): Entry<S> {
    const key = this.keyOf(labels);
    const known = this.entries.get(key);
    if (known) return known;
    for (const k of Object.keys(labels)) {
      if (!(this.labelNames as readonly string[]).includes(k)) throw new Error(`metric ${this.name}: added label "${k}" is not included in initial labelset: ${JSON.stringify(this.labelNames)}`);
    }
    return { key, labels: { ...labels } as Record<string, string | number>, series: this.fresh(), live: false };
  }

  /** The live entry of `stale`'s labels: the one exported now, or `stale` itself started again from zero. */
  private revive(stale: Entry<S>): Entry<S> {
    const current = this.entries.get(stale.key);
    if (current) return current;
    stale.series = this.fresh();
    stale.live = true;
    this.entries.set(stale.key, stale);
    return stale;
  }

  private keyOf(labels: Labels<L>): string {
    let key = '';
    for (const n of this.labelNames) key += `${labels[n] ?? ''}\u0000`;
    return key;
  }
}

/** One series' value, for counters and gauges. */
class Value { value = 0; }

export class CounterFamily<L extends string = string> extends Family<L, Value> {
  readonly type = 'counter';
  protected fresh(): Value { return new Value(); }
  protected export(labels: Record<string, string | number>, s: Value): Exported[] { return [{ labels, value: s.value }]; }

  labels(labels: Labels<L>): { inc(by?: number): void } {
    const s = this.bind(labels);
    return { inc: (by = 1) => this.add(s(), by) };
  }

  inc(labels?: Labels<L> | number, by?: number): void {
    if (typeof labels === 'object') this.add(this.seriesOf(labels), by ?? 1);
    else this.add(this.seriesOf({}), labels ?? 1);
  }

  private add(s: Value, by: number): void {
    if (!(by >= 0)) throw new Error(`metric ${this.name}: a counter cannot decrease (${by})`);
    s.value += by;
  }
}

export class GaugeFamily<L extends string = string> extends Family<L, Value> {
  readonly type = 'gauge';
  protected fresh(): Value { return new Value(); }
  protected export(labels: Record<string, string | number>, s: Value): Exported[] { return [{ labels, value: s.value }]; }

  labels(labels: Labels<L>): { set(v: number): void; inc(by?: number): void; dec(by?: number): void } {
    const s = this.bind(labels);
    return { set: (v) => { s().value = v; }, inc: (by = 1) => { s().value += by; }, dec: (by = 1) => { s().value -= by; } };
  }

  set(labels: Labels<L> | number, v?: number): void {
    if (typeof labels === 'object') this.seriesOf(labels).value = v!;
    else this.seriesOf({}).value = labels;
  }

  inc(labels?: Labels<L> | number, by?: number): void {
    if (typeof labels === 'object') this.seriesOf(labels).value += by ?? 1;
    else this.seriesOf({}).value += labels ?? 1;
  }

  dec(labels?: Labels<L> | number, by?: number): void {
    if (typeof labels === 'object') this.seriesOf(labels).value -= by ?? 1;
    else this.seriesOf({}).value -= labels ?? 1;
  }
}

/** One series of a histogram: the count per bucket (not cumulative; the last is above every bound), sum and count. */
class Buckets {
  constructor(readonly counts: number[], public sum = 0, public count = 0) {}
}

export class HistogramFamily<L extends string = string> extends Family<L, Buckets> {
  readonly type = 'histogram';
  private readonly bounds: readonly number[];

  constructor(name: string, help: string, labelNames: readonly L[], buckets: readonly number[], registry: Registry) {
    if (labelNames.includes('le' as L)) throw new Error(`metric ${name}: le is a reserved label keyword`);
    super(name, help, labelNames, registry);
    this.bounds = [...buckets].sort((a, b) => a - b);
  }

  override reset(): void {
    super.reset();
    this.bareSeries = false;
  }

  protected fresh(): Buckets { return new Buckets(new Array<number>(this.bounds.length + 1).fill(0)); }

  protected export(labels: Record<string, string | number>, s: Buckets): Exported[] {
    const bucket = `${this.name}_bucket`;
    let acc = 0;
    const out: Exported[] = this.bounds.map((le, i) => ({
      labels: { le },
      value: (acc += s.counts[i]!),
      metricName: bucket,
      sharedLabels: labels,
    }));
    out.push({ labels: { le: '+Inf' }, value: s.count, metricName: bucket, sharedLabels: labels },
      { labels: {}, value: s.sum, metricName: `${this.name}_sum`, sharedLabels: labels },
      { labels: {}, value: s.count, metricName: `${this.name}_count`, sharedLabels: labels });
    return out;
  }

  labels(labels: Labels<L>): { observe(v: number): void } {
    const s = this.bind(labels);
    return { observe: (v) => this.add(s(), v) };
  }

  observe(labels: Labels<L> | number, v?: number): void {
    if (typeof labels === 'object') this.add(this.seriesOf(labels), v!);
    else this.add(this.seriesOf({}), labels);
  }

  private add(s: Buckets, v: number): void {
    if (!Number.isFinite(v)) throw new TypeError(`metric ${this.name}: value is not a valid number: ${v}`);
    let i = 0;
    while (i < this.bounds.length && v > this.bounds[i]!) i++;
    s.counts[i]!++;
    s.sum += v;
    s.count++;
  }
}
