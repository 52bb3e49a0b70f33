// release.openshift.io/major-version as cluster-config-operator reads it (-N ignored, a positive match needed)
// and as library-go's manifest filter does (-N excludes, no positive entry includes the rest, overlap and
// malformed entries are errors), and where the two disagree.
import { describe, expect, it } from '@jest/globals';
import { configOperatorReading, majorVersionDisagreement, manifestFilterReading, selectManifest } from '../../api-types/index.js';

describe('major-version readings', () => {
  it('the config operator: only a listed major; "-4" alone matches nothing', () => {
    expect(configOperatorReading('4,5,6', 5).applies).toBe(true);
    expect(configOperatorReading('5,6,7,8,9,10', 4).applies).toBe(false);
    expect(configOperatorReading('-4', 5)).toEqual({ applies: false, why: 'release.openshift.io/major-version "-4" does not contain 5' });
    expect(configOperatorReading('-4', 4).applies).toBe(false);
    expect(configOperatorReading('-4,5', 5).applies).toBe(true);
    expect(configOperatorReading('4,x', 4)).toEqual({ applies: false, why: 'malformed release.openshift.io/major-version entry "x"' });
  });

  it('the registry selects by the same reading', () => {
    const a = (v: string) => ({ 'release.openshift.io/major-version': v });
    expect(selectManifest(a('4'), 'self-managed-high-availability', 4)).toEqual({ selected: true });
    expect(selectManifest(a('-4'), 'self-managed-high-availability', 5)).toEqual({ selected: false, reason: 'release.openshift.io/major-version "-4" does not contain 5' });
  });

  it('library-go: -N excludes, no positive entry includes the rest, overlap and malformed are errors', () => {
    expect(manifestFilterReading('-4', 5)).toEqual({ applies: true, why: 'excludes only 4' });
    expect(manifestFilterReading('-4', 4)).toEqual({ applies: false, why: 'excludes 4' });
    expect(manifestFilterReading('4,5', 6)).toEqual({ applies: false, why: 'major version 6 does not match any required versions' });
    expect(manifestFilterReading('4,-4', 4)).toEqual({ error: 'inclusion and exclusion requirements overlap: 4' });
    expect(manifestFilterReading('4,x', 4)).toEqual({ error: 'malformed release.openshift.io/major-version entry "x"' });
  });

  it('says when they disagree, and only then', () => {
    expect(majorVersionDisagreement('4,5,6,7,8,9,10', 5)).toBeUndefined();
    expect(majorVersionDisagreement('5,6,7,8,9,10', 4)).toBeUndefined();
    expect(majorVersionDisagreement('-4', 4)).toBeUndefined(); // both skip it
    expect(majorVersionDisagreement('-4', 5)).toBe('release.openshift.io/major-version "-4": for major 5 the config operator skips this file ' +
      '(release.openshift.io/major-version "-4" does not contain 5), the cluster-version operator\'s manifest filter (library-go, -N excludes N) would apply it (excludes only 4)');
    expect(majorVersionDisagreement('4,-4', 4)).toContain('the config operator uses this file for major 4, but the cluster-version operator\'s manifest filter (library-go) rejects it: inclusion and exclusion requirements overlap: 4');
  });
});
