// Object builders for tests, valid against both our CRDs and openshift/api's.
import { rfc3339, type ClusterVersion, type FeatureGate, type FeatureGateDetails, type UpdateHistory } from '../../api-types/index.js';
import { historyEntry as sdkHistoryEntry } from '../../control-plane/fake-versions.js';

export function featureGate(name: string, spec: FeatureGate['spec'] = {}): FeatureGate {
  return { apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', metadata: { name }, spec };
}

/** A history entry with a distinct start time and image per index `i` (built on the SDK's historyEntry). */
export function historyEntry(version: string, state: 'Completed' | 'Partial' = 'Completed', i = 0): UpdateHistory {
  return sdkHistoryEntry({
    version, state, startedTime: rfc3339(new Date(Date.UTC(2026, 0, 1) + i * 3_600_000)),
    image: `quay.io/openshift-release-dev/ocp-release@sha256:${'0'.repeat(56)}${String(i).padStart(8, '0')}`,
  });
}

export function clusterVersion(name: string, history: UpdateHistory[], desired = history[0]?.version ?? ''): ClusterVersion {
  return {
    apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion', metadata: { name },
    spec: { clusterID: '00000000-0000-4000-8000-000000000000' },
    status: {
      desired: { version: desired, image: history[0]?.image ?? 'quay.io/example/release:latest' },
      history, availableUpdates: null, observedGeneration: 1, versionHash: 'abc',
    },
  };
}

export function details(version: string, enabled: string[], disabled: string[]): FeatureGateDetails {
  return { version, enabled: enabled.map((name) => ({ name })), disabled: disabled.map((name) => ({ name })) };
}

let counter = 0;
export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}
