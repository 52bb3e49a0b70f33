// Chaos: with OpenShift's lease timing (137 s / 107 s / 26 s), kube-apiserver down for 60 s. The leader
// must neither exit nor lose the Lease (same holder, no new transition), and catches up afterwards.
import { KubeTransport } from '../../runtime/index.js';
import { bundledCRDPaths, setClusterVersion, setFeatureGateSpec, startControlPlane } from '../../sdk/testing/index.js';
import { Figures, OPERATOR_VERSION, converged, injectStaleEntry, secs, sleep, spawnOperator, until, type OperatorProcess, type ScenarioResult } from './lib.js';

interface LeaseView { spec?: { holderIdentity?: string; leaseTransitions?: number } }

export async function openshiftTimingOutage(o: { downMs: number }): Promise<ScenarioResult> {
  const f = new Figures();
  const plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
  const kc = plane.kubeConfig;
  const lease = async () => await KubeTransport.for(kc).request({
    method: 'GET', path: '/apis/coordination.k8s.io/v1/namespaces/default/leases/config-operator-lock', timeoutMs: 5000,
  }) as LeaseView;
  let op: OperatorProcess | undefined;
  try {
    await setFeatureGateSpec(kc, {});
    await setClusterVersion(kc, { history: [OPERATOR_VERSION] });
    op = spawnOperator(plane.kubeconfigPath, ['--leader-elect-lease-duration', '137s', '--leader-elect-renew-deadline', '107s', '--leader-elect-retry-period', '26s']);
    await until('first status', () => converged(kc), 60_000);
    const before = await lease();
    await plane.stopAPIServer();
    await sleep(o.downMs);
    await plane.startAPIServer();
    await injectStaleEntry(kc, '4.20.1');
    const caughtUp = await until('status after the outage', () => converged(kc), 30_000).catch(() => Infinity);
    await sleep(30_000); // past the next renewals: a leader that had given up would be gone by now
    const after = await lease();
    const same = after.spec?.holderIdentity === before.spec?.holderIdentity && after.spec?.leaseTransitions === before.spec?.leaseTransitions;
    f.add(`leader after ${secs(o.downMs)} of kube-apiserver downtime`, op.exited() ? 'exited' : 'running', 'running', !op.exited());
    f.add('Lease holder and transitions unchanged', same ? `yes (${after.spec?.leaseTransitions ?? 0} transitions)` : `no: ${JSON.stringify(before.spec)} → ${JSON.stringify(after.spec)}`, 'yes', same);
    f.add('status caught up after the outage', Number.isFinite(caughtUp) ? secs(caughtUp) : 'no', '≤ 5 s', caughtUp <= 5000);
    return { name: 'OpenShift lease timing, kube-apiserver down', figures: f.list };
  } finally {
    op?.proc.kill('SIGKILL');
    await plane.stop();
  }
}
