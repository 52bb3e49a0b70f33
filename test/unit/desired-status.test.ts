// Table tests for the FeatureGate status algorithm: the upstream controller's cases.
import { describe, expect, it } from '@jest/globals';
import {
  buildRegistry, desiredFeatureGates, featureGatesEqual, resolveFeatureGateDetails, type FeatureGateDetails,
  type FeatureGateSpec, type FeatureSetRegistry,
} from '../../api-types/index.js';
import { details } from '../support/objects.js';

function registry(sets: Record<string, [string[], string[]]>): FeatureSetRegistry {
  return buildRegistry(Object.entries(sets).map(([set, [enabled, disabled]]) => ({
    source: `${set || 'Default'}.yaml`,
    object: {
      kind: 'FeatureGate', spec: set ? { featureSet: set } : {},
      status: { featureGates: [{ version: '', enabled: enabled.map((name) => ({ name })), disabled: disabled.map((name) => ({ name })) }] },
    },
  })), { operatorVersion: '4.22.0' });
}

const reg = registry({
  '': [['beta', 'Alpha'], ['gamma', 'Delta']],
  TechPreviewNoUpgrade: [['beta', 'Alpha', 'gamma'], ['Delta']],
  DevPreviewNoUpgrade: [['beta', 'Alpha', 'gamma', 'Delta', 'Extra'], []],
});

const h = (...versions: string[]) => versions.map((version) => ({ version }));

function sync(spec: FeatureGateSpec, existing: FeatureGateDetails[] | null, history: string[], version = '4.22.0') {
  return desiredFeatureGates({ current: resolveFeatureGateDetails(spec, reg, version), existing, history: h(...history) });
}

