// Which payload manifests the cluster-version operator applies, as library-go's manifest filter decides it
// (pkg/manifest, used by the CVO since 2025-12), for one cluster: its profile, its feature set, the gates
// enabled in the status entry of the CVO's payload version, and that version's major. Beyond upstream, the
// answer is three-way — apply, skip (a filter that does not match), reject (an annotation the filter refuses
// as invalid) — with library-go's own wording for why.
import { featureSetName } from './feature-set.js';
import { MAJOR_VERSION_ANNOTATION, manifestFilterReading } from './major-version-readings.js';

export const FEATURE_GATE_ANNOTATION = 'release.openshift.io/feature-gate';
export const FEATURE_SET_ANNOTATION = 'release.openshift.io/feature-set';
/** The values the feature-set annotation may hold (openshift/api's fixed sets, "Default" for "", and CustomNoUpgrade). */
export const KNOWN_FEATURE_SET_VALUES = ['CustomNoUpgrade', 'Default', 'DevPreviewNoUpgrade', 'OKD', 'TechPreviewNoUpgrade'];
/** The kinds the major-version annotation is allowed on. */
const MAJOR_VERSION_KINDS = ['FeatureGate', 'CustomResourceDefinition'];

export interface ManifestCluster {
  profile: string;
  /** spec.featureSet ("" for Default). */
  featureSet: string;
  /** Enabled gates of the status entry for the payload version (empty when there is none, as the CVO reads it). */
  enabledGates: ReadonlySet<string>;
  major: number;
}

export interface ManifestObject { kind?: string; metadata?: { name?: string; namespace?: string; annotations?: Record<string, string> } }

export type ManifestDecision =
  | { decision: 'apply'; gates: string[] }
  | { decision: 'skip' | 'reject'; reason: string; gates: string[] };

/** `Kind/[namespace/]name` of a manifest, for reports. */
export function manifestObjectName(m: ManifestObject): string {
  return `${m.kind ?? '?'}/${m.metadata?.namespace ? `${m.metadata.namespace}/` : ''}${m.metadata?.name ?? '?'}`;
}

/** The gate names a manifest's feature-gate annotation names, each with `-` when it must be disabled. */
export function featureGateRequirements(annotations: Record<string, string>): string[] {
  return (annotations[FEATURE_GATE_ANNOTATION] ?? '').split(',').map((r) => r.trim()).filter(Boolean);
}

export function includeManifest(m: ManifestObject, c: ManifestCluster): ManifestDecision {
  const annotations = m.metadata?.annotations;
  if (!annotations) return { decision: 'skip', reason: 'no annotations', gates: [] };
  const gates = featureGateRequirements(annotations);
  const skip = (reason: string): ManifestDecision => ({ decision: 'skip', reason, gates });
  const reject = (reason: string): ManifestDecision => ({ decision: 'reject', reason, gates });
  const setValue = annotations[FEATURE_SET_ANNOTATION];
  if (setValue !== undefined && annotations[FEATURE_GATE_ANNOTATION] !== undefined) {
    return reject('both feature set and feature gate annotations are present: manifests may specify either a feature set or a feature gate, but not both');
  }
  if (setValue !== undefined) {
    const listed = setValue.split(',');
    const unknown = listed.find((s) => !KNOWN_FEATURE_SET_VALUES.includes(s));
    if (unknown !== undefined) {
      return reject(`unrecognized value ${JSON.stringify(unknown)} in ${FEATURE_SET_ANNOTATION}=${setValue}; known values are: ${KNOWN_FEATURE_SET_VALUES.join(',')}`);
    }
    const wanted = featureSetName(c.featureSet);
    if (!listed.includes(wanted)) return skip(`${JSON.stringify(wanted)} is required, and ${FEATURE_SET_ANNOTATION}=${[...new Set(listed)].sort().join(',')}`);
  }
  for (const req of gates) {
    if (req.startsWith('-')) {
      if (c.enabledGates.has(req.slice(1))) return skip(`feature gate ${req.slice(1)} is enabled but manifest requires it to be disabled`);
    } else if (!c.enabledGates.has(req)) {
      return skip(`feature gate ${req} is required but not enabled`);
    }
  }
  const majors = annotations[MAJOR_VERSION_ANNOTATION];
  if (majors !== undefined) {
    if (!MAJOR_VERSION_KINDS.includes(m.kind ?? '')) return reject(`${MAJOR_VERSION_ANNOTATION} is only allowed on ${MAJOR_VERSION_KINDS.join(' and ')} objects, not ${m.kind}`);
    const reading = manifestFilterReading(majors, c.major);
    if ('error' in reading) return reject(reading.error);
    if (!reading.applies) return skip(reading.why === `excludes ${c.major}` ? `major version ${c.major} is excluded by ${MAJOR_VERSION_ANNOTATION}=${majors}` : reading.why);
  }
  const profileKey = `include.release.openshift.io/${c.profile}`;
  const profile = annotations[profileKey];
  if (profile === undefined) return skip(`${profileKey} unset`);
  if (profile !== 'true') return skip(`unrecognized value ${profileKey}=${profile}`);
  return { decision: 'apply', gates };
}
