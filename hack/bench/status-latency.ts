// Benchmark: "ClusterVersion change → FeatureGate status visible to a watcher" through the operator process,
// against the raw "PUT /status → watch event" round trip on the same control plane in the same run.
//   npm run bench -- status-latency         (N=200 changes, RUNS=3; operator as in operator-process.ts)
// Goal (issue 12): operator p50 ≤ 1.2× and p99 ≤ 1.5× the raw path's.
// A second phase, with the operator stopped, times three minimal relays in its place — the least any
// controller does on this path (status-change.ts): our transport (HTTP/1.1) in this process, the same over
// HTTP/2 (h2-relay.ts), and client-go in its own process (go-relay/, when Go is installed; GO_RELAY=0 skips
// it): what the Go original's client stack pays for the same hop. All four paths of a phase are interleaved
// sample by sample (each change names the relay that acts), so drift on a shared machine hits them alike.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { startBenchCluster } from './bench-cluster.js';
import { startH2Relay } from './h2-relay.js';
import { describeOperator, exited } from './operator-process.js';
import { operatorChange, rawWrite, startRelay } from './status-change.js';
import { median, ms, percentile, spread } from './stats.js';

const N = Number(process.env.N ?? 200);
const RUNS = Number(process.env.RUNS ?? 3);
const goRelay = process.env.GO_RELAY === '0' ? undefined
  : spawnSync('bash', ['hack/bench/go-relay/build.sh'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).stdout.trim().split('\n').at(-1) || undefined;
const cluster = await startBenchCluster();
const { kc, watcher, fgs } = cluster;

/** The client-go relay as a process; resolves once its informers have synced. */
async function startGoRelay(binary: string): Promise<ChildProcess> {
  const p = spawn(binary, ['--kubeconfig', cluster.plane.kubeconfigPath, '--name', 'go'], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    p.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('ready')) resolve(); });
    p.once('exit', (code) => reject(new Error(`go-relay exited with ${code}`)));
  });
  return p;
}

type Path = 'operator' | 'raw' | 'h1' | 'raw2' | 'h2' | 'go';
type Run = Partial<Record<Path, { p50: number; p99: number }>>;
const runs: Run[] = [];
let seq = 0;
for (let r = 1; r <= RUNS; r++) {
  const samples: Partial<Record<Path, number[]>> = {};
  const add = (p: Path, v: number) => (samples[p] ??= []).push(v);
  // Phase 1: the operator, from an empty status, against the raw path.
  const { proc: op } = await cluster.startOperator();
  for (let i = 0; i < N; i++) {
    add('operator', await operatorChange(kc, fgs, watcher, seq++));
    add('raw', await rawWrite(kc, fgs, watcher, seq++));
  }
  op.kill('SIGTERM');
  await exited(op);
  // Phase 2: the relays in its place, against the raw path again.
  const h1 = await startRelay(kc, fgs, watcher, 'h1');
  const h2 = await startH2Relay(kc, watcher, 'h2');
  const go = goRelay ? await startGoRelay(goRelay) : undefined;
  for (let i = 0; i < N; i++) {
    add('raw2', await rawWrite(kc, fgs, watcher, seq++));
    add('h1', await operatorChange(kc, fgs, watcher, seq++, 'h1'));
    add('h2', await operatorChange(kc, fgs, watcher, seq++, 'h2'));
    if (go) add('go', await operatorChange(kc, fgs, watcher, seq++, 'go'));
  }
  await h1.stop();
  await h2.stop();
  if (go) { go.kill('SIGTERM'); await exited(go); }
  const run: Run = {};
  for (const [p, xs] of Object.entries(samples) as [Path, number[]][]) run[p] = { p50: median(xs), p99: percentile(xs, 99) };
  runs.push(run);
  console.error(`run ${r}/${RUNS}: ${JSON.stringify(run)}`);
}
await cluster.stop();
const f = (pick: (r: Run) => number, fmt: (n: number) => string) => spread(runs.map(pick), fmt);
const x = (n: number) => `${n.toFixed(2)}×`;
const line = (label: string, p: Path, base: Path) => console.log(`${label.padEnd(44)} p50 ${f((r) => r[p]!.p50, ms)}, p99 ${f((r) => r[p]!.p99, ms)}` +
  (p === base ? '' : `; ÷ raw: p50 ${f((r) => r[p]!.p50 / r[base]!.p50, x)}, p99 ${f((r) => r[p]!.p99 / r[base]!.p99, x)}`));
console.log(`${describeOperator()}, ${N} changes per path and run, ${RUNS} runs (min / median / max)`);
line('raw PUT /status → watch event', 'raw', 'raw');
line('operator: ClusterVersion change → status seen', 'operator', 'raw');
console.log('goal: operator ÷ raw p50 ≤ 1.2×, p99 ≤ 1.5×');
line('raw PUT /status → watch event (phase 2)', 'raw2', 'raw2');
line('minimal relay, our transport (HTTP/1.1)', 'h1', 'raw2');
line('minimal relay over HTTP/2 (node:http2)', 'h2', 'raw2');
if (goRelay) line('minimal relay on client-go (own process)', 'go', 'raw2');
