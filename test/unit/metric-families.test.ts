// The label-bound metric families must expose exactly what prom-client's classes expose for the same
// updates (the /metrics text, and getMetricsAsJSON but for prom-client's empty exemplars), whatever the sequence: random sequences of
// updates —
// through `labels()` children and direct calls, over several label sets, with removes and resets — are run
// on both, and the registries' outputs compared.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { CounterFamily, GaugeFamily, HistogramFamily } from '../../runtime/metrics/metric-families.js';
import { Counter, Gauge, Histogram } from 'prom-client';
import { Registry } from '../../runtime/metrics/prometheus.js';

const BUCKETS = [0.001, 0.01, 0.1, 1, 10];
const labelSet = fc.record({ name: fc.constantFrom('a', 'q"\\x'), controller: fc.constantFrom('c', 'd') });
const value = fc.double({ min: 0, max: 100, noNaN: true });

type Op =
  | { kind: 'counter' | 'counterChild' | 'counterHeld' | 'labelsOnly'; labels: { name: string; controller: string }; v: number }
  | { kind: 'gaugeSet' | 'gaugeInc' | 'gaugeDec' | 'gaugeChildSet' | 'gaugeChildInc' | 'gaugeChildDec' | 'gaugeHeldInc'; labels: { name: string; controller: string }; v: number }
  | { kind: 'observe' | 'observeChild' | 'observeHeld'; labels: { name: string; controller: string }; v: number }
  | { kind: 'plainCounter' | 'plainGauge' | 'plainObserve'; v: number }
  | { kind: 'remove'; labels: { name: string; controller: string } }
  | { kind: 'reset' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constantFrom('counter', 'counterChild', 'counterHeld', 'labelsOnly'), labels: labelSet, v: value }),
  fc.record({ kind: fc.constantFrom('gaugeSet', 'gaugeInc', 'gaugeDec', 'gaugeChildSet', 'gaugeChildInc', 'gaugeChildDec', 'gaugeHeldInc'), labels: labelSet, v: value }),
  fc.record({ kind: fc.constantFrom('observe', 'observeChild', 'observeHeld'), labels: labelSet, v: fc.oneof(value, fc.constantFrom(0.001, 0.01, 1, 10, 11)) }),
  fc.record({ kind: fc.constantFrom('plainCounter', 'plainGauge', 'plainObserve'), v: value }),
  fc.record({ kind: fc.constant('remove'), labels: labelSet }),
  fc.constant({ kind: 'reset' as const }),
);

/**
 * The same metrics made with either implementation; the function returned runs one update on them. "Held"
 * updates go through the child first made for that label set, kept across removes and resets (as a work
 * queue keeps its children), "Child" ones through a new child.
 */
