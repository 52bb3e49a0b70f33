// The payload-manifest registry: payload FeatureGate manifests (one per feature set, cluster profile
// and major-version range) → featureSet → {enabled, disabled} for one operator version and profile,
// following cluster-config-operator's selection rules. Pure: the caller reads the files.
import { compareNames, featureSetName } from './feature-set.js';
import { gateNames, type EnabledDisabled } from './gate-lists.js';
import { decodeFeatureGate } from './decode.js';
import { configOperatorReading, MAJOR_VERSION_ANNOTATION } from './major-version-readings.js';
import { parsePayloadVersion } from './payload-version.js';

export const ClusterProfiles = {
  SelfManagedHighAvailability: 'self-managed-high-availability',
  IBMCloudManaged: 'ibm-cloud-managed',
} as const;
export type ClusterProfile = (typeof ClusterProfiles)[keyof typeof ClusterProfiles];
export const ALL_CLUSTER_PROFILES: readonly ClusterProfile[] = Object.values(ClusterProfiles);
/**
 * Other names of a profile: openshift/api names the manifests of ibm-cloud-managed — the profile HyperShift's
 * hosted control planes run — "Hypershift" (featureGate-…-Hypershift-….yaml).
 */
export const CLUSTER_PROFILE_ALIASES: Readonly<Record<string, ClusterProfile>> = { Hypershift: ClusterProfiles.IBMCloudManaged };

export const PROFILE_ANNOTATION_PREFIX = 'include.release.openshift.io/';
/** The value payload manifests carry so that only the config operator (not the CVO) applies them. */
export const CONFIG_OPERATOR_ONLY = 'false-except-for-the-config-operator';

export interface PayloadManifest {
  /** Where the manifest came from (a file path), for error messages. */
  source: string;
  object: unknown;
}

export interface FeatureSetRegistry {
  readonly operatorVersion: string;
  readonly clusterProfile: ClusterProfile;
  /** featureSet ("" for Default) → its gates for this version and profile. */
  readonly featureSets: ReadonlyMap<string, EnabledDisabled>;
  /** featureSet → the manifest it came from. */
  readonly sources: ReadonlyMap<string, string>;
  /** The manifests not for this profile and major version, each `<source>: <why>` (for errors that name them). */
  readonly skipped?: readonly string[];
}

/** "version V, profile P" and the files skipped on the way, for an error about what the payload lacks. */
export function searched(registry: FeatureSetRegistry): string {
  const skipped = registry.skipped ?? [];
  return `version ${registry.operatorVersion}, cluster profile ${registry.clusterProfile}` +
    (skipped.length ? `; skipped: ${skipped.join('; ')}` : '');
}

export class RegistryError extends Error {
  override name = 'RegistryError';
}

/**
 * The payload itself is wrong — not a FeatureGate, two manifests claiming one set, a status entry for another
 * version — as opposed to having nothing for this profile and major (a plain RegistryError).
 */
export class BrokenPayloadError extends RegistryError {
  override name = 'BrokenPayloadError';
}

export type Selection =
  | { selected: true }
  | { selected: false; reason: string };

/** Why a manifest is or is not for this profile and major version (upstream rules 4 and 5). */
export function selectManifest(annotations: Record<string, string>, profile: ClusterProfile, major: number): Selection {
  const profileKeys = Object.keys(annotations).filter((k) => k.startsWith(PROFILE_ANNOTATION_PREFIX));
  if (profileKeys.length > 0) {
    const value = annotations[PROFILE_ANNOTATION_PREFIX + profile];
    if (value !== CONFIG_OPERATOR_ONLY && value !== 'true') {
      return { selected: false, reason: `not for cluster profile ${profile} (has ${profileKeys.join(', ')})` };
    }
  }
  const majors = annotations[MAJOR_VERSION_ANNOTATION];
  if (majors !== undefined) {
    const reading = configOperatorReading(majors, major);
    if (!reading.applies) return { selected: false, reason: reading.why };
  }
  return { selected: true };
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  const sa = [...new Set(a)].sort(compareNames);
  const sb = [...new Set(b)].sort(compareNames);
  return sa.length === sb.length && sa.every((x, i) => x === sb[i]);
}

export interface RegistryOptions {
  operatorVersion: string;
  clusterProfile?: ClusterProfile;
}

export function buildRegistry(manifests: readonly PayloadManifest[], options: RegistryOptions): FeatureSetRegistry {
  const profile = options.clusterProfile ?? ClusterProfiles.SelfManagedHighAvailability;
  if (!ALL_CLUSTER_PROFILES.includes(profile)) {
    throw new RegistryError(`unknown cluster profile ${JSON.stringify(profile)}: expected one of ${ALL_CLUSTER_PROFILES.join(', ')}`);
  }
  const { major } = parsePayloadVersion(options.operatorVersion);
  const featureSets = new Map<string, EnabledDisabled>();
  const sources = new Map<string, string>();
  const skipped: string[] = [];
  for (const m of manifests) {
    let fg;
    try {
      fg = decodeFeatureGate(m.object);
    } catch (e) {
      throw new BrokenPayloadError(`${m.source}: not a FeatureGate manifest: ${(e as Error).message}`);
    }
    const sel = selectManifest(fg.metadata.annotations ?? {}, profile, major);
    if (!sel.selected) {
      skipped.push(`${m.source}: ${sel.reason}`);
      continue;
    }
    const entries = fg.status?.featureGates ?? [];
    const entry = entries.find((e) => e.version === options.operatorVersion) ?? entries.find((e) => e.version === '');
    if (!entry) {
      // Never an empty list of gates: every gate of the set would vanish from the cluster's status.
      throw new BrokenPayloadError(`${m.source}: status.featureGates has ${entries.length === 0 ? 'no entry'
        : `entries only for ${entries.map((e) => JSON.stringify(e.version)).join(', ')}`}; a payload manifest needs one for "" (every version) ` +
        `or for the payload version ${options.operatorVersion}`);
    }
    const gates = gateNames(entry);
    const set = fg.spec.featureSet ?? '';
    const prior = featureSets.get(set);
    if (prior) {
      // Even with the same gates: which one a loader keeps would be an accident of file order.
      throw new BrokenPayloadError(`feature set ${featureSetName(set)} is claimed twice for cluster profile ${profile} and major version ${major}: ` +
        `${sources.get(set)} and ${m.source}${sameNames(prior.enabled, gates.enabled) && sameNames(prior.disabled, gates.disabled) ? ' (same gates)' : ' (different gates)'}; keep one`);
    }
    featureSets.set(set, gates);
    sources.set(set, m.source);
  }
  if (featureSets.size === 0) {
    throw new RegistryError(`featuregates not located: none of ${manifests.length} payload manifests matches cluster profile ` +
      `${profile} and major version ${major} (operator version ${options.operatorVersion})` +
      (skipped.length ? `:\n  ${skipped.join('\n  ')}` : ''));
  }
  return { operatorVersion: options.operatorVersion, clusterProfile: profile, featureSets, sources, skipped };
}

/** Every gate name any loaded feature set knows, byte-sorted. */
export function knownGates(registry: FeatureSetRegistry): string[] {
  const all = new Set<string>();
  for (const s of registry.featureSets.values()) {
    for (const n of s.enabled) all.add(n);
    for (const n of s.disabled) all.add(n);
  }
  return [...all].sort(compareNames);
}
