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