function metricsOn(registry: Registry, ours: boolean) {
  const labelNames = ['name', 'controller'] as const;
  const c = ours ? new CounterFamily('x_total', 'a counter', labelNames, registry) : new Counter({ name: 'x_total', help: 'a counter', labelNames, registers: [registry] });
  const g = ours ? new GaugeFamily('x_depth', 'a gauge', labelNames, registry) : new Gauge({ name: 'x_depth', help: 'a gauge', labelNames, registers: [registry] });
  const h = ours ? new HistogramFamily('x_seconds', 'a histogram', labelNames, BUCKETS, registry) : new Histogram({ name: 'x_seconds', help: 'a histogram', labelNames, buckets: BUCKETS, registers: [registry] });
  const pc = ours ? new CounterFamily('y_total', 'no labels', [], registry) : new Counter({ name: 'y_total', help: 'no labels', registers: [registry] });
  const pg = ours ? new GaugeFamily('y_value', 'no labels', [], registry) : new Gauge({ name: 'y_value', help: 'no labels', registers: [registry] });
  const ph = ours ? new HistogramFamily('y_seconds', 'no labels', [], BUCKETS, registry) : new Histogram({ name: 'y_seconds', help: 'no labels', buckets: BUCKETS, registers: [registry] });
  const held = new Map<string, { c: { inc(v: number): void }; g: { inc(v: number): void }; h: { observe(v: number): void } }>();
  const heldFor = (l: { name: string; controller: string }) => {
    const key = `${l.name}/${l.controller}`;
    if (!held.has(key)) held.set(key, { c: c.labels(l), g: g.labels(l), h: h.labels(l) });
    return held.get(key)!;
  };
  return (o: Op) => {
    switch (o.kind) {
      case 'counterHeld': heldFor(o.labels).c.inc(o.v); break;
      case 'gaugeHeldInc': heldFor(o.labels).g.inc(o.v); break;
      case 'observeHeld': heldFor(o.labels).h.observe(o.v); break;
      case 'labelsOnly': c.labels(o.labels); g.labels(o.labels); h.labels(o.labels); break;
      case 'counter': c.inc(o.labels, o.v); break;
      case 'counterChild': c.labels(o.labels).inc(o.v); break;
      case 'gaugeSet': g.set(o.labels, o.v); break;
      case 'gaugeInc': g.inc(o.labels, o.v); break;
      case 'gaugeDec': g.dec(o.labels, o.v); break;
      case 'gaugeChildSet': g.labels(o.labels).set(o.v); break;
      case 'gaugeChildInc': g.labels(o.labels).inc(o.v); break;
      case 'gaugeChildDec': g.labels(o.labels).dec(o.v); break;
      case 'observe': h.observe(o.labels, o.v); break;
      case 'observeChild': h.labels(o.labels).observe(o.v); break;
      case 'plainCounter': pc.inc(o.v); break;
      case 'plainGauge': pg.set(o.v); break;
      case 'plainObserve': ph.observe(o.v); break;
      case 'remove': c.remove(o.labels); g.remove(o.labels); h.remove(o.labels); break;
      case 'reset': c.reset(); g.reset(); h.reset(); pc.reset(); pg.reset(); ph.reset(); break;
    }
  };
}

describe('runtime/metric-families', () => {
  it('expose what prom-client exposes for any sequence of updates', async () => {
    await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 20, maxLength: 80 }), async (ops) => {
      const theirs = new Registry();
      const ours = new Registry();
      const applyTheirs = metricsOn(theirs, false);
      const applyOurs = metricsOn(ours, true);
      for (const o of ops) { applyTheirs(o); applyOurs(o); }
      expect(await ours.metrics()).toBe(await theirs.metrics());
      // Exemplars (OpenMetrics only) are not supported: prom-client's JSON carries an empty `exemplar` per value.
      const withoutExemplars = (json: unknown) => JSON.parse(JSON.stringify(json, (k, v: unknown) => (k === 'exemplar' ? undefined : v))) as unknown;
      expect(withoutExemplars(await ours.getMetricsAsJSON())).toEqual(withoutExemplars(await theirs.getMetricsAsJSON()));
    }), { numRuns: 300 });
  });

  it('resolves a child once: the same label values update the same series', async () => {
    const registry = new Registry();
    const h = new HistogramFamily('w_seconds', 'work', ['controller'], BUCKETS, registry);
    const a = h.labels({ controller: 'fg' });
    a.observe(0.005);
    h.labels({ controller: 'fg' }).observe(0.5);
    h.observe({ controller: 'fg' }, 20);
    const text = await registry.metrics();
    expect(text).toContain('w_seconds_bucket{le="0.01",controller="fg"} 1\n');
    expect(text).toContain('w_seconds_bucket{le="1",controller="fg"} 2\n');
    expect(text).toContain('w_seconds_bucket{le="+Inf",controller="fg"} 3\n');
    expect(text).toContain('w_seconds_count{controller="fg"} 3');
  });

  it('refuses what prom-client refuses: an unknown label, a decreasing counter, a non-finite observation, le as a label', () => {
    const registry = new Registry();
    const c = new CounterFamily('z_total', 'z', ['controller'], registry);
    expect(() => c.inc({ result: 'x' } as never)).toThrow(/z_total: added label "result" is not included/);
    expect(() => c.inc({ controller: 'x' }, -1)).toThrow(/z_total: a counter cannot decrease/);
    expect(() => new HistogramFamily('z_seconds', 'z', [], BUCKETS, registry).observe(Number.NaN)).toThrow(/z_seconds: value is not a valid number/);
    expect(() => new HistogramFamily('z2_seconds', 'z', ['le'], BUCKETS, registry)).toThrow(/le is a reserved label/);
    expect(() => new GaugeFamily('z_total', 'again', [], registry)).toThrow(/already been registered/);
  });
});
