// Metric helpers: get-or-create on a caller-supplied prom-client Registry, so several components (and
// several SDK accessors) can share one registry without double registration. The metrics are the
// label-bound families of metric-families.ts (cheap on the hot path; prom-client formats them).
import type { Registry } from 'prom-client';
import { CounterFamily, GaugeFamily, HistogramFamily } from './metric-families.js';
import { Gauge } from './prometheus.js';

function getOrCreate<T>(registry: Registry, name: string, kind: abstract new (...args: never[]) => T, make: () => T): T {
  const known = registry.getSingleMetric(name) as unknown;
  if (known === undefined) return make();
  if (!(known instanceof kind)) throw new Error(`metric ${name} is already registered as another kind of metric`);
  return known;
}

export function counter<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[]): CounterFamily<L> {
  return getOrCreate(registry, name, CounterFamily<L>, () => new CounterFamily(name, help, labelNames, registry));
}

export function gauge<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[]): GaugeFamily<L> {
  return getOrCreate(registry, name, GaugeFamily<L>, () => new GaugeFamily(name, help, labelNames, registry));
}

/**
 * A gauge whose series are computed from `samples()` at each scrape and only then (no work per change, nothing
 * while nobody scrapes); registered once per registry.
 */
export function collectedGauge<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[],
  samples: () => Iterable<readonly [Record<L, string>, number]>): void {
  if (registry.getSingleMetric(name)) return;
  new Gauge<L>({
    name, help, labelNames, registers: [registry],
    collect() {
      this.reset();
      for (const [labels, value] of samples()) this.set(labels, value);
    },
  });
}

export function histogram<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[],
  buckets: readonly number[]): HistogramFamily<L> {
  return getOrCreate(registry, name, HistogramFamily<L>, () => new HistogramFamily(name, help, labelNames, buckets, registry));
}

/** rest_client_requests_total{method, resource, code}: every API request this process makes. */
export function requestCounter(registry: Registry) {
  return counter(registry, 'rest_client_requests_total', 'Number of HTTP requests to the Kubernetes API, by method, resource and status code.',
    ['method', 'resource', 'code'] as const);
}

/** Runs one API call and counts it (code "<error>" when no HTTP status came back). */
export async function countedRequest<T>(
  registry: Registry | undefined,
  method: string,
  resource: string,
  call: () => Promise<T>,
): Promise<T> {
  try {
    const out = await call();
    if (registry) requestCounter(registry).inc({ method, resource, code: '200' });
    return out;
  } catch (e) {
    if (registry) {
      const code = e as { code?: unknown; statusCode?: unknown };
      const c = typeof code.code === 'number' ? code.code : typeof code.statusCode === 'number' ? code.statusCode : '<error>';
      requestCounter(registry).inc({ method, resource, code: String(c) });
    }
    throw e;
  }
}

