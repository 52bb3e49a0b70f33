// What one tenant can grow or decide on the management side is bounded by pure rules: the release catalog
// holds a registry per release folder and profile (not per version a guest names), a shard's record data
// stays within its budget whatever one HCP's record says, Upgradeable honours a NoUpgrade choice on either
// side, the management-side version never comes from the guest's own ClusterVersion, and no guest-written text
// becomes a metric label value, and what the cache keeps of a guest's ClusterVersion is what the controllers read.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { join } from 'node:path';
import {
  ClusterProfiles,
  MAX_GUEST_HISTORY,
  SHARD_RECORD_BUDGET_BYTES,
  boundedRecord,
  clusterDesiredVersion,
  exposedSamples,
  hcpReleaseVersion,
  resolveFeatureGateDetails,
  shardRecordData,
  type HostedControlPlane,
  type HostedGuestRecord,
} from '../../api-types/index.js';
import { GuestClusterVersionResource, Registry } from '../../runtime/index.js';
import { ReleaseCatalog } from '../../hosted/release-catalog.js';
import { acceptedGuestVersion } from '../../hosted/guest-engagement.js';
import { historyEntry } from '../../sdk/testing/index.js';
import { hostedMetrics } from '../../hosted/metrics.js';
import { checkSpecGates, knownGates, kubernetesOfOpenShift, upgradeBlockingFeatureSet } from '../../api-types/index.js';
import { HcpGatesRefusal, JUDGED_SPECS, judgedSpecCount } from '../../hosted/hcp-gates-refusal.js';
import { PAYLOAD_ROOT } from '../support/payloads.js';

describe('ReleaseCatalog', () => {
  it('500 z-versions of one release and both profiles: two registries, the same gates as a registry built for each', () => {
    const catalog = new ReleaseCatalog(join(PAYLOAD_ROOT, 'releases'));
    const first = catalog.registry('4.22.0', ClusterProfiles.IBMCloudManaged);
    for (let z = 1; z <= 500; z++) catalog.registry(`4.22.${z}`, ClusterProfiles.IBMCloudManaged);
    catalog.registry('4.22.7', ClusterProfiles.SelfManagedHighAvailability);
    expect(catalog.size).toBe(2);
    const fresh = new ReleaseCatalog(join(PAYLOAD_ROOT, 'releases'));
    for (const v of ['4.22.0', '4.22.311']) {
      expect(resolveFeatureGateDetails({ featureSet: 'TechPreviewNoUpgrade' }, catalog.registry(v, ClusterProfiles.IBMCloudManaged), v))
        .toEqual(resolveFeatureGateDetails({ featureSet: 'TechPreviewNoUpgrade' }, fresh.registry(v, ClusterProfiles.IBMCloudManaged), v));
    }
    expect(catalog.registry('4.22.499', ClusterProfiles.IBMCloudManaged)).toBe(first);
  });

  it('a version whose release is not in the catalog is an error naming the folder, and holds nothing', () => {
    const catalog = new ReleaseCatalog(join(PAYLOAD_ROOT, 'releases'));
    for (let minor = 30; minor < 60; minor++) expect(() => catalog.registry(`4.${minor}.0`, ClusterProfiles.IBMCloudManaged)).toThrow(`release release-4.${minor}`);
    expect(catalog.size).toBe(0);
  });
});

const record = (i: number, lastError = ''): [string, HostedGuestRecord] => [`ns${i}_hcp`, {
  hcp: `ns${i}/hcp`, shard: 0, owner: 'replica-1', featureSet: 'Default', versions: ['4.22.0'], ...(lastError ? { lastError } : {}),
}];

describe('an HCP spec judged against its control plane\'s rules', () => {
  // The judgements are shared by every HCP of a release (a take-over judged the same spec hundreds of times); the spec
  // is the tenant's to vary, so what is kept is bounded and a verdict never comes from another spec's judgement.
  it('200 CustomNoUpgrade specs a tenant cycles through: at most JUDGED_SPECS kept per release, each verdict checkSpecGates\'s own', () => {
    const catalog = new ReleaseCatalog(join(PAYLOAD_ROOT, 'releases'));
    const registry = catalog.registry('4.22.0', ClusterProfiles.IBMCloudManaged);
    const kube = kubernetesOfOpenShift('4.22.0');
    const gates = knownGates(registry);
    const specs = Array.from({ length: 200 }, (_, i) => ({
      featureSet: 'CustomNoUpgrade',
      customNoUpgrade:
        i % 2 ? { enabled: [gates[i % gates.length]!], disabled: [] } : { enabled: [], disabled: [gates[i % gates.length]!] },
    }));
    let refused = 0;
    for (const round of [0, 1]) {
      for (const [i, spec] of specs.entries()) {
        const verdict = new HcpGatesRefusal(`ns${i}/hcp`, catalog).of(spec, '4.22.0');
        const starts = checkSpecGates(spec, registry, '4.22.0', kube).starts;
        expect(verdict === undefined).toBe(starts);
        if (round === 0 && !starts) refused++;
        expect(judgedSpecCount(registry)).toBeLessThanOrEqual(JUDGED_SPECS);
      }
    }
    expect(refused).toBeGreaterThan(0); // both verdicts were asked for
    expect(judgedSpecCount(registry)).toBe(JUDGED_SPECS);
  });
});

