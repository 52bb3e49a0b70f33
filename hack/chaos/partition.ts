// Chaos: a silent partition. The operator reaches kube-apiserver through a loopback proxy that, with a
// status write in flight, stops forwarding anything in either direction (connections stay open: no RST,
// no FIN). Meanwhile the state changes behind its back. Measured: how long a controller is held by the
// write in flight (workqueue_longest_running_processor_seconds), status reconverged after heal, no exit
// (OpenShift lease timing, which rides out the partition), and `featuregates status` through the black
// hole failing on its own within 30 s.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../sdk/testing/index.js';
import { startBlackholeProxy } from './blackhole-proxy.js';
import {
  Figures, OPENSHIFT_TIMING_ARGS, converged, injectStaleEntry, onChaosCluster, scrape, secs, sleep, until, writeKubeconfigFor,
  type ScenarioResult,
} from './lib.js';

export async function silentPartition(o: { partitionMs: number }): Promise<ScenarioResult> {
  const f = new Figures();
  return onChaosCluster({}, async ({ plane, kc, operator }) => {
    const proxy = await startBlackholeProxy(Number(new URL(plane.server).port));
    try {
      const viaProxy = writeKubeconfigFor(`https://127.0.0.1:${proxy.port}`, readFileSync(plane.kubeconfigPath, 'utf8'), join(plane.dir, 'kubeconfig-proxy'));
      const op = operator(viaProxy, OPENSHIFT_TIMING_ARGS);
      await until('first status', () => converged(kc), 60_000);
      await sleep(2000);

      // A change the operator sees and answers with a PUT — which the partition swallows.
      const partitioned = proxy.blackholeOnNextRequest();
      await injectStaleEntry(kc, '4.20.1');
      await partitioned;
      const t0 = performance.now();
      let longest = 0;
      let step = 1;
      while (performance.now() - t0 < o.partitionMs) {
        longest = Math.max(longest, await scrape(op, 'workqueue_longest_running_processor_seconds', {}, 'max'));
        if (step < 5) await injectStaleEntry(kc, `4.20.${++step}`); // the world moves on behind the partition
        await sleep(500);
      }
      proxy.heal();
      const healed = await until('status reconverged after heal', () => converged(kc), 90_000, 100).catch(() => Infinity);
      const running = !op.exited();
      f.add('longest any controller was held by a request (write in flight)', `${longest.toFixed(1)} s`, '≤ 10 s request timeout (+1 s sampling)', longest <= 11);
      f.add(`status reconverged after a ${secs(o.partitionMs)} partition healed`, Number.isFinite(healed) ? secs(healed) : 'never (90 s)', '≤ 60 s', healed <= 60_000);
      f.add('operator still running (OpenShift lease timing)', running ? 'yes' : 'no', 'yes', running);

      proxy.blackhole();
      const t1 = performance.now();
      const r = spawnSync(process.execPath, [join(packageRoot(), 'dist', 'cli', 'featuregates.js'), 'status', '--kubeconfig', viaProxy],
        { encoding: 'utf8', timeout: 60_000 });
      const took = performance.now() - t1;
      const clear = /no answer from the API server within 15000 ms/.test(r.stderr);
      f.add('`featuregates status` through the black hole', `exit ${r.status} after ${secs(took)}`, 'non-zero within 30 s', r.status !== 0 && r.status !== null && took <= 30_000);
      f.add('… with a message that says what happened', JSON.stringify(r.stderr.trim().slice(0, 140)), 'names the timeout', clear);
      return { name: 'silent partition (loopback proxy that drops everything)', figures: f.list };
    } finally {
      await proxy.close();
    }
  });
}
