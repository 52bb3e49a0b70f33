// The pure core of `verify`: the gauge's lines, /flagz's --feature-gates value, Kubernetes' lifecycle file,
// and the verdicts (absent is never "disabled").
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { emulationSample, featureEnabledSample, gateChecks, parseFeatureGatesFlag, startableGates } from '../../api-types/index.js';
import { kubernetesGateLifecycle, type ClusterAccess } from '../../runtime/index.js';
import { runningGatesController } from '../../controllers/running-gates.js';
// @ts-expect-error: a plain ESM script of hack/, no types
import { moduleDir } from '../../hack/update-gate-rules.mjs';

describe('gates that run', () => {
  it('reads the gauge\'s lines and nothing else', () => {
    expect(featureEnabledSample('kubernetes_feature_enabled{name="APIResponseCompression",stage="BETA"} 1')).toEqual({ name: 'APIResponseCompression', stage: 'BETA', enabled: true });
    expect(featureEnabledSample('kubernetes_feature_enabled{stage="",name="X"} 0')).toEqual({ name: 'X', stage: '', enabled: false });
    expect(featureEnabledSample('# HELP kubernetes_feature_enabled …')).toBeUndefined();
    expect(featureEnabledSample('kubernetes_feature_enabled{stage="ALPHA"} 1')).toBeUndefined();
  });

  it('reads the emulated version from the version_info gauge (components without /version), the kube component only', () => {
    expect(emulationSample('version_info{binary="1.36.3",component="kube",emulation="1.35",min_compat="1.34"} 1')).toEqual({ major: 1, minor: 35 });
    expect(emulationSample('version_info{binary="1.36.3",component="kube",emulation="1.36.0",min_compat="1.35"} 1')).toEqual({ major: 1, minor: 36 });
    expect(emulationSample('version_info{binary="0.1",component="wardle",emulation="0.1",min_compat="0.1"} 1')).toBeUndefined();
    expect(emulationSample('version_info{component="kube",emulation="next"} 1')).toBeUndefined();
    expect(emulationSample('# TYPE version_info gauge')).toBeUndefined();
  });

  it('the local kube-apiserver is given only the gates Kubernetes\' rules let it start with: no OpenShift names, no lock broken, no dependency broken', () => {
    const { gates, left } = startableGates({ kubernetesVersion: '1.36', gates: new Map([
      ['OpenShiftPodSecurityAdmission', true], // OpenShift's: a vanilla kube-apiserver would refuse to start
      ['NodeSwap', false], // GA, locked on since 1.34: refused at start
      ['ExecProbeTimeout', true], // locked on, and asked on: accepted
      ['APIServingWithRoutine', true],
      ['APIResponseCompression', false],
      ['ClusterTrustBundleProjection', true], // needs ClusterTrustBundle, off by default: the dependent's own setting goes
      ['WatchListClient', true],
      ['GracefulNodeShutdown', false], // on-by-default dependents need it: the dependency's =false goes
    ]) });
    expect([...gates]).toEqual([['ExecProbeTimeout', true], ['APIServingWithRoutine', true], ['APIResponseCompression', false], ['WatchListClient', true]]);
    expect(left.map((p) => `${p.kind}:${p.gate}`)).toEqual(['locked:NodeSwap', 'unknown:OpenShiftPodSecurityAdmission',
      'dependency:ClusterTrustBundleProjection', 'dependency:GracefulNodeShutdown']);
  });

  it('reads a --feature-gates value as /flagz shows it', () => {
    expect([...parseFeatureGatesFlag(':APIResponseCompression=false,kube:B=true, C=maybe,D')]).toEqual([['APIResponseCompression', false], ['B', true]]);
    expect(parseFeatureGatesFlag('').size).toBe(0);
  });

  it('tells a gate absent at the emulated version from one the binary does not have', () => {
    const lifecycle = new Map([['Old', { major: 1, minor: 20 }], ['New', { major: 1, minor: 36 }]]);
    const checks = gateChecks({
      desired: [{ name: 'Old', enabled: true }, { name: 'New', enabled: true }, { name: 'OpenShiftOnly', enabled: false }, { name: 'Forced', enabled: true }],
      running: new Map([['Old', true], ['Forced', false]]), lifecycle, emulated: { major: 1, minor: 35 }, overrides: new Map([['Forced', false]]),
    });
    expect(checks.map((c) => [c.name, c.running, c.verdict])).toEqual([
      ['Old', true, 'match'], ['New', null, 'not-at-emulated-version'], ['OpenShiftOnly', null, 'not-in-component'], ['Forced', false, 'overridden'],
    ]);
    // Without an emulated version to compare, an absent gate is only "not in component" — never a mismatch.
    expect(gateChecks({ desired: [{ name: 'New', enabled: true }], running: new Map(), lifecycle })[0]!.verdict).toBe('not-in-component');
  });

  it('knows since when each gate exists from the generated rules, as Kubernetes\' own lifecycle file of the release hack/envtest builds says', () => {
    const version = /k8s\.io\/kubernetes (v\S+)/.exec(readFileSync(join('hack', 'envtest', 'go.mod'), 'utf8'))![1]!;
    const upstream = parse(readFileSync(join(moduleDir(version), 'test/compatibility_lifecycle/reference/versioned_feature_list.yaml'), 'utf8')) as
      { name: string; versionedSpecs: { version: string }[] }[];
    const lifecycle = kubernetesGateLifecycle();
    expect(upstream.length).toBe(230);
    for (const gate of upstream) {
      const [major, minor] = gate.versionedSpecs.map((s) => s.version.split('.').map(Number) as [number, number])
        .sort((a, b) => a[0] - b[0] || a[1] - b[1])[0]!;
      expect([gate.name, lifecycle.get(gate.name)]).toEqual([gate.name, { major, minor }]);
    }
    expect(lifecycle.get('DRAListTypeAttributes')).toEqual({ major: 1, minor: 36 });
  });

  it('the operator\'s check asks for the lifecycle only once it has something to check (not at start, before the first status write)', async () => {
    let reads = 0;
    const none = { get: () => undefined, addListener: () => () => undefined };
    const spec = runningGatesController({
      kubeConfig: { server: 'https://127.0.0.1:1', auth: {} } as unknown as ClusterAccess, featureGates: none, clusterVersions: none,
      lifecycle: () => { reads++; return new Map(); }, events: { event: () => undefined, flush: async () => undefined },
    });
    expect(reads).toBe(0);
    await spec.reconcile('kube-apiserver', new AbortController().signal);   // no ClusterVersion, no status entry: nothing to check
    expect(reads).toBe(0);
  });

  it('with minIntervalMs, a second trigger within the interval waits instead of reading again (a guest rewriting its status)', async () => {
    const outcomes: unknown[] = [];
    const cv = { metadata: { name: 'version' }, status: { desired: { version: '4.22.0' }, history: [{ version: '4.22.0', state: 'Completed' }] } };
    const fg = { metadata: { name: 'cluster' }, spec: {}, status: { featureGates: [{ version: '4.22.0', enabled: [{ name: 'A' }], disabled: [] }] } };
    const spec = runningGatesController({
      // Nothing listens there: each read fails at once, as "unreadable".
      kubeConfig: { getCurrentCluster: () => ({ server: 'https://127.0.0.1:9' }), getCurrentUser: () => ({}) } as unknown as ClusterAccess,
      featureGates: { get: () => fg as never, addListener: () => () => undefined },
      clusterVersions: { get: () => cv as never, addListener: () => () => undefined },
      lifecycle: () => new Map(), events: { event: () => undefined, flush: async () => undefined },
      minIntervalMs: 60_000, onChecked: (o) => outcomes.push(o),
    });
    await spec.reconcile('kube-apiserver', new AbortController().signal);
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).toMatchObject({ error: expect.stringMatching(/^unreachable: GET \/metrics: /) });
    const again = await spec.reconcile('kube-apiserver', new AbortController().signal);
    expect(outcomes).toHaveLength(1);
    expect((again as { requeueAfterMs: number }).requeueAfterMs).toBeGreaterThan(50_000);
  });
});