describe('shard records', () => {
  it('a record is bounded whatever its guest says: 3,000 versions, a 2 MiB error, a long version string', () => {
    const r = boundedRecord({
      hcp: 'a/a', shard: 0, owner: 'x', featureSet: 'Default', desiredVersion: `4.22.0-${'v'.repeat(10_000)}`,
      versions: Array.from({ length: 3000 }, (_, i) => `4.22.${i}`), lastError: 'e'.repeat(2 * 1024 * 1024), upgradeable: `False: ${'r'.repeat(5000)}`,
    });
    expect(Buffer.byteLength(JSON.stringify(r))).toBeLessThan(8 * 1024);
    expect(r.versions.at(-1)).toBe('… 2900 more');
  });

  it('the shard data stays within its budget and keeps a line for every HCP, however many HCPs and however large their records', () => {
    fc.assert(fc.property(fc.array(fc.nat({ max: 4000 }), { minLength: 1, maxLength: 400 }), (errorSizes) => {
      const data = shardRecordData(errorSizes.map((n, i) => record(i, 'x'.repeat(n))), 64 * 1024);
      const total = Object.entries(data).reduce((n, [k, v]) => n + k.length + Buffer.byteLength(v), 0);
      expect(Object.keys(data)).toHaveLength(errorSizes.length);
      // Every record cut to its line still fits when the HCPs are not too many for the budget.
      if (errorSizes.length * 200 < 64 * 1024) expect(total).toBeLessThanOrEqual(64 * 1024);
    }), { numRuns: 50 });
  });

  it('one hostile record does not push the others out: the default budget holds 300 HCPs with the longest errors', () => {
    const data = shardRecordData(Array.from({ length: 300 }, (_, i) => record(i, 'y'.repeat(2 * 1024 * 1024))));
    const total = Object.entries(data).reduce((n, [k, v]) => n + k.length + Buffer.byteLength(v), 0);
    expect(total).toBeLessThanOrEqual(SHARD_RECORD_BUDGET_BYTES);
    expect(Object.keys(data)).toHaveLength(300);
  });
});

describe('Upgradeable while the guest spec and the HCP spec differ', () => {
  it('a NoUpgrade set on either side blocks', () => {
    expect(upgradeBlockingFeatureSet('', 'TechPreviewNoUpgrade')).toBe('TechPreviewNoUpgrade');
    expect(upgradeBlockingFeatureSet('TechPreviewNoUpgrade', '')).toBe('TechPreviewNoUpgrade');
    expect(upgradeBlockingFeatureSet('CustomNoUpgrade', 'TechPreviewNoUpgrade')).toBe('CustomNoUpgrade');
    expect(upgradeBlockingFeatureSet('', undefined)).toBe('');
    expect(upgradeBlockingFeatureSet(undefined, '')).toBeUndefined();
  });
});

describe('hcpReleaseVersion', () => {
  const hcp = (status: Record<string, unknown>): HostedControlPlane => ({
    apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedControlPlane', metadata: { name: 'a', namespace: 'a' }, spec: {}, status,
  });
  it('the control-plane version first, then the applied version, then (guest-influenced) versionStatus', () => {
    const all = { controlPlaneVersion: { desired: { version: '4.22.3', image: 'x' } }, version: '4.22.2', versionStatus: { desired: { version: '4.22.158' } } };
    expect(hcpReleaseVersion(hcp(all))).toEqual({ version: '4.22.3', source: 'status.controlPlaneVersion.desired.version' });
    expect(hcpReleaseVersion(hcp({ ...all, controlPlaneVersion: undefined }))?.source).toBe('status.version');
    expect(hcpReleaseVersion(hcp({ versionStatus: all.versionStatus }))).toEqual({ version: '4.22.158', source: 'status.versionStatus.desired.version' });
    expect(hcpReleaseVersion(hcp({}))).toBeUndefined();
  });
});

