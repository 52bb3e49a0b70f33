// Metric helpers: get-or-create on a caller-supplied prom-client Registry, so several components (and
// several SDK accessors) can share one registry without double registration.
import type { Metric } from 'prom-client';
import { Counter, Gauge, Histogram, type Registry } from './prometheus.js';

function getOrCreate<T extends Metric>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

export function counter<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[]): Counter<L> {
  return getOrCreate(registry, name, () => new Counter({ name, help, labelNames, registers: [registry] }));
}

export function gauge<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[]): Gauge<L> {
  return getOrCreate(registry, name, () => new Gauge({ name, help, labelNames, registers: [registry] }));
}

export function histogram<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[],
  buckets: number[]): Histogram<L> {
  return getOrCreate(registry, name, () => new Histogram({ name, help, labelNames, buckets, registers: [registry] }));
}

/** rest_client_requests_total{method, resource, code}: every API request this process makes. */
export function requestCounter(registry: Registry) {
  return counter(registry, 'rest_client_requests_total', 'Number of HTTP requests to the Kubernetes API, by method, resource and status code.',
    ['method', 'resource', 'code'] as const);
}

/** Runs one API call and counts it (code "<error>" when no HTTP status came back). */
export async function countedRequest<T>(registry: Registry | undefined, method: string, resource: string, call: () => Promise<T>): Promise<T> {
  try {
    const out = await call();
    if (registry) requestCounter(registry).inc({ method, resource, code: '200' });
    return out;
  } catch (e) {
    if (registry) {
      const code = (e as { code?: unknown; statusCode?: unknown });
      const c = typeof code.code === 'number' ? code.code : typeof code.statusCode === 'number' ? code.statusCode : '<error>';
      requestCounter(registry).inc({ method, resource, code: String(c) });
    }
    throw e;
  }
}

