// The pure pieces of hosted mode: the HostedControlPlane decoder, the catalog folder of a version, the
// `feature-gate` ConfigMap merge, the status records and their table, and guest spec equality.
import { describe, expect, it } from '@jest/globals';
import {
  configMapCarries,
  decodeHostedControlPlane,
  summarizeHostedControlPlane,
  decodeShardRecords,
  hostedFeatureGateSpec,
  hostedStatusTable,
  mergeConfigMap,
  recordKey,
  releaseFolder,
  hcpKey,
  hcpNamespace,
  isShardName,
  shardName,
  type ConfigMap,
} from '../../api-types/index.js';
import { clusterDesiredVersion as guestDesiredVersion } from '../../api-types/index.js';
import { sameFeatureGateSpec } from '../../hosted/guest-spec.js';
import { hostedControlPlane } from '../../sdk/testing/hosted-fleet.js';
import { memberLeaseName, renewInterval } from '../../hosted/shards.js';
import { secretFlag } from '../../cmd/hosted.js';

describe('HostedControlPlane decoding', () => {
  it('reads the feature-gate spec, the kubeconfig reference and the version status, and keeps the rest', () => {
    const hcp = decodeHostedControlPlane({
      ...hostedControlPlane({ namespace: 'clusters-a', name: 'a', featureGate: { featureSet: 'TechPreviewNoUpgrade' } }),
      status: { ready: true, kubeConfig: { name: 'admin-kubeconfig', key: 'kubeconfig' }, versionStatus: { desired: { version: '4.22.1', image: 'x' }, history: [{ version: '4.22.1', state: 'Completed' }] } },
    });
    expect(hostedFeatureGateSpec(hcp)).toEqual({ featureSet: 'TechPreviewNoUpgrade' });
    expect(hcp.status?.kubeConfig).toEqual({ name: 'admin-kubeconfig', key: 'kubeconfig' });
    expect(hcp.status?.versionStatus?.desired?.version).toBe('4.22.1');
    expect(hcp.spec.infraID).toBe('a');
    expect(hcp.status?.ready).toBe(true);
  });

  it('the cached summary keeps only what the coordinator reads', () => {
    const full = decodeHostedControlPlane({
      ...hostedControlPlane({ namespace: 'clusters-a', name: 'a', featureGate: { featureSet: 'TechPreviewNoUpgrade' } }),
      metadata: { name: 'a', namespace: 'clusters-a', uid: 'u1', resourceVersion: '42', labels: { x: 'y' }, managedFields: [{ manager: 'm' }] },
      status: { ready: true, version: '4.22.1', kubeConfig: { name: 'k', key: 'kubeconfig' }, versionStatus: { desired: { version: '4.22.1', image: 'i' }, history: [{ version: '4.22.1', state: 'Completed' }] }, conditions: [{ type: 'Available' }] },
    });
    expect(summarizeHostedControlPlane(full)).toEqual({
      apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedControlPlane',
      metadata: { name: 'a', namespace: 'clusters-a', uid: 'u1', resourceVersion: '42' },
      spec: { configuration: { featureGate: { featureSet: 'TechPreviewNoUpgrade' } } },
      status: { kubeConfig: { name: 'k', key: 'kubeconfig' }, versionStatus: { desired: { version: '4.22.1' } }, version: '4.22.1' },
    });
  });

  it('an HCP without configuration asks for Default', () => {
    expect(hostedFeatureGateSpec(decodeHostedControlPlane(hostedControlPlane({ namespace: 'n', name: 'x' })))).toEqual({});
  });

  it('names the field of a malformed HCP', () => {
    const hcp = hostedControlPlane({ namespace: 'n', name: 'x' });
    expect(() => decodeHostedControlPlane({ ...hcp, status: { kubeConfig: { name: 'a' } } })).toThrow('status.kubeConfig.key: expected string, got undefined');
    expect(() => decodeHostedControlPlane({ ...hcp, spec: { configuration: { featureGate: { featureSet: 7 } } } }))
      .toThrow('spec.configuration.featureGate.featureSet: expected string, got number');
    expect(() => decodeHostedControlPlane({ ...hcp, metadata: { name: 'x' } })).toThrow('metadata.namespace: expected string');
  });
});