describe('desired FeatureGate status (upstream cases)', () => {
  const cases: {
    name: string;
    spec: FeatureGateSpec;
    existing: FeatureGateDetails[] | null;
    history: string[];
    want: FeatureGateDetails[];
    write: boolean;
  }[] = [
    {
      name: 'add-current-version-to-empty',
      spec: {},
      existing: null,
      history: ['4.22.0'],
      want: [details('4.22.0', ['Alpha', 'beta'], ['Delta', 'Extra', 'gamma'])],
      write: true,
    },
    {
      name: 'no-action-if-current-matches',
      spec: {},
      history: ['4.22.0', '4.21.0'],
      existing: [details('4.22.0', ['Alpha', 'beta'], ['Delta', 'Extra', 'gamma']), details('4.21.0', ['Old'], [])],
      want: [details('4.22.0', ['Alpha', 'beta'], ['Delta', 'Extra', 'gamma']), details('4.21.0', ['Old'], [])],
      write: false,
    },
    {
      name: 'replace-existing-if-changed',
      spec: { featureSet: 'TechPreviewNoUpgrade' },
      history: ['4.22.0', '4.21.0'],
      existing: [details('4.22.0', ['Alpha', 'beta'], ['Delta', 'Extra', 'gamma']), details('4.21.0', ['Old'], [])],
      want: [details('4.22.0', ['Alpha', 'beta', 'gamma'], ['Delta', 'Extra']), details('4.21.0', ['Old'], [])],
      write: true,
    },
    {
      name: 'resolve-custom',
      spec: { featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: ['gamma', 'beta', 'New'], disabled: ['Alpha'] } },
      existing: null,
      history: [],
      want: [details('4.22.0', ['New', 'beta', 'gamma'], ['Alpha', 'Delta'])],
      write: true,
    },
    {
      name: 'resolve-custom-no-enabled-disabled-specified',
      spec: { featureSet: 'CustomNoUpgrade' },
      existing: null,
      history: [],
      want: [details('4.22.0', ['Alpha', 'beta'], ['Delta', 'gamma'])],
      write: true,
    },
    {
      name: 'resolve-custom-with-existing',
      spec: { featureSet: 'CustomNoUpgrade', customNoUpgrade: { disabled: ['beta'] } },
      existing: [details('4.21.0', ['Old'], [])],
      history: ['4.21.0'],
      want: [details('4.22.0', ['Alpha'], ['Delta', 'beta', 'gamma']), details('4.21.0', ['Old'], [])],
      write: true,
    },
    {
      name: 'prune-removed-versions',
      spec: { featureSet: 'TechPreviewNoUpgrade' },
      history: ['4.22.0', '4.20.0'],
      existing: [details('4.22.0', ['x'], []), details('4.21.0', ['y'], []), details('4.20.0', ['z'], [])],
      want: [details('4.22.0', ['Alpha', 'beta', 'gamma'], ['Delta', 'Extra']), details('4.20.0', ['z'], [])],
      write: true,
    },
    {
      name: 'prune-removed-versions-with-no-other-change',
      spec: {},
      history: ['4.22.0', '4.20.0'],
      existing: [
        details('4.22.0', ['Alpha', 'beta'], ['Delta', 'Extra', 'gamma']),
        details('4.21.0', ['y'], []),
        details('4.20.0', ['z'], []),
      ],
      want: [details('4.22.0', ['Alpha', 'beta'], ['Delta', 'Extra', 'gamma']), details('4.20.0', ['z'], [])],
      write: true,
    },
    {
      name: 'rollback-to-a-version-already-present',
      spec: {},
      history: ['4.21.0', '4.22.0', '4.21.0'],
      existing: [details('4.22.0', ['n'], []), details('4.21.0', ['stale'], [])],
      want: [details('4.21.0', ['Alpha', 'beta'], ['Delta', 'Extra', 'gamma']), details('4.22.0', ['n'], [])],
      write: true,
    },
    {
      name: 'keeps-the-operator-version-before-history-knows-it',
      spec: {},
      history: ['4.21.0'],
      existing: [details('4.21.0', ['old'], []), details('9.9.9', ['hand-written'], [])],
      want: [details('4.22.0', ['Alpha', 'beta'], ['Delta', 'Extra', 'gamma']), details('4.21.0', ['old'], [])],
      write: true,
    },
  ];

  it.each(cases)('$name', ({ name, spec, existing, history, want, write }) => {
    const version = name.startsWith('rollback') ? '4.21.0' : '4.22.0';
    const got = sync(spec, existing, history, version);
    expect(got).toEqual(want);
    expect(!featureGatesEqual(got, existing)).toBe(write);
  });

  it('fails for a name both enabled and disabled, with the upstream message', () => {
    expect(() => resolveFeatureGateDetails({ featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: ['A', 'B'], disabled: ['B'] } }, reg, '4.22.0'))
      .toThrow('trying to enable and disable "B"');
  });

  it('names the missing feature set (upstream prints a nil map here)', () => {
    expect(() => resolveFeatureGateDetails({ featureSet: 'OKD' }, reg, '4.22.0')).toThrow(/^\.spec\.featureSet "OKD" not found/);
  });

  it('never lists a name twice, unlike upstream CustomNoUpgrade', () => {
    const got = resolveFeatureGateDetails({ featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: ['beta', 'beta'], disabled: ['gamma'] } }, reg, 'v');
    expect(got.enabled.map((g) => g.name)).toEqual(['Alpha', 'beta']);
    expect(got.disabled.map((g) => g.name)).toEqual(['Delta', 'gamma']);
  });

  it('sorts byte-wise, not in locale order', () => {
    const r = registry({ '': [['Ad', 'AWS', 'a', 'B'], []] });
    expect(resolveFeatureGateDetails({}, r, 'v').enabled.map((g) => g.name)).toEqual(['AWS', 'Ad', 'B', 'a']);
  });

  it('treats absent, null and empty lists as equal', () => {
    const a = [{ version: 'v', enabled: [], disabled: [] }];
    const b = [{ version: 'v', enabled: null, disabled: undefined }] as unknown as FeatureGateDetails[];
    expect(featureGatesEqual(a, b)).toBe(true);
    expect(featureGatesEqual(null, [])).toBe(true);
    expect(featureGatesEqual(a, [{ version: 'w', enabled: [], disabled: [] }])).toBe(false);
    expect(featureGatesEqual(a, [...a, ...a])).toBe(false);
  });
});
