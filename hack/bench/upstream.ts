// Benchmark: this project's operator side by side with upstream's — cluster-config-operator's FeatureGate loop
// built from its own source (go-upstream/build.sh; CCO_SRC names the checkout, or UPSTREAM_BIN a built binary).
// Two local control planes, one per process, samples interleaved (a change on one, then on the other); our
// operator started as the image starts it (the Containerfile's ENTRYPOINT flags) unless OPERATOR_NODE_FLAGS says otherwise.
//   CCO_SRC=<checkout> npm run bench -- upstream      (RUNS=3, REQ_MIN=15; ~4 min a run, then the request window)
// Per run, for each process: start → first status write (median of 5, alternating); RSS 60 s after start; CPU
// over the next idle minute; the scenario (100 status-changing ClusterVersion changes, 20 heartbeats, 60 s
// idle): latency to a watcher's view p50 / p99 and its CPU; the 60 s after the work (CPU per 10 s, RSS at the
// end). Then, once, REQ_MIN idle minutes: API requests each process sent, counted from its kube-apiserver's
// audit log (every request received, by the process's user agent). Both processes run without leader election
// and metrics. Upstream runs with client-go's client-side rate limit as it ships (5/s, burst 10), which holds
// back a burst of changes (two requests each: the status write and its Event); UPSTREAM_QPS=-1 lifts it, to
// compare the loops' own cost.
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { ensureNamespace, packageRoot } from '../../sdk/testing/index.js';
import { auditEveryRequest, perMinute, requestsFrom } from '../../test/support/audit.js';
import { startBenchCluster } from './bench-cluster.js';
import { SCENARIO_CHANGES as CHANGES, SCENARIO_HEARTBEATS as HEARTBEATS, changeScenario } from './status-change.js';
import { exited, nodeFlagsOrImage, operatorCLI, spawnOperatorProcess, usage } from './operator-process.js';
import { median, ms, nowMs, percentile, spread } from './stats.js';
import { sleep } from '../../test/support/timing.js';

const RUNS = Number(process.env.RUNS ?? 3);
const REQ_MIN = Number(process.env.REQ_MIN ?? 15);
/** Upstream's client-side rate limit: 0 = client-go's default (5 requests/s, burst 10), as the operator ships; -1 = none. */
const UPSTREAM_QPS = process.env.UPSTREAM_QPS ?? '0';
const STARTS = 5;
const IDLE_MS = 60_000;
const nodeFlags = nodeFlagsOrImage();

