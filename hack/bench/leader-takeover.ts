// Benchmark: two `featuregates operator --leader-elect` processes; kill -9 the leader and time until the
// other holds the Lease. Goal: within 17 s (lease 15 s + retry 2 s).
//   npm run bench -- leader-takeover        (RUNS=5 by default; each run takes ~20 s)
import type { ChildProcess } from 'node:child_process';
import { CoordinationV1Api } from '@kubernetes/client-node';
import { bundledCRDPaths, setClusterVersion, setFeatureGateSpec, startControlPlane } from '../../sdk/testing/index.js';
import { median, ms } from './stats.js';
import { sleep, until } from '../../test/support/timing.js';
import { operatorNodeFlags, spawnOperatorProcess } from './operator-process.js';

const RUNS = Number(process.env.RUNS ?? 5);
const plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
await setFeatureGateSpec(plane.kubeConfig, {});
await setClusterVersion(plane.kubeConfig, { history: ['4.22.0'] });
const leases = plane.kubeConfig.makeApiClient(CoordinationV1Api);
const holder = async () => (await leases.readNamespacedLease({ name: 'config-operator-lock', namespace: 'default' }).catch(() => undefined))?.spec?.holderIdentity ?? '';
const start = (): ChildProcess => spawnOperatorProcess(plane.kubeconfigPath, '4.22.0', operatorNodeFlags, { args: ['--leader-elect', '--leader-election-namespace', 'default'] });

const samples: number[] = [];
let procs = [start(), start()];
for (let i = 0; i < RUNS; i++) {
  const holding = async (p: ChildProcess) => (await holder()).includes(`_${p.pid}_`);
  let leader: ChildProcess | undefined;
  await until(`run ${i + 1}: one of the two operators holds the Lease`, async () => {
    for (const p of procs) if (await holding(p)) leader = p;
    return leader !== undefined;
  }, 60_000, 100);
  await sleep(3000 + Math.random() * 2000); // land the kill anywhere in the renew cycle
  const follower = procs.find((p) => p !== leader)!;
  leader!.kill('SIGKILL');
  samples.push(await until(`run ${i + 1}: the follower takes the Lease after kill -9`, () => holding(follower), 60_000, 50));
  procs = [follower, start()];
}
for (const p of procs) p.kill('SIGKILL');
await plane.stop();
console.log(`leader take-over after kill -9, ${RUNS} runs: median ${ms(median(samples))}, min ${ms(Math.min(...samples))}, max ${ms(Math.max(...samples))}`);
