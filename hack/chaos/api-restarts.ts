// Chaos: kube-apiserver restarted N times during ClusterVersion churn (a change every 200 ms, plus a stale
// FeatureGate status entry injected each time, which the operator must prune), then etcd stopped.
// Per outage: recovery (API server ready → FeatureGate status correct again), PUT conflicts (409), crashes.
// The restarts run with client-go's default lease timing; the etcd outage (longer than its 10 s renew
// deadline, which would correctly make any leader step down) with OpenShift's timing, as deployed there.
import { setClusterVersion } from '../../sdk/testing/index.js';
import {
  Figures,
  OPENSHIFT_TIMING_ARGS,
  OPERATOR_VERSION,
  converged,
  injectStaleEntry,
  onChaosCluster,
  operatorFailedLines,
  percentile,
  putConflicts,
  secs,
  sleep,
  statusVersions,
  until,
  type ScenarioResult,
} from './lib.js';

export interface ApiRestartsOptions {
  restarts: number;
  etcdOutageMs: number;
  churnMs?: number;
}

export async function apiServerRestarts(o: ApiRestartsOptions): Promise<ScenarioResult> {
  const f = new Figures();
  return onChaosCluster({}, async ({ plane, kc, operator, operators }) => {
    let churning = true;
    try {
      let op = operator();
      await until('first status', () => converged(kc), 60_000);
      let step = 0;
      const churn = (async () => {
        while (churning) {
          step++;
          await Promise.all([setClusterVersion(kc, { history: [OPERATOR_VERSION, `4.21.${step}`] }).catch(() => undefined), injectStaleEntry(kc, `4.20.${step}`)]);
          await sleep(o.churnMs ?? 200);
        }
      })();

      const outage = async (label: string, down: () => Promise<void>, up: () => Promise<void>) => {
        const before = await putConflicts(op);
        await down();
        await up();
        const readyAt = performance.now();
        // The API server answers again: make sure there is fresh work, then wait for the operator to do it.
        await until(`${label}: a write after ready`, async () => injectStaleEntry(kc, `4.19.${step}`), 30_000, 20);
        await until(`${label}: status correct`, () => converged(kc), 60_000, 25);
        const recovery = performance.now() - readyAt;
        await sleep(1000);
        return { recovery, conflicts: (await putConflicts(op)) - before };
      };

      const recoveries: number[] = [];
      const conflicts: number[] = [];
      for (let i = 0; i < o.restarts; i++) {
        await sleep(1500);
        const r = await outage(`restart ${i + 1}`, () => plane.stopAPIServer(), () => plane.startAPIServer());
        recoveries.push(r.recovery);
        conflicts.push(r.conflicts);
        process.stderr.write(`[chaos] restart ${i + 1}/${o.restarts}: recovered ${secs(r.recovery)} after ready, ${r.conflicts} conflicts\n`);
      }
      const restartCrashes = operators.filter((p) => p.exited()).length;
      f.add(`kube-apiserver restarts reconverged`, `${recoveries.length}/${o.restarts}`, `${o.restarts}/${o.restarts}`, recoveries.length === o.restarts);
      f.add('recovery after ready (max / median)', `${secs(Math.max(...recoveries))} / ${secs(percentile(recoveries, 50))}`, '≤ 5 s every time', Math.max(...recoveries) <= 5000);
      f.add('409 conflicts per restart (max)', Math.max(...conflicts), '≤ 20', Math.max(...conflicts) <= 20);
      f.add('operator exits during restarts', restartCrashes, '0', restartCrashes === 0);

      if (o.etcdOutageMs > 0) {
        op.proc.kill('SIGTERM');
        await op.exit;
        op = operator(plane.kubeconfigPath, OPENSHIFT_TIMING_ARGS);
        await until('status after switching to OpenShift timing', () => converged(kc), 60_000);
        const r = await outage('etcd outage', async () => { await plane.stopEtcd(); await sleep(o.etcdOutageMs); }, async () => {
          await plane.startEtcd();
          await until('API server answers again', async () => (await statusVersions(kc)) !== undefined, 60_000, 50);
        });
        process.stderr.write(`[chaos] etcd down ${secs(o.etcdOutageMs)}: recovered ${secs(r.recovery)} after ready, ${r.conflicts} conflicts\n`);
        f.add(`etcd stopped ${secs(o.etcdOutageMs)}: recovery after ready`, secs(r.recovery), '≤ 5 s', r.recovery <= 5000);
        f.add('etcd outage: 409 conflicts', r.conflicts, '≤ 20', r.conflicts <= 20);
        f.add('etcd outage: operator exits', op.exited() ? 1 : 0, '0', !op.exited());
      }
      const failed = operatorFailedLines(operators);
      f.add('"operator failed" log lines', failed, '0', failed === 0);
      churning = false;
      await churn;
      return { name: 'kube-apiserver restarts and etcd outage during churn', figures: f.list };
    } finally {
      churning = false; // the churn loop must not outlive the plane, even when a step above failed
    }
  });
}
