// Feature sets and gate names of config.openshift.io/v1 FeatureGate.

/** The feature-set values `spec.featureSet` may take. Default is the empty string. */
export const FeatureSets = {
  Default: '',
  TechPreviewNoUpgrade: 'TechPreviewNoUpgrade',
  DevPreviewNoUpgrade: 'DevPreviewNoUpgrade',
  CustomNoUpgrade: 'CustomNoUpgrade',
  OKD: 'OKD',
} as const;

export type FeatureSet = (typeof FeatureSets)[keyof typeof FeatureSets];

/** The display name of a feature set: "Default" for the empty string. */
export function featureSetName(set: string): string {
  return set === '' ? 'Default' : set;
}

/**
 * OpenShift's telemetry series of a cluster's feature set, `cluster_feature_set{name}` (cluster-kube-apiserver-
 * operator's config metrics, kept by HyperShift's hosted-cluster-config-operator for each hosted cluster): `name` is
 * `spec.featureSet` as written ("" for Default), and the value is 1 for Default, 0 for any other set.
 */
export function clusterFeatureSetSample(featureSet: string): { name: string; value: 0 | 1 } {
  return { name: featureSet, value: featureSet === FeatureSets.Default ? 1 : 0 };
}

/** TechPreviewNoUpgrade or DevPreviewNoUpgrade: a set whose gates come from the payload's manifests. */
export function isPresetFeatureSet(set: string | undefined): boolean {
  return set === FeatureSets.TechPreviewNoUpgrade || set === FeatureSets.DevPreviewNoUpgrade;
}

/** Byte-wise (UTF-16 code unit) comparison, as Go's strings.Compare for ASCII names; never locale order. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The version marker meaning "whatever ClusterVersion says" (library-go's unsubstituted payload version). */
export const MISSING_VERSION_MARKER = '0.0.1-snapshot';
