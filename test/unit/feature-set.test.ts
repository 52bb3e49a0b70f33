// OpenShift's telemetry sample of a feature set (cluster_feature_set{name}): the value semantics of
// cluster-kube-apiserver-operator's config metrics, which HyperShift's hosted-cluster-config-operator keeps.
import { describe, expect, it } from '@jest/globals';
import { FeatureSets, clusterFeatureSetSample } from '../../api-types/index.js';

describe('clusterFeatureSetSample', () => {
  it('names the set as spec.featureSet writes it and is 1 for Default alone', () => {
    expect(Object.values(FeatureSets).map(clusterFeatureSetSample)).toEqual([
      { name: '', value: 1 },
      { name: 'TechPreviewNoUpgrade', value: 0 },
      { name: 'DevPreviewNoUpgrade', value: 0 },
      { name: 'CustomNoUpgrade', value: 0 },
      { name: 'OKD', value: 0 },
    ]);
  });
});
