// registerFeatureGateMetrics: a component exports the gates it runs with as Kubernetes components do,
// `kubernetes_feature_enabled{name, stage}` (1 enabled, 0 disabled), computed on scrape from the accessor.
import type { Registry } from 'prom-client';
import { registerKubernetesFeatureMetrics } from '../runtime/metrics/feature-metrics.js';
import type { FeatureGateAccess } from './feature-gate-access.js';

/**
 * Registers `kubernetes_feature_enabled{name, stage}` on `registry`: one series per gate of the component's
 * version (~130 on OpenShift), nothing before the accessor's first observation. `stage` is "" — the
 * FeatureGate API does not say a gate's maturity. Registering twice on one registry is a no-op.
 */
export function registerFeatureGateMetrics(registry: Registry, access: Pick<FeatureGateAccess, 'current' | 'isReady'>): void {
  registerKubernetesFeatureMetrics(registry, () => (access.isReady() ? access.current() : undefined));
}
