// Feeding fake versions to a control plane, for tests of code that reads FeatureGate/cluster and
// ClusterVersion/version: no cluster-version or config operator needed. Objects are valid against both
// this project's CRDs and openshift/api's.
import type { ClusterAccess } from '../runtime/index.js';
import type { VersionGates } from '../api-types/index.js';
import {
  CLUSTER_VERSION_NAME,
  FEATURE_GATE_NAME,
  emptyFeatureGate,
  rfc3339,
  toFeatureGateDetails,
  type ClusterVersion,
  type FeatureGate,
  type UpdateHistory,
  API_VERSION,
} from '../api-types/index.js';
import { ClusterVersionResource, FeatureGateResource, ResourceClient, retryOnConflict } from '../runtime/index.js';

export type HistoryInput = string | { version: string; state?: 'Completed' | 'Partial'; image?: string; startedTime?: string; completionTime?: string | null };

function imageFor(version: string): string {
  return `quay.io/openshift-release-dev/ocp-release:${version || 'unknown'}`;
}

export function historyEntry(h: HistoryInput, now = new Date()): UpdateHistory {
  const e = typeof h === 'string' ? { version: h } : h;
  const state = e.state ?? 'Completed';
  const started = e.startedTime ?? rfc3339(now);
  return {
    state, startedTime: started,
    completionTime: e.completionTime !== undefined ? e.completionTime : state === 'Completed' ? started : null,
    version: e.version, image: e.image ?? imageFor(e.version), verified: false,
  };
}

function emptyClusterVersion(): ClusterVersion {
  return {
    apiVersion: API_VERSION, kind: 'ClusterVersion', metadata: { name: CLUSTER_VERSION_NAME },
    spec: { clusterID: '00000000-0000-4000-8000-000000000000' },
  };
}

/**
 * Creates or updates ClusterVersion/version with this status: `history` newest first (strings mean
 * Completed entries), `desired` defaulting to the newest history version. Extra status fields (say,
 * conditions) can be passed to simulate heartbeats.
 */
export async function setClusterVersion(
  kc: ClusterAccess,
  input: { desired?: string; history: HistoryInput[]; extraStatus?: Record<string, unknown> },
): Promise<ClusterVersion> {
  const client = new ResourceClient(kc, ClusterVersionResource);
  const history = input.history.map((h) => historyEntry(h));
  const desired = input.desired ?? history[0]?.version ?? '';
  return retryOnConflict(async () => {
    const cv = await client.getOrCreate(CLUSTER_VERSION_NAME, emptyClusterVersion);
    return client.replaceStatus({
      ...cv,
      status: {
        availableUpdates: null,
        observedGeneration: 1,
        versionHash: 'fake',
        ...input.extraStatus,
        desired: { version: desired, image: history[0]?.image ?? imageFor(desired) },
        history,
      },
    });
  });
}

export interface UpgradeInProgress {
  /** Marks the new head Completed, as the cluster-version operator does when the upgrade finishes. */
  complete(): Promise<ClusterVersion>;
}

/** Starts an upgrade the way the cluster-version operator records it: close the old head, prepend a Partial entry. */
export async function upgrade(kc: ClusterAccess, toVersion: string): Promise<UpgradeInProgress> {
  const client = new ResourceClient(kc, ClusterVersionResource);
  const now = rfc3339(new Date());
  await retryOnConflict(async () => {
    const cv = await client.getOrCreate(CLUSTER_VERSION_NAME, emptyClusterVersion);
    const old = (cv.status?.history ?? []).map((h, i) => (i === 0 && h.completionTime === null ? { ...h, completionTime: now } : h));
    const head = historyEntry({ version: toVersion, state: 'Partial' });
    return client.replaceStatus({
      ...cv,
      status: { availableUpdates: null, observedGeneration: 1, versionHash: 'fake', ...(cv.status ?? {}), desired: { version: toVersion, image: head.image }, history: [head, ...old] },
    });
  });
  return { complete: () => completeHead(kc, toVersion) };
}

/** Marks the history head Completed if it is `version`, as the cluster-version operator does when an upgrade finishes. */
export async function completeHead(kc: ClusterAccess, version: string): Promise<ClusterVersion> {
  const client = new ResourceClient(kc, ClusterVersionResource);
  return retryOnConflict(async () => {
    const cv = await client.get(CLUSTER_VERSION_NAME);
    const history = (cv.status?.history ?? []).map((h, i) =>
      (i === 0 && h.version === version ? { ...h, state: 'Completed' as const, completionTime: rfc3339(new Date()) } : h));
    return client.replaceStatus({ ...cv, status: { ...(cv.status ?? { history: [] }), history } });
  });
}

/**
 * Creates FeatureGate/cluster if missing (with `spec`) and replaces its status entries, one per version:
 * `{ version: '4.22.1', enabled: ['A'], disabled: ['B'] }` — names, as every helper and static accessor takes them.
 */
export async function setFeatureGateStatus(kc: ClusterAccess, entries: readonly VersionGates[], spec: FeatureGate['spec'] = {}): Promise<FeatureGate> {
  const client = new ResourceClient(kc, FeatureGateResource);
  return retryOnConflict(async () => {
    const fg = await client.getOrCreate(FEATURE_GATE_NAME, () => emptyFeatureGate(spec));
    return client.replaceStatus({ ...fg, status: { ...(fg.status ?? {}), featureGates: entries.map(toFeatureGateDetails) } });
  });
}

/** Creates or replaces FeatureGate/cluster's spec (keeping its status). */
export async function setFeatureGateSpec(kc: ClusterAccess, spec: FeatureGate['spec']): Promise<FeatureGate> {
  const client = new ResourceClient(kc, FeatureGateResource);
  return retryOnConflict(async () => {
    const fg = await client.getOrCreate(FEATURE_GATE_NAME, () => emptyFeatureGate(spec));
    return client.replace({ ...fg, spec });
  });
}
