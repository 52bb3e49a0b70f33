// Per-gate metrics, computed on scrape (no work per change, nothing while nobody scrapes):
//  - featuregates_feature_enabled{name, version}: 1/0 for every gate of every version in FeatureGate/cluster
//    status, as the operator sees it (cardinality: gates × versions in status, ~130 × ≤ a few);
//  - kubernetes_feature_enabled{name, stage}: what Kubernetes components export for their own gates, for a
//    component's current gates. The OpenShift FeatureGate API carries no maturity, so `stage` is "" (the
//    label is kept so dashboards built for Kubernetes components work). Cardinality: the gates of one version.
import type { Registry } from 'prom-client';
import type { FeatureGateDetails, GateLists } from '../../api-types/index.js';
import { gateNames } from '../../api-types/gate-lists.js';
import { collectedGauge } from './metrics.js';

/** Gate lists and the labels (besides `name`) their series carry. */
interface LabelledGates { labels: Record<string, string>; enabled: readonly string[]; disabled: readonly string[] }

/** A gauge of gate states, registered once per registry and filled from `lists()` at each scrape. */
function registerGateGauge(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly string[],
  lists: () => LabelledGates[],
): void {
  collectedGauge(registry, name, help, labelNames, function* () {
    for (const l of lists()) {
      // Disabled first: a name in both lists reads enabled, as everywhere else. `name` first: the label order on the wire.
      for (const n of l.disabled) yield [{ name: n, ...l.labels }, 0] as const;
      for (const n of l.enabled) yield [{ name: n, ...l.labels }, 1] as const;
    }
  });
}

/** The operator's view: `entries()` is read at every scrape (the FeatureGate cache's status entries). */
export function registerStatusFeatureMetrics(registry: Registry, entries: () => readonly FeatureGateDetails[]): void {
  registerGateGauge(registry, 'featuregates_feature_enabled',
    'Whether a feature gate is enabled (1) or disabled (0) for a version in FeatureGate/cluster status.', ['name', 'version'],
    () => entries().map((e) => ({ labels: { version: e.version }, ...gateNames(e) })));
}

/** A component's view: `current()` is read at every scrape; nothing is exported before the first observation. */
export function registerKubernetesFeatureMetrics(registry: Registry, current: () => GateLists | undefined): void {
  registerGateGauge(registry, 'kubernetes_feature_enabled', 'This metric records the data about the stage and enablement of a k8s feature.',
    ['name', 'stage'], () => {
      const gates = current();
      return gates ? [{ labels: { stage: '' }, enabled: gates.enabledNames, disabled: gates.disabledNames }] : [];
    });
}
