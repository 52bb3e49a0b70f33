// runtime/prometheus.ts loads prom-client's classes file by file (its index costs ~20 MB at start); they must
// be the very classes the package exports, so metrics made either way share one registry and a prom-client
// upgrade that moves the files fails here instead of at run time.
import { describe, expect, it } from '@jest/globals';
import * as promClient from 'prom-client';
import { collectDefaultMetrics, Gauge, Registry } from '../../runtime/prometheus.js';

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
});
