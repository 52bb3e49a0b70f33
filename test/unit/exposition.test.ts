// The Prometheus text format's sample lines (api-types/exposition.ts), read back from what prom-client writes, and
// scrapes turned into promtool input series (test/support/alert-series.ts), whose semantics the alert tests rely on.
import { describe, expect, it } from '@jest/globals';
import { exposedSample, exposedSamples } from '../../api-types/index.js';
import { Registry, gauge } from '../../runtime/index.js';
import { inputSeries } from '../support/alert-series.js';

describe('exposition format', () => {
  it('reads names, escaped label values, special values and timestamps; skips comments and junk', () => {
    expect(exposedSample('up 1')).toEqual({ name: 'up', labels: {}, value: 1 });
    expect(exposedSample('a_b:c{x="1",y="q\\"uote\\\\d\\nnl"} -2.5e3 1700000000000')).toEqual({ name: 'a_b:c', labels: { x: '1', y: 'q"uote\\d\nnl' }, value: -2500 });
    expect(exposedSample('h_bucket{le="+Inf"} +Inf')?.value).toBe(Infinity);
    expect(exposedSample('x -Inf')?.value).toBe(-Infinity);
    expect(exposedSample('x NaN')?.value).toBeNaN();
    expect(exposedSample('# HELP x y')).toBeUndefined();
    expect(exposedSample('x notanumber')).toBeUndefined();
    expect(exposedSample('')).toBeUndefined();
  });

  it('reads back every sample prom-client writes', async () => {
    const r = new Registry();
    gauge(r, 'featuregates_t', 'help', ['namespace', 'reason']).set({ namespace: 'a"b', reason: 'x,y=z' }, 3);
    gauge(r, 'featuregates_u', 'help', []).set(0.25);
    expect(exposedSamples(await r.metrics())).toEqual([
      { name: 'featuregates_t', labels: { namespace: 'a"b', reason: 'x,y=z' }, value: 3 },
      { name: 'featuregates_u', labels: {}, value: 0.25 },
    ]);
  });
});

describe('scrapes as promtool input series', () => {
  const at = 1_000_000_000_000;
  const s = (name: string, value: number, labels: Record<string, string> = {}) => ({ name, labels, value });
  it('gauges hold, counters grow at the measured rate, timestamps keep their age (advance) or stay from the phase start (hold), gone series go stale', () => {
    const series = inputSeries([
      { minutes: 3, scrapes: [{ target: { job: 'j' }, first: { atMs: at, samples: [s('g', 2), s('c_total', 10), s('t_timestamp_seconds', at / 1000 - 30)] },
        last: { atMs: at + 10_000, samples: [s('g', 2), s('c_total', 15), s('t_timestamp_seconds', at / 1000 - 30)] } }] },
      { minutes: 2, timestamps: 'hold', scrapes: [{ target: { job: 'j' }, first: { atMs: at, samples: [s('t_timestamp_seconds', at / 1000 - 60), s('n', 1)] } }] },
      { minutes: 2, scrapes: [] },
    ], () => true);
    expect(Object.fromEntries(series.map((x) => [x.series, x.values]))).toEqual({
      'g{job="j"}': '2x2 stale _x1 _x2',
      'c_total{job="j"}': '10+30x2 stale _x1 _x2',
      't_timestamp_seconds{job="j"}': '-30+60x2 120x1 stale _x1',
      'n{job="j"}': '_x3 1x1 stale _x1',
    });
  });
});