describe('an HCP key', () => {
  it('names its namespace: the part before the first slash (the name may not hold one, a namespace cannot)', () => {
    expect(hcpNamespace(hcpKey({ metadata: { namespace: 'clusters-a', name: 'a' } }))).toBe('clusters-a');
    expect(hcpNamespace('clusters-b/b/odd')).toBe('clusters-b');
    expect(hcpNamespace('no-slash')).toBe('no-slash');
  });
});

describe('the payload catalog folder of a version', () => {
  it('is release-X.Y for X.Y.Z and its pre-release and build forms', () => {
    expect(releaseFolder('4.22.3')).toBe('release-4.22');
    expect(releaseFolder('5.0.0-ec.2')).toBe('release-5.0');
    expect(releaseFolder('4.23.0-0.nightly-2026-11-01-000000')).toBe('release-4.23');
    expect(() => releaseFolder('next')).toThrow('unparsable version "next"');
  });
});

describe('the feature-gate ConfigMap', () => {
  const desired: ConfigMap = { metadata: { name: 'feature-gate', namespace: 'n', annotations: { 'hypershift.openshift.io/payload-version': '4.22.0' } }, data: { 'feature-gate.yaml': 'X' } };

  it('keeps keys, labels and annotations others wrote, and replaces ours', () => {
    const stored: ConfigMap = { metadata: { name: 'feature-gate', namespace: 'n', resourceVersion: '7', labels: { l: '1' }, annotations: { other: 'o', 'hypershift.openshift.io/payload-version': '4.21.0' } }, data: { 'feature-gate.yaml': 'OLD', extra: 'e' } };
    expect(configMapCarries(stored, desired)).toBe(false);
    const merged = mergeConfigMap(stored, desired);
    expect(merged).toEqual({
      metadata: { name: 'feature-gate', namespace: 'n', resourceVersion: '7', labels: { l: '1' }, annotations: { other: 'o', 'hypershift.openshift.io/payload-version': '4.22.0' } },
      data: { 'feature-gate.yaml': 'X', extra: 'e' },
    });
    expect(configMapCarries(merged, desired)).toBe(true);
    expect(configMapCarries(undefined, desired)).toBe(false);
  });
});

describe('status records', () => {
  it('are keyed by namespace_name in a ConfigMap per shard', () => {
    expect(recordKey('clusters-a/a')).toBe('clusters-a_a');
    expect(shardName(7)).toBe('featuregates-hosted-shard-07'); // the Lease and the record ConfigMap
    expect([shardName(7), shardName(123), 'featuregates-hosted-shard-', 'featuregates-hosted-shard-07x', 'featuregates-hosted-member-a'].map(isShardName))
      .toEqual([true, true, false, false, false]);
  });

  it('decode back, and a malformed one becomes a line that says so', () => {
    const rs = decodeShardRecords({
      'clusters-a_a': JSON.stringify({ hcp: 'clusters-a/a', shard: 3, owner: 'r1', featureSet: 'Default', versions: ['4.22.0'], desiredVersion: '4.22.0', upgradeable: 'True', lastSync: '2026-12-01T00:00:00.000Z' }),
      'clusters-b_b': '{not json',
    }, 'configmap ns/featuregates-hosted-shard-03');
    expect(rs[0]).toEqual({ hcp: 'clusters-a/a', shard: 3, owner: 'r1', featureSet: 'Default', versions: ['4.22.0'], desiredVersion: '4.22.0', upgradeable: 'True', lastSync: '2026-12-01T00:00:00.000Z' });
    expect(rs[1]).toMatchObject({ hcp: 'clusters-b/b', shard: -1 });
    expect(rs[1]?.lastError).toMatch(/^unreadable record: /);
  });

  it('print one line per HCP, sorted, with wide adding the shard, versions and the running-gate detail', () => {
    const records = [
      { hcp: 'z/z', shard: 1, owner: 'r2', featureSet: 'TechPreviewNoUpgrade', versions: ['4.23.0', '4.22.0'], desiredVersion: '4.23.0', upgradeable: 'False: FeatureGates_RestrictedFeatureGates_TechPreviewNoUpgrade',
        runningGates: 'mismatch (2): KMSv1, SELinuxMount', lastSync: 't1' },
      { hcp: 'a/a', shard: 0, owner: '', featureSet: 'Default', versions: [], lastError: 'HostedControlPlane a/a has no status.kubeConfig' },
      { hcp: 'm/m', shard: 2, owner: 'r1', featureSet: 'Default', versions: ['4.22.0'], runningGates: 'unreadable: forbidden: GET /metrics: 403', lastSync: 't2' },
    ];
    expect(hostedStatusTable(records)).toBe([
      'HOSTED CONTROL PLANE  DESIRED  FEATURE SET           ENTRIES  UPGRADEABLE                                                      RUNNING GATES  OWNER  LAST SYNC  LAST ERROR',
      'a/a                   -        Default               0        -                                                                -              -      never      HostedControlPlane a/a has no status.kubeConfig',
      'm/m                   -        Default               1        -                                                                unreadable     r1     t2         -',
      'z/z                   4.23.0   TechPreviewNoUpgrade  2        False: FeatureGates_RestrictedFeatureGates_TechPreviewNoUpgrade  mismatch (2)   r2     t1         -',
      '',
    ].join('\n'));
    expect(hostedStatusTable(records, true).split('\n')[3]).toMatch(/ - +1 +4\.23\.0,4\.22\.0 +mismatch \(2\): KMSv1, SELinuxMount$/);
  });
});