describe('hosted metrics', () => {
  it('a guest admin\'s Upgradeable condition status never becomes a label value: anything but True or False reads Unknown', async () => {
    const registry = new Registry();
    const m = hostedMetrics(registry);
    m.described('clusters-a', 'a', 'Default', `Forged${'x'.repeat(100_000)}`);
    m.described('clusters-b', 'b', 'TechPreviewNoUpgrade', 'False');
    const info = exposedSamples(await registry.metrics()).filter((s) => s.name === 'featuregates_hosted_guest_info');
    expect(info.map((s) => s.labels)).toEqual([
      { namespace: 'clusters-a', name: 'a', feature_set: 'Default', upgradeable: 'Unknown' },
      { namespace: 'clusters-b', name: 'b', feature_set: 'TechPreviewNoUpgrade', upgradeable: 'False' },
    ]);
  });
});

describe('cluster_feature_set per owned HCP', () => {
  it('has HyperShift\'s value semantics (name as the spec says it, 1 for Default only), follows a change and goes with the HCP', async () => {
    const registry = new Registry();
    const m = hostedMetrics(registry);
    const samples = async () => exposedSamples(await registry.metrics()).filter((s) => s.name === 'cluster_feature_set')
      .map((s) => ({ ...s.labels, value: s.value }));
    m.described('clusters-a', 'a', '', 'True');
    m.described('clusters-b', 'b', 'TechPreviewNoUpgrade', 'False');
    expect(await samples()).toEqual([
      { namespace: 'clusters-a', hcp: 'a', name: '', value: 1 },
      { namespace: 'clusters-b', hcp: 'b', name: 'TechPreviewNoUpgrade', value: 0 },
    ]);
    m.described('clusters-a', 'a', 'CustomNoUpgrade', 'True');
    m.forget('clusters-b', 'b');
    expect(await samples()).toEqual([{ namespace: 'clusters-a', hcp: 'a', name: 'CustomNoUpgrade', value: 0 }]);
  });
});

describe('a guest ClusterVersion in the cache', () => {
  const raw = (entries: number, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion',
    metadata: { name: 'version', resourceVersion: '7', uid: 'u', managedFields: [{ manager: 'x'.repeat(10_000) }] },
    spec: { clusterID: 'c', channel: 'stable-4.22', upstream: 'https://example.com' },
    status: {
      desired: { version: `4.22.${entries}`, image: 'img', url: 'https://example.com', channels: ['a'.repeat(10_000)] },
      history: Array.from({ length: entries }, (_, i) => ({ ...historyEntry(`4.22.${entries - i}`), acceptedRisks: 'r'.repeat(1_000) })),
      conditionalUpdates: Array.from({ length: 50 }, (_, i) => ({ release: { version: `4.23.${i}` }, risks: [{ message: 'm'.repeat(2_000) }] })),
      conditions: [{ type: 'Available', status: 'True', message: 'm'.repeat(10_000) }], ...extra,
    },
  });

  it('keeps the desired version and the history\'s entries, nothing else', () => {
    const cv = GuestClusterVersionResource.decode(raw(3));
    expect(cv.status?.history.map((h) => h.version)).toEqual(['4.22.3', '4.22.2', '4.22.1']);
    expect(clusterDesiredVersion(cv)).toBe('4.22.3');
    expect(acceptedGuestVersion(cv)).toEqual({ version: '4.22.3' });
    expect(cv.metadata).toEqual({ name: 'version', resourceVersion: '7', uid: 'u' });
    expect(Object.keys(cv.status ?? {}).sort()).toEqual(['desired', 'history']);
    expect(JSON.stringify(cv).length).toBeLessThan(1_000);
  });

  it('3,000 history entries: one more than a guest may have is kept, and the version is refused for it', () => {
    const cv = GuestClusterVersionResource.decode(raw(3_000));
    expect(cv.status?.history).toHaveLength(MAX_GUEST_HISTORY + 1);
    const accepted = acceptedGuestVersion(cv);
    expect('problem' in accepted && accepted.problem.message).toContain(`has more than ${MAX_GUEST_HISTORY} history entries`);
    expect(acceptedGuestVersion(GuestClusterVersionResource.decode(raw(MAX_GUEST_HISTORY)))).toEqual({ version: `4.22.${MAX_GUEST_HISTORY}` });
  });

  it('whatever its size, the cached copy is a few hundred bytes per history entry kept', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 2_000 }), (entries) => {
      const cv = GuestClusterVersionResource.decode(raw(entries));
      expect(JSON.stringify(cv).length).toBeLessThan(400 + 250 * Math.min(entries, MAX_GUEST_HISTORY + 1));
    }), { numRuns: 25 });
  });
});