const upstreamBin = process.env.UPSTREAM_BIN ?? execFileSync('bash', [join(packageRoot(), 'hack', 'bench', 'go-upstream', 'build.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
const payload = join(packageRoot(), 'deploy', 'base', 'payload');

interface Side {
  name: string;
  userAgent: RegExp;
  spawnIt: (kubeconfigPath: string, version: string) => ReturnType<typeof spawn>;
  cluster: Awaited<ReturnType<typeof startBenchCluster>>;
  audit: string;
}

async function side(name: string, userAgent: RegExp, spawnIt: Side['spawnIt']): Promise<Side> {
  const audit = auditEveryRequest();
  const cluster = await startBenchCluster({ extraAPIServerArgs: audit.apiServerArgs });
  // The namespace of upstream's Events (ours go to the operator's own namespace, made by the operator's deps).
  await ensureNamespace(cluster.kc, 'openshift-config-operator');
  return { name, userAgent, spawnIt, cluster, audit: audit.logPath };
}

const ours = await side('this project', /^featuregates-operator\//, (kubeconfigPath, version) => spawnOperatorProcess(kubeconfigPath, version, nodeFlags));
const upstream = await side('upstream (Go)', /^fgc-bench-featuregate-loop\//, (kubeconfigPath, version) =>
  spawn(upstreamBin, ['--kubeconfig', kubeconfigPath, '--operator-version', version, '--payload-dir', payload, '--qps', UPSTREAM_QPS], { stdio: 'ignore' }));
const sides = [ours, upstream];

interface Run {
  startMs: number; rssMB: number; idleCpuS: number; p50: number; p99: number; scenarioCpuS: number;
  afterWorkCpuS: number; afterWorkSamplesS: number[]; afterWorkRssMB: number;
  /** The five slowest changes (which change, how long): a tail's shape, periodic or not. */
  slowest: string[];
}

function slowest(latencies: number[]): string[] {
  return latencies.map((v, i) => ({ v, i })).sort((a, b) => b.v - a.v).slice(0, 5).map(({ v, i }) => `#${i}: ${v.toFixed(1)} ms`);
}

/** One run of both sides, interleaved; the processes are left running for the request window after the last run. */
async function oneRun(keep: boolean): Promise<Run[]> {
  const starts = sides.map(() => [] as number[]);
  const procs: Awaited<ReturnType<Side['cluster']['startOperator']>>[] = [];
  for (let i = 0; i < STARTS; i++) {
    for (const [k, s] of sides.entries()) {
      const op = await s.cluster.startOperator(s.spawnIt);
      starts[k]!.push(op.startMs);
      if (i < STARTS - 1) { op.proc.kill('SIGKILL'); await exited(op.proc); } else procs[k] = op;
    }
  }
  await sleep(Math.max(0, procs[0]!.spawnedAt + IDLE_MS - nowMs()));
  const atIdle = procs.map((p) => usage(p.proc.pid!));
  await sleep(IDLE_MS);
  const afterIdle = procs.map((p) => usage(p.proc.pid!));
  const latencies = await changeScenario(sides.map((s) => s.cluster));
  const afterWork = procs.map((p) => usage(p.proc.pid!));
  const samples = sides.map(() => [] as number[]);
  let last = afterWork;
  for (let t = 0; t < IDLE_MS; t += 10_000) {
    await sleep(10_000);
    const now = procs.map((p) => usage(p.proc.pid!));
    for (const k of sides.keys()) samples[k]!.push(now[k]!.cpuS - last[k]!.cpuS);
    last = now;
  }
  const end = last;
  if (!keep) for (const p of procs) { p.proc.kill('SIGTERM'); await exited(p.proc); }
  else running = procs.map((p) => p.proc);
  return sides.map((_, k) => ({
    startMs: median(starts[k]!), rssMB: atIdle[k]!.rssMB, idleCpuS: afterIdle[k]!.cpuS - atIdle[k]!.cpuS,
    p50: median(latencies[k]!), p99: percentile(latencies[k]!, 99), scenarioCpuS: end[k]!.cpuS - afterIdle[k]!.cpuS,
    afterWorkCpuS: end[k]!.cpuS - afterWork[k]!.cpuS, afterWorkSamplesS: samples[k]!, afterWorkRssMB: end[k]!.rssMB,
    slowest: slowest(latencies[k]!),
  }));
}

let running: ReturnType<typeof spawn>[] = [];
const perSide: Run[][] = sides.map(() => []);
try {
  for (let r = 1; r <= RUNS; r++) {
    const runs = await oneRun(r === RUNS);
    for (const [k, run] of runs.entries()) perSide[k]!.push(run);
    console.error(`run ${r}/${RUNS}: ${sides.map((s, k) => `${s.name} ${JSON.stringify(runs[k])}`).join('; ')}`);
  }
  // The request window: both processes idle; the benchmark's own watchers stopped, so they are not counted anyway.
  if (REQ_MIN > 0) console.error(`request window: ${REQ_MIN} idle minutes`);
  const from = Date.now() + 5_000;
  if (REQ_MIN > 0) await sleep(5_000 + REQ_MIN * 60_000);
  const to = Date.now();
  const f = (k: number, pick: (r: Run) => number, fmt: (n: number) => string) => spread(perSide[k]!.map(pick), fmt);
  const s = (n: number) => `${n.toFixed(2)} s`;
  const mb = (n: number) => `${n.toFixed(1)} MB`;
  console.log(`this project: ${operatorCLI} with node ${nodeFlags.join(' ') || '(no flags)'} on ${process.version}; upstream: ${upstreamBin} (qps ${UPSTREAM_QPS}); ${RUNS} runs (min / median / max)`);
  console.log('| measure | upstream (Go) | this project | ratio of medians |');
  console.log('| --- | --- | --- | --- |');
  const row = (label: string, pick: (r: Run) => number, fmt: (n: number) => string) => {
    const [o, u] = [median(perSide[0]!.map(pick)), median(perSide[1]!.map(pick))];
    console.log(`| ${label} | ${f(1, pick, fmt)} | ${f(0, pick, fmt)} | ${(o / u).toFixed(2)} |`);
  };
  row('ClusterVersion change → status seen, p50', (r) => r.p50, ms);
  row('… p99', (r) => r.p99, ms);
  row(`start → first status write (median of ${STARTS})`, (r) => r.startMs, ms);
  row('RSS 60 s after start', (r) => r.rssMB, mb);
  row('CPU, idle minute after start', (r) => r.idleCpuS, s);
  row(`scenario CPU (${CHANGES} changes, ${HEARTBEATS} heartbeats, 60 s idle)`, (r) => r.scenarioCpuS, s);
  row('CPU in the 60 s after the work', (r) => r.afterWorkCpuS, s);
  row('RSS at their end', (r) => r.afterWorkRssMB, mb);
  for (const [k, sd] of sides.entries()) {
    if (REQ_MIN > 0) console.log(`${sd.name}: API requests per idle minute over ${REQ_MIN} min: ${perMinute(requestsFrom(sd.audit, sd.userAgent, from, to), REQ_MIN)}`);
    for (const [i, run] of perSide[k]!.entries()) console.log(`  ${sd.name}, run ${i + 1}, CPU per 10 s after the work: ${run.afterWorkSamplesS.map((x) => `+${x.toFixed(2)}`).join(', ')} s`);
  }
} finally {
  for (const p of running) { p.kill('SIGTERM'); await exited(p); }
  for (const sd of sides) await sd.cluster.stop();
}
