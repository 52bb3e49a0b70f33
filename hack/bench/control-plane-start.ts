// Benchmark: local control plane start (etcd + kube-apiserver ready + our three CRDs served), 5 runs.
//   npm run bench -- control-plane-start
import { bundledCRDPaths, startControlPlane } from '../../sdk/testing/index.js';
import { median, ms, nowMs } from './stats.js';

const RUNS = Number(process.env.RUNS ?? 5);
const samples: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const t0 = nowMs();
  const plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
  samples.push(nowMs() - t0);
  await plane.stop();
}
console.log(`control plane start (ready + 3 CRDs served), ${RUNS} runs: median ${ms(median(samples))}, ` +
  `min ${ms(Math.min(...samples))}, max ${ms(Math.max(...samples))}`);
