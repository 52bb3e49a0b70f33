// The operator given a spec its cluster's components would refuse to start with (issue 45) — applied before the
// admission guard, or with it off. What it decides (controllers/gates-that-start.ts): the status entry is still
// written (the applied choice; withholding the new version's entry would leave that version's components waiting),
// but never silently — the ClusterOperator is Degraded naming each gate, rule and fix, a Warning Event, and the
// gauge featuregates_gates_refused. Fixing the spec clears all three. A real API server (v1.36.3: its /version chooses
// the rules), the release-4.23 payload.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { ClusterOperatorResource, EventResource, FeatureGateResource, ResourceClient } from '../../runtime/index.js';
import { startOperator, type RunningOperator } from '../../controllers/manager.js';
import { bundledCRDPaths, setClusterVersion, setFeatureGateSpec, startControlPlane, type ControlPlane } from '../../sdk/testing/index.js';
import { runCLI } from '../support/cli.js';
import { eventually } from '../support/timing.js';
import { PAYLOAD_ROOT } from '../support/payloads.js';

describe('the operator and a spec the components would refuse', () => {
  let plane: ControlPlane;
  let op: RunningOperator | undefined;

  beforeAll(async () => {
    plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
    await setClusterVersion(plane.kubeConfig, { history: ['4.23.0'] });
  }, 120_000);
  afterAll(async () => {
    await op?.stop();
    await plane?.stop();
  });

  it('writes the entry, and says so: Degraded naming gate, rule and fix, a Warning Event, the gauge; a fixed spec clears them', async () => {
    await setFeatureGateSpec(plane.kubeConfig, { featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: [], disabled: ['ServiceAccountTokenNodeBinding'] } });
    op = await startOperator({
      kubeConfig: plane.kubeConfig, operatorVersion: '4.23.0', featureGateDir: join(PAYLOAD_ROOT, 'releases', 'release-4.23'),
      metricsBindAddress: '0', healthProbeBindAddress: '0', degradedInertiaMs: 0, reflector: { backoffInitialMs: 100, backoffMaxMs: 1000 },
    });
    const fgs = new ResourceClient(plane.kubeConfig, FeatureGateResource);
    const degraded = async () => (await new ResourceClient(plane.kubeConfig, ClusterOperatorResource).get('config-operator')).status?.conditions?.find((c) => c.type === 'Degraded');
    const gauge = async () => Number((await op!.metrics.metrics()).split('\n').find((l) => l.startsWith('featuregates_gates_refused '))?.split(' ')[1]);
    await eventually(async () => {
      const entry = (await fgs.get('cluster')).status?.featureGates[0];
      expect(entry?.version).toBe('4.23.0');
      expect(entry?.disabled.map((g) => g.name)).toContain('ServiceAccountTokenNodeBinding');
      expect(await degraded()).toMatchObject({ status: 'True', reason: 'GatesThatStart_GatesRefusedByComponents' });
      expect((await degraded())?.message).toContain('GatesThatStartDegraded: ServiceAccountTokenNodeBinding (locked): ' +
        'cannot set feature gate ServiceAccountTokenNodeBinding to false, feature is locked to true; drop ServiceAccountTokenNodeBinding=false');
      expect(await gauge()).toBe(1);
    }, 30_000, 200);
    await eventually(async () => {
      const events = await new ResourceClient(plane.kubeConfig, EventResource, undefined, { namespace: 'openshift-config-operator' }).list().catch(() => ({ items: [] }));
      const all = [...events.items, ...(await new ResourceClient(plane.kubeConfig, EventResource).list()).items];
      expect(all.some((e) => (e as { reason?: string }).reason === 'FeatureGatesRefusedByComponents')).toBe(true);
    }, 20_000, 200);
    // `featuregates status` and `featuregates preflight` on the cluster say it too (4.23 is not in the built-in map: the
    // API server's /version chooses the rules).
    const status = runCLI(['status', '--kubeconfig', plane.kubeconfigPath]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('Starts:       NO — kube-apiserver, kube-controller-manager, kube-scheduler, kubelet would refuse 4.23.0\'s gates on ' +
      'Kubernetes 1.36.3 (the API server\'s /version)');
    expect(status.stdout).toContain('ServiceAccountTokenNodeBinding (locked): cannot set feature gate ServiceAccountTokenNodeBinding to false, feature is locked to true');
    const json = JSON.parse(runCLI(['status', '--kubeconfig', plane.kubeconfigPath, '-o', 'json']).stdout) as { gatesThatStart: { starts: boolean; problems: { gate: string; kind: string }[] } };
    expect(json.gatesThatStart).toMatchObject({ starts: false, problems: [{ gate: 'ServiceAccountTokenNodeBinding', kind: 'locked' }] });
    const pre = runCLI(['preflight', '--kubeconfig', plane.kubeconfigPath, '-o', 'json']);
    expect(pre.code).toBe(1);
    expect(pre.stderr).toContain('the gates of FeatureGate/cluster\'s entry for 4.23.0, at Kubernetes 1.36.3 (the API server\'s /version)');
    expect(
      (JSON.parse(pre.stdout) as { components: { starts: boolean; problems: { gate: string }[] }[] }).components.map((c) => [
        c.starts,
        c.problems.map((p) => p.gate),
      ]),
    ).toEqual(Array(4).fill([false, ['ServiceAccountTokenNodeBinding']]));

    await setFeatureGateSpec(plane.kubeConfig, { featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: [], disabled: [] } });
    await eventually(async () => {
      expect(await degraded()).toMatchObject({ status: 'False' });
      expect(await gauge()).toBe(0);
    }, 30_000, 200);
    await eventually(async () => expect(runCLI(['status', '--kubeconfig', plane.kubeconfigPath]).stdout)
      .toContain('Starts:       yes — every component starts with 4.23.0\'s gates on Kubernetes 1.36.3 (the API server\'s /version)'), 20_000, 500);
    expect(runCLI(['preflight', '--kubeconfig', plane.kubeconfigPath, '--kubernetes-version', '1.35']).code).toBe(0);
  }, 120_000);

  it('simulate upgrade says, before it starts, that the new version\'s components would refuse the cluster\'s gates', async () => {
    await op?.stop();
    op = undefined;
    await setFeatureGateSpec(plane.kubeConfig, { featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: [], disabled: ['MutableCSINodeAllocatableCount'] } });
    const r = runCLI(['simulate', 'upgrade', '--to', '5.0.0', '--payload-dir', join(PAYLOAD_ROOT, 'releases', 'release-5.0'), '--kubernetes-version', '1.36',
      '--kubeconfig', plane.kubeconfigPath]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('warning: the components of 5.0.0 (Kubernetes 1.36.3) would refuse to start with the cluster\'s gates: ' +
      'MutableCSINodeAllocatableCount (locked): cannot set feature gate MutableCSINodeAllocatableCount to false, feature is locked to true');
    expect(r.stdout).toContain('ClusterVersion: upgrade to 5.0.0 started');
  }, 60_000);
});
