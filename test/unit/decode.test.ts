import { describe, expect, it } from '@jest/globals';
import { decodeClusterOperator, decodeClusterVersion, decodeFeatureGate, parsePayloadVersion, serializedSizeBytes } from '../../api-types/index.js';
import { clusterVersion, historyEntry } from '../support/objects.js';

describe('decoders name the field path', () => {
  it.each([
    [() => decodeClusterVersion({ ...clusterVersion('v', [historyEntry('1'), historyEntry('2'), historyEntry('3'), { ...historyEntry('4'), version: 4 as unknown as string }]) }),
      'status.history[3].version: expected string, got number'],
    [() => decodeFeatureGate({ kind: 'FeatureGate', spec: {}, status: { featureGates: [{ version: 'v', enabled: [{ name: 1 }] }] } }),
      'status.featureGates[0].enabled[0].name: expected string, got number'],
    [() => decodeFeatureGate({ kind: 'FeatureGate', spec: { customNoUpgrade: { enabled: 'A' } } }),
      'spec.customNoUpgrade.enabled: expected array, got string'],
    [() => decodeFeatureGate({ kind: 'ClusterVersion' }), 'kind: expected "FeatureGate", got "ClusterVersion"'],
    [() => decodeFeatureGate([]), '<root>: expected object, got array'],
    [() => decodeClusterOperator({ kind: 'ClusterOperator', status: { conditions: [{ type: 'A', status: 'Maybe', lastTransitionTime: 't' }] } }),
      'status.conditions[0].status: expected one of "True", "False", "Unknown", got "Maybe"'],
  ])('%#', (fn, message) => {
    expect(fn).toThrow(message);
  });

  it('reads null lists as empty and keeps unknown fields', () => {
    const fg = decodeFeatureGate({ kind: 'FeatureGate', metadata: { name: 'cluster' }, spec: {}, extra: 1, status: { featureGates: [{ version: '', enabled: null, disabled: null }] } });
    expect(fg.status?.featureGates[0]).toEqual({ version: '', enabled: [], disabled: [] });
    expect((fg as unknown as { extra: number }).extra).toBe(1);
    const cv = decodeClusterVersion(clusterVersion('version', [historyEntry('4.21.0', 'Partial')]));
    expect(cv.status?.history[0]?.completionTime).toBeNull();
    expect(cv.status?.desired?.version).toBe('4.21.0');
  });
});

describe('payload versions', () => {
  it.each([['4.21.3', 4], ['v5.0.0-rc.1', 5], ['4.22', 4], [' 4 ', 4], ['0.0.1-snapshot', 0]])('%s has major %d', (v, major) => {
    expect(parsePayloadVersion(v).major).toBe(major);
  });
  it('rejects garbage', () => {
    expect(() => parsePayloadVersion('latest')).toThrow('unparsable version "latest"');
  });
});

describe('status size', () => {
  it('is the compact JSON byte length', () => {
    expect(serializedSizeBytes({ a: 'é' })).toBe(JSON.stringify({ a: 'é' }).length + 1);
  });
});
