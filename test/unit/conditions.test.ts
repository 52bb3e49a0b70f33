import { describe, expect, it } from '@jest/globals';
import {
  clusterOperatorConditions, featureGatesUpgradeable, setCondition, syncDegraded, unionCondition, type OperatorCondition,
} from '../../api-types/index.js';

const asExpected = (type: string, status: 'True' | 'False'): OperatorCondition => ({ type, status, reason: 'AsExpected', message: '' });
const base = [asExpected('OperatorAvailable', 'True'), asExpected('OperatorProgressing', 'False'), asExpected('OperatorUpgradeable', 'True')];

describe('FeatureGatesUpgradeable', () => {
  it.each([
    ['', undefined, 'True', 'AllowedFeatureGates_', ''],
    ['OKD', true, 'True', 'AllowedFeatureGates_OKD', ''],
    ['OKD', false, 'False', 'RestrictedFeatureGates_OKD', '"OKD" does not allow updates'],
    ['TechPreviewNoUpgrade', undefined, 'False', 'RestrictedFeatureGates_TechPreviewNoUpgrade', '"TechPreviewNoUpgrade" does not allow updates'],
    ['DevPreviewNoUpgrade', undefined, 'False', 'RestrictedFeatureGates_DevPreviewNoUpgrade', '"DevPreviewNoUpgrade" does not allow updates'],
    ['CustomNoUpgrade', undefined, 'False', 'RestrictedFeatureGates_CustomNoUpgrade', '"CustomNoUpgrade" does not allow updates'],
  ])('%s (okd build %s) → %s %s', (set, okdBuild, status, reason, message) => {
    const c = featureGatesUpgradeable(set, okdBuild === undefined ? {} : { okdBuild });
    expect(c).toEqual({ type: 'FeatureGatesUpgradeable', status, reason, message });
  });
});

describe('ClusterOperator unions', () => {
  it('turns a restricted feature set into Upgradeable=False with the upstream reason and message', () => {
    const u = unionCondition('Upgradeable', 'True', [...base, featureGatesUpgradeable('TechPreviewNoUpgrade')]);
    expect(u).toEqual({
      type: 'Upgradeable', status: 'False', reason: 'FeatureGates_RestrictedFeatureGates_TechPreviewNoUpgrade',
      message: 'FeatureGatesUpgradeable: "TechPreviewNoUpgrade" does not allow updates',
    });
  });

  it('is AsExpected / All is well when nothing is bad', () => {
    expect(unionCondition('Upgradeable', 'True', [...base, featureGatesUpgradeable('')]))
      .toEqual({ type: 'Upgradeable', status: 'True', reason: 'AsExpected', message: 'All is well' });
    expect(unionCondition('Degraded', 'False', [syncDegraded('FeatureGateController', undefined)]))
      .toEqual({ type: 'Degraded', status: 'False', reason: 'AsExpected', message: 'All is well' });
  });

  it('joins several bad reasons sorted with :: and prefixes each message line', () => {
    const u = unionCondition('Degraded', 'False', [
      syncDegraded('ZController', 'two\nlines'), syncDegraded('FeatureGateController', 'trying to enable and disable "B"'),
    ]);
    expect(u.reason).toBe('FeatureGateController_SyncError::ZController_SyncError');
    expect(u.message).toBe('FeatureGateControllerDegraded: trying to enable and disable "B"\nZControllerDegraded: two\nZControllerDegraded: lines');
    expect(u.status).toBe('True');
  });

  it('is Unknown/NoData without conditions and Unknown when bad ones are only Unknown', () => {
    expect(unionCondition('Available', 'True', [])).toEqual({ type: 'Available', status: 'Unknown', reason: 'NoData', message: '' });
    expect(unionCondition('Available', 'True', [{ type: 'XAvailable', status: 'Unknown', reason: 'R', message: '' }]).status).toBe('Unknown');
  });

  it('holds young Degraded conditions back under inertia', () => {
    const young = { ...syncDegraded('A', 'boom'), lastTransitionTime: '2026-01-01T00:01:30Z' };
    const now = new Date('2026-01-01T00:02:00Z');
    expect(unionCondition('Degraded', 'False', [young], { inertia: { ms: 120_000, now } }).status).toBe('False');
    expect(unionCondition('Degraded', 'False', [young], { inertia: { ms: 10_000, now } }).status).toBe('True');
  });

  it('changes lastTransitionTime only when the status changes', () => {
    const t1 = '2026-01-01T00:00:00Z';
    const t2 = '2026-01-02T00:00:00Z';
    const first = clusterOperatorConditions([], [...base, featureGatesUpgradeable('')], t1);
    expect(first.map((c) => [c.type, c.status, c.lastTransitionTime])).toEqual([
      ['Degraded', 'Unknown', t1], ['Progressing', 'False', t1], ['Available', 'True', t1], ['Upgradeable', 'True', t1],
      ['EvaluationConditionsDetected', 'Unknown', t1]]);
    expect(first.at(-1)).toMatchObject({ reason: 'NoData', message: '' });
    const same = clusterOperatorConditions(first, [...base, featureGatesUpgradeable(''), syncDegraded('FG', undefined)], t2);
    expect(same.find((c) => c.type === 'Upgradeable')?.lastTransitionTime).toBe(t1);
    expect(same.find((c) => c.type === 'Degraded')).toMatchObject({ status: 'False', lastTransitionTime: t2 });
    const flipped = clusterOperatorConditions(same, [...base, featureGatesUpgradeable('TechPreviewNoUpgrade')], t2);
    expect(flipped.find((c) => c.type === 'Upgradeable')).toMatchObject({ status: 'False', lastTransitionTime: t2 });
    expect(setCondition([{ type: 'X', status: 'True', lastTransitionTime: t1 }], { type: 'X', status: 'True' }, t2)[0]?.lastTransitionTime).toBe(t1);
  });
});
