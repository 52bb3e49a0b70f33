// Per-gate metrics, computed on scrape (no work per change, nothing while nobody scrapes):
//  - featuregates_feature_enabled{name, version}: 1/0 for every gate of every version in FeatureGate/cluster
//    status, as the operator sees it (cardinality: gates × versions in status, ~130 × ≤ a few);
//  - kubernetes_feature_enabled{name, stage}: what Kubernetes components export for their own gates, for a
//    component's current gates. The OpenShift FeatureGate API carries no maturity, so `stage` is "" (the
//    label is kept so dashboards built for Kubernetes components work). Cardinality: the gates of one version.
import type { Registry } from 'prom-client';
import type { GateLists } from '../api-types/index.js';
import { Gauge } from './prometheus.js';

/** The operator's view: `entries()` is read at every scrape (the FeatureGate cache's status entries). */
export function registerStatusFeatureMetrics(registry: Registry, entries: () => readonly { version: string; enabled: readonly { name: string }[]; disabled: readonly { name: string }[] }[]): void {
  if (registry.getSingleMetric('featuregates_feature_enabled')) return;
  new Gauge({
    name: 'featuregates_feature_enabled',
    help: 'Whether a feature gate is enabled (1) or disabled (0) for a version in FeatureGate/cluster status.',
    labelNames: ['name', 'version'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const e of entries()) {
        for (const g of e.disabled) this.set({ name: g.name, version: e.version }, 0);
        for (const g of e.enabled) this.set({ name: g.name, version: e.version }, 1);
      }
    },
  });
}

/** A component's view: `current()` is read at every scrape; nothing is exported before the first observation. */
export function registerKubernetesFeatureMetrics(registry: Registry, current: () => GateLists | undefined): void {
  if (registry.getSingleMetric('kubernetes_feature_enabled')) return;
  new Gauge({
    name: 'kubernetes_feature_enabled',
    help: 'This metric records the data about the stage and enablement of a k8s feature.',
    labelNames: ['name', 'stage'] as const,
    registers: [registry],
    collect() {
      this.reset();
      const gates = current();
      if (!gates) return;
      for (const n of gates.disabledNames) this.set({ name: n, stage: '' }, 0);
      for (const n of gates.enabledNames) this.set({ name: n, stage: '' }, 1);
    },
  });
}
