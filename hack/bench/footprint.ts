// Benchmark: what one `featuregates operator` process costs, against a bare Node process measured in the
// same run (the runtime's own floor).
//   npm run bench -- footprint              (RUNS=3 by default; one run takes ~2.5 min)
// Per run, on one local control plane with the example payload:
//  - start → first status write: process spawn until a watcher sees the operator's status entry
//    (FeatureGate status emptied before each start), median of 5 starts; baseline: `node -e ''` to exit;
//  - idle: the 5th process left running: RSS 60 s after its start, CPU seconds over the following 60 s;
//    baseline: a bare `node` process with one idle timer, RSS and CPU over the same window;
//  - scenario CPU: that same process's CPU over 100 status-changing ClusterVersion changes, 20 ClusterVersion
//    heartbeats (no write expected) and 60 s idle; and its CPU over its whole life;
//  - after work: those 60 s of idle sampled every 10 s (CPU per sample, so a decay shows) and RSS at their end,
//    beside the same process's idle minute before the work.
// The operator process as in operator-process.ts (FGC_OPERATOR_CLI, OPERATOR_NODE_FLAGS).
import { spawn } from 'node:child_process';
import { startBenchCluster } from './bench-cluster.js';
import { SCENARIO_CHANGES as CHANGES, SCENARIO_HEARTBEATS as HEARTBEATS, changeScenario } from './status-change.js';
import { describeOperator, exited, usage } from './operator-process.js';
import { median, ms, nowMs, spread } from './stats.js';
import { sleep } from '../../test/support/timing.js';

const RUNS = Number(process.env.RUNS ?? 3);
const STARTS = 5;
const IDLE_MS = 60_000;

const cluster = await startBenchCluster();
const { kc, watcher, fgs } = cluster;

async function bareNodeStartMs(): Promise<number> {
  const t0 = nowMs();
  await exited(spawn(process.execPath, ['-e', ''], { stdio: 'ignore' }));
  return nowMs() - t0;
}

interface Run {
  startMs: number;
  bareStartMs: number;
  rssMB: number;
  bareRssMB: number;
  idleCpuS: number;
  bareIdleCpuS: number;
  scenarioCpuS: number;
  processCpuS: number;
  latencyMs: number;
  afterWorkCpuS: number;
  afterWorkSamplesS: number[];
  afterWorkRssMB: number;
}

async function oneRun(): Promise<Run> {
  const starts: number[] = [];
  const bareStarts: number[] = [];
  let op!: Awaited<ReturnType<typeof cluster.startOperator>>;
  for (let i = 0; i < STARTS; i++) {
    bareStarts.push(await bareNodeStartMs());
    op = await cluster.startOperator();
    starts.push(op.startMs);
    if (i < STARTS - 1) { op.proc.kill('SIGKILL'); await exited(op.proc); }
  }
  const pid = op.proc.pid!;
  const bare = spawn(process.execPath, ['-e', 'setInterval(() => {}, 3600e3)'], { stdio: 'ignore' });
  const bareSpawnedAt = nowMs();
  await sleep(Math.max(0, op.spawnedAt + IDLE_MS - nowMs()));
  const a = usage(pid);
  await sleep(Math.max(0, bareSpawnedAt + IDLE_MS - nowMs()));
  const b = usage(bare.pid!);
  await sleep(IDLE_MS);
  const a2 = usage(pid);
  const b2 = usage(bare.pid!);
  bare.kill('SIGKILL');

  // The scenario: changes that make the operator write (prune an old version's entry), then heartbeats.
  const [latencies] = await changeScenario([{ kc, fgs, watcher }]);
  // After the work: the idle minute, sampled every 10 s.
  const afterStart = usage(pid);
  const samples: number[] = [];
  let last = afterStart;
  for (let t = 0; t < IDLE_MS; t += 10_000) {
    await sleep(10_000);
    const u = usage(pid);
    samples.push(u.cpuS - last.cpuS);
    last = u;
  }
  const end = usage(pid);
  op.proc.kill('SIGTERM');
  await exited(op.proc);
  return {
    startMs: median(starts),
    bareStartMs: median(bareStarts),
    rssMB: a.rssMB,
    bareRssMB: b.rssMB,
    idleCpuS: a2.cpuS - a.cpuS,
    bareIdleCpuS: b2.cpuS - b.cpuS,
    scenarioCpuS: end.cpuS - a2.cpuS,
    processCpuS: end.cpuS,
    latencyMs: median(latencies!),
    afterWorkCpuS: end.cpuS - afterStart.cpuS,
    afterWorkSamplesS: samples,
    afterWorkRssMB: end.rssMB,
  };
}

const runs: Run[] = [];
for (let r = 1; r <= RUNS; r++) {
  const run = await oneRun();
  runs.push(run);
  console.error(`run ${r}/${RUNS}: ${JSON.stringify(run)}`);
}
await cluster.stop();

const f = (pick: (r: Run) => number, fmt: (n: number) => string) => spread(runs.map(pick), fmt);
const s = (n: number) => `${n.toFixed(2)} s`;
const mb = (n: number) => `${n.toFixed(1)} MB`;
console.log(`${describeOperator()}, ${RUNS} runs (min / median / max)`);
console.log(`start → first status write (median of ${STARTS}): ${f((r) => r.startMs, ms)}; bare node start→exit: ${f((r) => r.bareStartMs, ms)}`);
console.log(`RSS 60 s after start: ${f((r) => r.rssMB, mb)}; bare node: ${f((r) => r.bareRssMB, mb)}`);
console.log(`CPU while idle, per minute: ${f((r) => r.idleCpuS, s)}; bare node: ${f((r) => r.bareIdleCpuS, s)}`);
console.log(`scenario CPU (${CHANGES} changes, ${HEARTBEATS} heartbeats, 60 s idle): ${f((r) => r.scenarioCpuS, s)}; whole process life (start, 2 min idle, scenario): ${f((r) => r.processCpuS, s)}`);
console.log(`CPU in the 60 s after the work: ${f((r) => r.afterWorkCpuS, s)} (the idle minute before it: ${f((r) => r.idleCpuS, s)}); RSS at its end: ${f((r) => r.afterWorkRssMB, mb)}`);
for (const [i, r] of runs.entries()) console.log(`  run ${i + 1}, per 10 s after the work: ${r.afterWorkSamplesS.map((x) => `+${x.toFixed(2)}`).join(', ')} s`);
console.log(`(ClusterVersion change → status seen, median over the scenario: ${f((r) => r.latencyMs, ms)})`);
