// Object builders for tests, valid against both our CRDs and openshift/api's.
import type { ClusterVersion, FeatureGate, FeatureGateDetails, UpdateHistory } from '../../api-types/index.js';

export function featureGate(name: string, spec: FeatureGate['spec'] = {}): FeatureGate {
  return { apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', metadata: { name }, spec };
}

export function historyEntry(version: string, state: 'Completed' | 'Partial' = 'Completed', i = 0): UpdateHistory {
  const started = new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    state, startedTime: started, completionTime: state === 'Completed' ? started : null, version,
    image: `quay.io/openshift-release-dev/ocp-release@sha256:${'0'.repeat(56)}${String(i).padStart(8, '0')}`,
    verified: false,
  };
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
