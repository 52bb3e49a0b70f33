// What `featuregates status`/`diff` compute from the objects they read, and where the operator finds its namespace.
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  gateNames, runningGatesSummary, statusLists, summarize, toFeatureGateDetails, type ClusterOperator, type ComponentCheck, type GateVerdict,
} from '../../api-types/index.js';
import { runningGatesLine } from '../../cmd/status.js';
import { podNamespace } from '../../runtime/rest/kube-config.js';
import { clusterVersion, featureGate, historyEntry } from '../support/objects.js';

const fg = {
  ...featureGate('cluster', { featureSet: 'TechPreviewNoUpgrade' }),
  status: { featureGates: [toFeatureGateDetails({ version: '4.22.1', enabled: ['A', 'B'], disabled: ['C'] }), toFeatureGateDetails({ version: '4.21.0', enabled: [], disabled: ['A'] })] },
};

describe('summarize', () => {
  it('takes Upgradeable from the ClusterOperator when it has one, else computes it from the spec', () => {
    const co: ClusterOperator = {
      apiVersion: 'config.openshift.io/v1', kind: 'ClusterOperator', metadata: { name: 'config-operator' }, spec: {},
      status: { conditions: [{ type: 'Upgradeable', status: 'False', reason: 'FromCO', message: 'said by the operator', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
    };
    expect(summarize(fg, co, undefined).upgradeable).toEqual({ status: 'False', reason: 'FromCO', message: 'said by the operator', source: 'clusteroperator/config-operator' });
    // In the ClusterOperator's words (issue 24, item 7: `start` showed "AllowedFeatureGates_" where `status` showed "AsExpected").
    expect(summarize(fg, undefined, undefined).upgradeable).toEqual({
      status: 'False', reason: 'FeatureGates_RestrictedFeatureGates_TechPreviewNoUpgrade', message: 'FeatureGatesUpgradeable: "TechPreviewNoUpgrade" does not allow updates',
      source: 'computed from the spec (no ClusterOperator condition yet)',
    });
    expect(summarize({ ...fg, spec: {} }, undefined, undefined).upgradeable).toMatchObject({ status: 'True', reason: 'AsExpected' });
  });

  it('lists history with Partial marked, counts per version, and names only when asked', () => {
    const cv = clusterVersion('version', [historyEntry('4.22.1', 'Partial', 1), historyEntry('4.21.0', 'Completed', 0)]);
    const s = summarize(fg, undefined, cv);
    expect(s.clusterVersion).toEqual({ desired: '4.22.1', history: ['4.22.1 (Partial)', '4.21.0'] });
    expect(s.versions).toEqual([{ version: '4.22.1', enabled: 2, disabled: 1 }, { version: '4.21.0', enabled: 0, disabled: 1 }]);
    expect(summarize(fg, undefined, undefined, true).versions[0]).toEqual({ version: '4.22.1', enabled: 2, disabled: 1, enabledNames: ['A', 'B'], disabledNames: ['C'] });
    expect(summarize(fg, undefined, undefined).clusterVersion).toBeUndefined();
  });
});

describe('statusLists', () => {
  it('gives a version\'s names, or says which versions there are', () => {
    expect(statusLists(fg, '4.21.0')).toEqual({ enabled: [], disabled: ['A'] });
    expect(() => statusLists(fg, '4.20.0')).toThrow('version "4.20.0" is not in FeatureGate/cluster status (it has 4.22.1, 4.21.0)');
    expect(() => statusLists(featureGate('cluster'), '4.20.0')).toThrow('(it has no entries)');
  });
});

describe('gate lists on the wire', () => {
  it('names → {name} entries → the same names', () => {
    fc.assert(fc.property(fc.string(), fc.array(fc.string()), fc.array(fc.string()), (version, enabled, disabled) => {
      const d = toFeatureGateDetails({ version, enabled, disabled });
      expect(d.enabled.every((g) => Object.keys(g).join() === 'name')).toBe(true);
      expect({ version: d.version, ...gateNames(d) }).toEqual({ version, enabled, disabled });
    }));
  });
});

describe('podNamespace', () => {
  it('is $POD_NAMESPACE, else the service account\'s namespace file, else "default"', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fgc-sa-'));
    try {
      expect(podNamespace({ POD_NAMESPACE: 'from-env' }, dir)).toBe('from-env');
      expect(podNamespace({}, dir)).toBe('default');
      writeFileSync(join(dir, 'namespace'), 'openshift-config-operator\n');
      expect(podNamespace({}, dir)).toBe('openshift-config-operator');
      expect(podNamespace({ POD_NAMESPACE: 'from-env' }, dir)).toBe('from-env');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('status: the running-gates line', () => {
  const check = (gates: [string, GateVerdict][], error?: string): ComponentCheck => ({
    name: 'kube-apiserver', url: 'https://x', ...(error ? { error } : {}),
    gates: gates.map(([name, verdict]) => ({ name, desired: true, running: verdict === 'not-in-component' ? null : verdict === 'match', verdict })),
  });
  it('says match, names the mismatches (five, then how many more), or why kube-apiserver could not be read', () => {
    const match = runningGatesSummary('4.22.0', check([['A', 'match'], ['OpenShiftOnly', 'not-in-component']]));
    expect(match).toEqual({ component: 'kube-apiserver', version: '4.22.0', verdict: 'match', checked: 1, mismatches: [] });
    expect(runningGatesLine(match)).toBe('kube-apiserver runs the 1 gate(s) of 4.22.0\'s entry it has as the entry says (featuregates verify)');
    expect(runningGatesLine(runningGatesSummary('4.22.0', check([['OpenShiftOnly', 'not-in-component']])))).toBe('kube-apiserver has none of 4.22.0\'s gates (featuregates verify)');
    const seven = runningGatesSummary('4.22.0', check(['A', 'B', 'C', 'D', 'E', 'F', 'G'].map((n) => [n, 'mismatch'] as [string, GateVerdict])));
    expect(seven).toMatchObject({ verdict: 'mismatch', checked: 7 });
    expect(runningGatesLine(seven)).toBe('kube-apiserver runs 7 gate(s) other than 4.22.0\'s entry says: A, B, C, D, E, and 2 more (featuregates verify)');
    const unreadable = runningGatesSummary('4.22.0', check([], 'forbidden: GET /metrics: 403'));
    expect(unreadable).toMatchObject({ verdict: 'unreadable', error: 'forbidden: GET /metrics: 403' });
    expect(runningGatesLine(unreadable)).toBe('kube-apiserver could not be read — forbidden: GET /metrics: 403 (featuregates verify)');
  });
});
