// Benchmark: "ClusterVersion change → FeatureGate status visible to a watcher" through the operator process,
// against the raw "PUT /status → watch event" round trip on the same control plane in the same run.
//   npm run bench -- status-latency         (N=200 changes, RUNS=3; operator as in operator-process.ts)
// Goal (issue 12): operator p50 ≤ 1.2× and p99 ≤ 1.5× the raw path's. Also timed: a minimal relay in this
// process in place of the operator (status-change.ts), the floor of any controller on this path.
import { startBenchCluster } from './bench-cluster.js';
import { describeOperator, exited } from './operator-process.js';
import { operatorChange, rawWrite, startRelay } from './status-change.js';
import { median, ms, percentile, spread } from './stats.js';

const N = Number(process.env.N ?? 200);
const RUNS = Number(process.env.RUNS ?? 3);
const cluster = await startBenchCluster();
const { kc, watcher, fgs } = cluster;

interface Run { opP50: number; opP99: number; rawP50: number; rawP99: number; relayP50: number; relayP99: number }
const runs: Run[] = [];
for (let r = 1; r <= RUNS; r++) {
  // Each run starts from an empty status, so the operator's first write says it is running.
  const { proc: op } = await cluster.startOperator();
  // Interleaved, so drift on a shared machine hits both paths alike.
  const opSamples: number[] = [];
  const rawSamples: number[] = [];
  for (let i = 0; i < N; i++) {
    opSamples.push(await operatorChange(kc, fgs, watcher, r * 1000 + i));
    rawSamples.push(await rawWrite(kc, fgs, watcher, r * 1000 + i));
  }
  op.kill('SIGTERM');
  await exited(op);
  const relay = await startRelay(kc, fgs, watcher);
  const relaySamples: number[] = [];
  for (let i = 0; i < N; i++) relaySamples.push(await operatorChange(kc, fgs, watcher, r * 1000 + N + i));
  await relay.stop();
  const run = {
    opP50: median(opSamples), opP99: percentile(opSamples, 99), rawP50: median(rawSamples), rawP99: percentile(rawSamples, 99),
    relayP50: median(relaySamples), relayP99: percentile(relaySamples, 99),
  };
  runs.push(run);
  console.error(`run ${r}/${RUNS}: ${JSON.stringify(run)}`);
}
await cluster.stop();
const f = (pick: (r: Run) => number, fmt: (n: number) => string) => spread(runs.map(pick), fmt);
const x = (n: number) => `${n.toFixed(2)}×`;
console.log(`${describeOperator()}, ${N} changes per run, ${RUNS} runs (min / median / max)`);
console.log(`operator: ClusterVersion change → status seen: p50 ${f((r) => r.opP50, ms)}, p99 ${f((r) => r.opP99, ms)}`);
console.log(`raw PUT /status → watch event:               p50 ${f((r) => r.rawP50, ms)}, p99 ${f((r) => r.rawP99, ms)}`);
console.log(`minimal relay (a watch + PUT, no operator):      p50 ${f((r) => r.relayP50, ms)}, p99 ${f((r) => r.relayP99, ms)}`);
console.log(`ratio to raw: p50 ${f((r) => r.opP50 / r.rawP50, x)} (goal ≤ 1.2×), p99 ${f((r) => r.opP99 / r.rawP99, x)} (goal ≤ 1.5×)`);
console.log(`ratio to the minimal relay: p50 ${f((r) => r.opP50 / r.relayP50, x)}, p99 ${f((r) => r.opP99 / r.relayP99, x)}; relay to raw: p50 ${f((r) => r.relayP50 / r.rawP50, x)}`);
