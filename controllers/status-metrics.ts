// What the alerts need to know about the operator's outputs, computed from its caches at each scrape (no work per
// change, nothing while nobody scrapes), and exported only once the object is in the cache — a replica whose
// caches have not synced says nothing rather than "missing":
//  - featuregates_status_has_operator_version{version}: 1 when FeatureGate/cluster status holds the entry of the
//    operator's own version (the one the cluster-version operator rolled out), 0 while it does not;
//  - featuregates_cluster_operator_condition{name, condition, reason}: 1 while that condition of the operator's
//    ClusterOperator is True, 0 otherwise (the shape of the cluster-version operator's cluster_operator_conditions);
//  - featuregates_feature_set_info{feature_set}: 1 for the feature set FeatureGate/cluster asks for (Default when
//    empty), for dashboards;
//  - cluster_feature_set{name}: OpenShift's own telemetry series of the feature set (api-types' clusterFeatureSetSample:
//    name as spec.featureSet says, "" for Default; 1 for Default, 0 otherwise), as the API server operator exports it;
//  - featuregates_object_size_limit_bytes: the request limit FeatureGate/cluster is checked against before a write,
//    beside featuregates_object_size_bytes.
import { FEATURE_GATE_NAME, clusterFeatureSetSample, featureSetName, type ClusterOperator, type FeatureGate } from '../api-types/index.js';
import { collectedGauge, gauge, type Registry } from '../runtime/index.js';

export interface StatusMetricsSources {
  operatorVersion: string;
  clusterOperatorName: string;
  sizeLimitBytes: number;
  featureGate: () => FeatureGate | undefined;
  clusterOperator: () => ClusterOperator | undefined;
}

export function registerStatusMetrics(registry: Registry, s: StatusMetricsSources): void {
  collectedGauge(registry, 'featuregates_status_has_operator_version',
    'Whether FeatureGate/cluster status holds the entry of this operator\'s version (1) or not yet (0).', ['version'], () => {
      const fg = s.featureGate();
      return fg ? [[{ version: s.operatorVersion }, fg.status?.featureGates?.some((e) => e.version === s.operatorVersion) ? 1 : 0]] : [];
    });
  collectedGauge(registry, 'featuregates_feature_set_info', 'The feature set FeatureGate/cluster asks for (1).', ['feature_set'], () => {
    const fg = s.featureGate();
    return fg ? [[{ feature_set: featureSetName(fg.spec.featureSet ?? '') }, 1]] : [];
  });
  collectedGauge(registry, 'cluster_feature_set',
    'The feature set the cluster is configured with: name is the featureSet field of FeatureGate/cluster ("" for Default); 1 for Default, 0 otherwise.',
    ['name'], () => {
      const fg = s.featureGate();
      if (!fg) return [];
      const { name, value } = clusterFeatureSetSample(fg.spec.featureSet ?? '');
      return [[{ name }, value]];
    });
  collectedGauge(registry, 'featuregates_cluster_operator_condition',
    'Whether a condition of the operator\'s ClusterOperator is True (1) or not (0), with its reason.', ['name', 'condition', 'reason'],
    () => (s.clusterOperator()?.status?.conditions ?? []).map((c) =>
      [{ name: s.clusterOperatorName, condition: c.type, reason: c.reason ?? '' }, c.status === 'True' ? 1 : 0] as const));
  gauge(registry, 'featuregates_object_size_limit_bytes', `The request limit FeatureGate/${FEATURE_GATE_NAME} is checked against before a status write.`, [])
    .set(s.sizeLimitBytes);
}
