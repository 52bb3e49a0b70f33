// The three config.openshift.io/v1 resources this project uses.
import {
  decodeClusterOperator, decodeClusterVersion, decodeFeatureGate, type ClusterOperator, type ClusterVersion, type FeatureGate,
} from '../api-types/index.js';
import type { ResourceDescriptor } from './resource-client.js';

const G = { group: 'config.openshift.io', version: 'v1' };
export const FeatureGates: ResourceDescriptor<FeatureGate> = { ...G, plural: 'featuregates', decode: decodeFeatureGate };
export const ClusterVersions: ResourceDescriptor<ClusterVersion> = { ...G, plural: 'clusterversions', decode: decodeClusterVersion };
export const ClusterOperators: ResourceDescriptor<ClusterOperator> = { ...G, plural: 'clusteroperators', decode: decodeClusterOperator };
