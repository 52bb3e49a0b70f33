// The desired FeatureGate status: the current version's entry first, then the stored entries (in their
// stored order, unchanged, never recomputed) whose version is still in ClusterVersion history.
import type { FeatureGateAttributes, FeatureGateDetails, UpdateHistory } from './wire.js';

export interface DesiredStatusInput {
  /** The freshly resolved entry for the operator's own version. */
  current: FeatureGateDetails;
  /** status.featureGates as stored (absent or null means none). */
  existing: readonly FeatureGateDetails[] | null | undefined;
  /** ClusterVersion status.history, any state. */
  history: readonly Pick<UpdateHistory, 'version'>[] | null | undefined;
}

export function desiredFeatureGates(input: DesiredStatusInput): FeatureGateDetails[] {
  const known = new Set<string>([input.current.version, ...(input.history ?? []).map((h) => h.version)]);
  const seen = new Set<string>([input.current.version]);
  const out: FeatureGateDetails[] = [input.current];
  for (const entry of input.existing ?? []) {
    if (seen.has(entry.version) || !known.has(entry.version)) continue;
    seen.add(entry.version);
    out.push(entry);
  }
  return out;
}

function attrsEqual(
  a: readonly FeatureGateAttributes[] | null | undefined,
  b: readonly FeatureGateAttributes[] | null | undefined,
): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((g, i) => g.name === y[i]?.name);
}

export function featureGateDetailsEqual(a: FeatureGateDetails, b: FeatureGateDetails): boolean {
  return a.version === b.version && attrsEqual(a.enabled, b.enabled) && attrsEqual(a.disabled, b.disabled);
}

/** True when no write is needed: same entries in the same order; absent, null and [] lists are equal. */
export function featureGatesEqual(a: readonly FeatureGateDetails[] | null | undefined,
  b: readonly FeatureGateDetails[] | null | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((e, i) => featureGateDetailsEqual(e, y[i] as FeatureGateDetails));
}

/**
 * The version a cluster runs or is moving to: ClusterVersion status.desired.version, else its newest history
 * entry (the rule every component uses to find its own FeatureGate status entry).
 */
export function clusterDesiredVersion(cv: { status?: { desired?: { version?: string } | null; history?: readonly Pick<UpdateHistory, 'version'>[] | null } | null } | undefined): string | undefined {
  return cv?.status?.desired?.version || cv?.status?.history?.[0]?.version || undefined;
}