describe('guest spec and version', () => {
  it('treats an absent feature set as Default, as the API server does', () => {
    expect(sameFeatureGateSpec({}, { featureSet: '' })).toBe(true);
    expect(sameFeatureGateSpec({}, { featureSet: 'TechPreviewNoUpgrade' })).toBe(false);
    expect(sameFeatureGateSpec({ featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: ['A'] } },
      { featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: ['A'], disabled: [] } })).toBe(true);
    expect(sameFeatureGateSpec({ featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: ['A'] } },
      { featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: ['B'] } })).toBe(false);
  });

  it('the desired version is ClusterVersion status.desired, else the newest history entry', () => {
    const cv = (desired: string | undefined, history: string[]) => ({
      apiVersion: 'config.openshift.io/v1' as const, kind: 'ClusterVersion' as const, metadata: { name: 'version' }, spec: { clusterID: 'x' },
      status: { ...(desired !== undefined ? { desired: { version: desired, image: '' } } : {}), history: history.map((version) => ({ version, state: 'Completed', startedTime: '', completionTime: null, image: '', verified: false })) },
    });
    expect(guestDesiredVersion(cv('4.23.0', ['4.22.0']))).toBe('4.23.0');
    expect(guestDesiredVersion(cv('', ['4.22.0']))).toBe('4.22.0');
    expect(guestDesiredVersion(cv(undefined, []))).toBeUndefined();
    expect(guestDesiredVersion(undefined)).toBeUndefined();
  });
});

describe('names and flags', () => {
  it('member Lease names are DNS-1123 whatever the identity', () => {
    expect(memberLeaseName('Coordinator_0@host')).toBe('featuregates-hosted-member-coordinator-0-host');
    expect(memberLeaseName('featuregates-hosted-7d9f-abcde')).toBe('featuregates-hosted-member-featuregates-hosted-7d9f-abcde');
  });

  it('held Leases are renewed every third of the lease duration when a retry still fits before the deadline', () => {
    expect(renewInterval({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 })).toBe(5_000);
    expect(renewInterval({ leaseDurationMs: 137_000, renewDeadlineMs: 107_000, retryPeriodMs: 26_000 })).toBe(45_666);
    expect(renewInterval({ leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 1_000 })).toBe(1_333);
    // 5 s + a 2 s retry does not fit before a 6 s deadline: client-go's cadence stays.
    expect(renewInterval({ leaseDurationMs: 15_000, renewDeadlineMs: 6_000, retryPeriodMs: 2_000 })).toBe(2_000);
  });

  it('--guest-kubeconfig-secret takes NAME or NAME:KEY', () => {
    expect(secretFlag('service-network-admin-kubeconfig')).toEqual({ name: 'service-network-admin-kubeconfig' });
    expect(secretFlag('s:kubeconfig')).toEqual({ name: 's', key: 'kubeconfig' });
    expect(() => secretFlag('s:')).toThrow('--guest-kubeconfig-secret: expected NAME or NAME:KEY, got "s:"');
    expect(() => secretFlag('a:b:c')).toThrow('expected NAME or NAME:KEY');
  });
});
