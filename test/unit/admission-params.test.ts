// The admission policy's params: one key per payload version, pruned with ClusterVersion history.
import { describe, expect, it } from '@jest/globals';
import { desiredKnownGatesData } from '../../api-types/index.js';

describe('desiredKnownGatesData', () => {
  it('writes this version\'s names sorted, keeps versions still in history and foreign keys, drops the rest', () => {
    expect(desiredKnownGatesData(undefined, '4.22.0', ['B', 'A', 'B'], ['4.22.0'])).toEqual({ 'gates.4.22.0': 'A,B' });
    const current = { 'gates.4.21.0': 'A', 'gates.4.20.0': 'Z', note: 'kept' };
    expect(desiredKnownGatesData(current, '4.22.0', ['A', 'C'], ['4.22.0', '4.21.0'])).toEqual({ 'gates.4.21.0': 'A', note: 'kept', 'gates.4.22.0': 'A,C' });
  });

  it('says "no change" when the data is already right (no write)', () => {
    expect(desiredKnownGatesData({ 'gates.4.22.0': 'A,B' }, '4.22.0', ['B', 'A'], ['4.22.0'])).toBeUndefined();
    // its own version is kept even before it appears in history (the operator of a new version runs first)
    expect(desiredKnownGatesData({ 'gates.4.23.0': 'A' }, '4.23.0', ['A'], ['4.22.0'])).toBeUndefined();
  });
});
