// prom-client's Registry and Gauge, loaded file by file (counters and histograms are runtime/metrics/metric-families.ts).
// Its index also loads the Pushgateway (http, https, zlib) and the default process metrics (perf_hooks, GC
// observers): RSS and start time a process serving no metrics never uses (docs/benchmarks.md § "Where start-up,
// memory and CPU went"). The default metrics load on demand, when /metrics is served. prom-client is pinned (package.json);
// test/unit/prometheus.test.ts checks that these are the very classes its index exports, so an upgrade that
// moves them fails there.
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';

const load = createRequire(import.meta.url);

export const Registry = load('prom-client/lib/registry') as typeof PromClient.Registry;
export const Gauge = load('prom-client/lib/gauge') as typeof PromClient.Gauge;
export type Registry = PromClient.Registry;
export type Gauge<L extends string = string> = PromClient.Gauge<L>;

/**
 * The event-loop lag monitor's resolution: it wakes the process this often. prom-client's 10 ms cost an idle process
 * ~0.4 s of CPU a minute; at 100 ms a stall is still measured (the next wake-up comes late by it), for ~0.05 s.
 */
export const EVENT_LOOP_MONITORING_MS = 100;

/** prom-client's process and Node.js runtime metrics, registered on `registry`. */
export function collectDefaultMetrics(registry: PromClient.Registry): void {
  (load('prom-client/lib/defaultMetrics') as typeof PromClient.collectDefaultMetrics)({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_MONITORING_MS });
}
