// The registry on real payload manifests, every naming generation (4.15 → 5.1 and current).
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALL_CLUSTER_PROFILES, buildRegistry, compareNames, resolveFeatureSet } from '../../api-types/index.js';
import { loadRegistry, readPayloadManifests } from '../../runtime/manifests/payload-manifests.js';
import { payloadFolders, payloadIndex, PAYLOAD_ROOT, PROFILE_OF } from '../support/payloads.js';

const index = payloadIndex();

describe.each(payloadFolders())('payload folder $folder', ({ folder, dir, version }) => {
  const files = index.filter((f) => f.path.startsWith(`${folder}/`));

  it.each(ALL_CLUSTER_PROFILES)('registry counts per feature set equal INDEX.json for profile %s', (profile) => {
    const forProfile = files.filter((f) => f.profile === null || PROFILE_OF[f.profile] === profile);
    if (forProfile.length === 0) {
      expect(() => loadRegistry(dir, { operatorVersion: version, clusterProfile: profile })).toThrow(/featuregates not located/);
      return;
    }
    const registry = loadRegistry(dir, { operatorVersion: version, clusterProfile: profile });
    const expected = new Map(forProfile.map((f) => [f.specFeatureSet ?? '', [f.enabledCount, f.disabledCount]]));
    const actual = new Map([...registry.featureSets].map(([set, g]) => [set, [new Set(g.enabled).size, new Set(g.disabled).size]]));
    expect(actual).toEqual(expected);
  });

  it('resolves Default to exactly the Default manifest names, byte-sorted', () => {
    const def = files.find((f) => f.featureSet === 'Default' && f.profile !== 'Hypershift');
    expect(def).toBeDefined();
    const manifest = JSON.parse(readFileSync(join(PAYLOAD_ROOT, def!.path), 'utf8'));
    const entry = manifest.status.featureGates[0];
    const names = (xs: { name: string }[]) => xs.map((x) => x.name);
    const registry = loadRegistry(dir, { operatorVersion: version });
    const resolved = resolveFeatureSet({}, registry);
    expect(resolved.enabled).toEqual([...names(entry.enabled)].sort(compareNames));
    expect(resolved.disabled).toEqual([...names(entry.disabled)].sort(compareNames));
    expect(resolved.enabled.length).toBe(def!.enabledCount);
  });
});

describe('registry selection rules', () => {
  const current = readPayloadManifests(join(PAYLOAD_ROOT, 'current'));

  it('excludes manifests whose major-version list lacks the operator major', () => {
    expect(() => buildRegistry(current, { operatorVersion: '11.0.0' }))
      .toThrow(/featuregates not located: none of 8 payload manifests matches cluster profile self-managed-high-availability and major version 11/);
    expect(() => buildRegistry(current, { operatorVersion: '0.0.1-snapshot' })).toThrow(/major version 0/);
  });

  it('prefers the entry for the operator version over the unrendered "" entry', () => {
    const m = {
      source: 'x.yaml',
      object: {
        apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', metadata: { name: 'cluster' }, spec: {},
        status: { featureGates: [{ version: '', enabled: [{ name: 'A' }], disabled: [] }, { version: '4.2.0', enabled: [{ name: 'B' }], disabled: [] }] },
      },
    };
    expect(buildRegistry([m], { operatorVersion: '4.2.0' }).featureSets.get('')?.enabled).toEqual(['B']);
    expect(buildRegistry([m], { operatorVersion: '4.3.0' }).featureSets.get('')?.enabled).toEqual(['A']);
  });

  it('fails on two manifests claiming one feature set, profile and major — even with the same gates — naming both', () => {
    const a = { source: 'a.yaml', object: { kind: 'FeatureGate', spec: {}, status: { featureGates: [{ version: '', enabled: [{ name: 'A' }] }] } } };
    const b = { source: 'b.yaml', object: { kind: 'FeatureGate', spec: {}, status: { featureGates: [{ version: '', enabled: [{ name: 'B' }] }] } } };
    expect(() => buildRegistry([a, b], { operatorVersion: '4.1.0' }))
      .toThrow('feature set Default is claimed twice for cluster profile self-managed-high-availability and major version 4: a.yaml and b.yaml (different gates); keep one');
    expect(() => buildRegistry([a, { ...a, source: 'c.yaml' }], { operatorVersion: '4.1.0' })).toThrow('a.yaml and c.yaml (same gates); keep one');
  });

  it('fails on a manifest with no status entry for "" or the payload version, never reading it as no gates', () => {
    const at = (versions: string[]) => ({ source: 'v.yaml', object: { kind: 'FeatureGate', spec: {}, status: { featureGates: versions.map((version) => ({ version, enabled: [{ name: 'A' }] })) } } });
    expect(() => buildRegistry([at(['4.99.0'])], { operatorVersion: '4.1.0' }))
      .toThrow('v.yaml: status.featureGates has entries only for "4.99.0"; a payload manifest needs one for "" (every version) or for the payload version 4.1.0');
    expect(() => buildRegistry([at([])], { operatorVersion: '4.1.0' })).toThrow('v.yaml: status.featureGates has no entry;');
    expect(buildRegistry([at(['4.99.0', '4.1.0'])], { operatorVersion: '4.1.0' }).featureSets.get('')?.enabled).toEqual(['A']);
  });

  it('rejects an unparsable operator version and a malformed manifest', () => {
    expect(() => buildRegistry(current, { operatorVersion: 'banana' })).toThrow('unparsable version "banana"');
    expect(() => buildRegistry([{ source: 'bad.yaml', object: { kind: 'FeatureGate', spec: { featureSet: 3 } } }], { operatorVersion: '4.1.0' }))
      .toThrow('bad.yaml: not a FeatureGate manifest: spec.featureSet: expected string, got number');
  });

  it('skips manifests with a malformed major-version entry and ignores "-" entries', () => {
    const mk = (majors: string) => ({
      source: `${majors}.yaml`,
      object: { kind: 'FeatureGate', metadata: { annotations: { 'release.openshift.io/major-version': majors } }, spec: {}, status: { featureGates: [{ version: '' }] } },
    });
    expect(buildRegistry([mk('-3,4')], { operatorVersion: '4.1.0' }).featureSets.size).toBe(1);
    expect(() => buildRegistry([mk('4,x')], { operatorVersion: '4.1.0' })).toThrow(/malformed release.openshift.io\/major-version entry "x"/);
  });
});
