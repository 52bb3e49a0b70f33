// The three config.openshift.io/v1 resources this project uses (named …Resource so they never clash with
// the SDK's FeatureGates class).
import {
  GROUP, VERSION, decodeClusterOperator, decodeClusterVersion, decodeFeatureGate, type ClusterOperator, type ClusterVersion, type FeatureGate,
} from '../api-types/index.js';
import type { ResourceDescriptor } from './resource-client.js';

const G = { group: GROUP, version: VERSION };
export const FeatureGateResource: ResourceDescriptor<FeatureGate> = { ...G, plural: 'featuregates', decode: decodeFeatureGate };
export const ClusterVersionResource: ResourceDescriptor<ClusterVersion> = { ...G, plural: 'clusterversions', decode: decodeClusterVersion };
export const ClusterOperatorResource: ResourceDescriptor<ClusterOperator> = { ...G, plural: 'clusteroperators', decode: decodeClusterOperator };
