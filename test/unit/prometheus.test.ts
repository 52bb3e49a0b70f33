// runtime/metrics/prometheus.ts loads prom-client's classes file by file (its index costs ~20 MB at start); they must
// be the very classes the package exports, so metrics made either way share one registry and a prom-client
// upgrade that moves the files fails here instead of at run time.
import { describe, expect, it } from '@jest/globals';
import { createRequire } from 'node:module';
import * as promClient from 'prom-client';
import { collectDefaultMetrics, Gauge, Registry } from '../../runtime/metrics/prometheus.js';

describe('runtime/prometheus', () => {
  it('exports the same classes as the prom-client package', () => {
    expect(Registry).toBe(promClient.Registry);
    expect(Gauge).toBe(promClient.Gauge);
  });

  it('registers the default process metrics on demand, on the given registry only', async () => {
    const registry = new Registry();
    expect(await registry.getMetricsAsJSON()).toEqual([]);
    collectDefaultMetrics(registry);
    expect(registry.getSingleMetric('process_cpu_user_seconds_total')).toBeDefined();
    expect(promClient.register.getSingleMetric('process_cpu_user_seconds_total')).toBeUndefined();
  });

  // prom-client's event-loop lag monitor wakes the process at its resolution: at its default 10 ms that was ~0.4 s of CPU a
  // minute (measured with process.cpuUsage over 20 s), more than an idle hosted replica's work; at 100 ms, 0.05 s.
  it('samples the event-loop delay every 100 ms, not every 10 ms', () => {
    const perfHooks = createRequire(import.meta.url)('perf_hooks') as typeof import('node:perf_hooks');
    const original = perfHooks.monitorEventLoopDelay;
    const resolutions: (number | undefined)[] = [];
    perfHooks.monitorEventLoopDelay = (o) => { resolutions.push(o?.resolution); return original(o); };
    try {
      collectDefaultMetrics(new Registry());
    } finally {
      perfHooks.monitorEventLoopDelay = original;
    }
    expect(resolutions).toEqual([100]);
  });
});
