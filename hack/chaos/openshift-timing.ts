// Chaos: with OpenShift's lease timing (137 s / 107 s / 26 s), kube-apiserver down for 60 s. The leader
// must neither exit nor lose the Lease (same holder, no new transition), and catches up afterwards.
import {
  Figures, OPENSHIFT_TIMING_ARGS, converged, injectStaleEntry, onChaosCluster, readLease, secs, sleep, until, type ScenarioResult,
} from './lib.js';

export async function openshiftTimingOutage(o: { downMs: number }): Promise<ScenarioResult> {
  const f = new Figures();
  return onChaosCluster({}, async ({ plane, kc, operator }) => {
    const op = operator(plane.kubeconfigPath, OPENSHIFT_TIMING_ARGS);
    await until('first status', () => converged(kc), 60_000);
    const before = await readLease(kc, 5000);
    await plane.stopAPIServer();
    await sleep(o.downMs);
    await plane.startAPIServer();
    await injectStaleEntry(kc, '4.20.1');
    const caughtUp = await until('status after the outage', () => converged(kc), 30_000).catch(() => Infinity);
    await sleep(30_000); // past the next renewals: a leader that had given up would be gone by now
    const after = await readLease(kc, 5000);
    const same =
      before !== undefined &&
      after !== undefined &&
      after.spec?.holderIdentity === before.spec?.holderIdentity &&
      after.spec?.leaseTransitions === before.spec?.leaseTransitions;
    f.add(`leader after ${secs(o.downMs)} of kube-apiserver downtime`, op.exited() ? 'exited' : 'running', 'running', !op.exited());
    f.add('Lease holder and transitions unchanged', same ? `yes (${after?.spec?.leaseTransitions ?? 0} transitions)` : `no: ${JSON.stringify(before?.spec)} → ${JSON.stringify(after?.spec)}`, 'yes', same);
    f.add('status caught up after the outage', Number.isFinite(caughtUp) ? secs(caughtUp) : 'no', '≤ 5 s', caughtUp <= 5000);
    return { name: 'OpenShift lease timing, kube-apiserver down', figures: f.list };
  });
}
