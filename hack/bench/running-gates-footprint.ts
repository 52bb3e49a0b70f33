// Benchmark: the resident memory the running-gates check keeps (issue 49) — the operator with RunningGatesController
// at its default period against the same build with `--running-gates-period 0`, alternating on one control plane
// in one run. Per process: start, CHANGES status-changing ClusterVersion changes (each a check of kube-apiserver's
// /metrics), RSS after the work, then an idle minute and RSS (and anonymous RSS, /proc/<pid>/smaps_rollup) at its end.
//   npm run bench -- running-gates-footprint     (RUNS=2, CHANGES=60; one process ~70 s; the image's node flags
//                                                 unless OPERATOR_NODE_FLAGS is set)
//   BASELINE_CLI=<another build's dist/cli/featuregates.js> adds a third process per run: that build, check on —
//   this build's footprint against an older one's in the same run.
// Also where it goes, at the end of the idle minute: V8's heap (total / used) and the memory outside it (external),
// reported by the process itself through a preload on SIGUSR2.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBenchCluster } from './bench-cluster.js';
import { operatorChange } from './status-change.js';
import { exited, nodeFlagsOrImage, spawnOperatorProcess, usage } from './operator-process.js';
import { median } from './stats.js';
import { sleep } from '../../test/support/timing.js';

const RUNS = Number(process.env.RUNS ?? 2);
const CHANGES = Number(process.env.CHANGES ?? 60);
const IDLE_MS = Number(process.env.IDLE_MS ?? 60_000);
const dir = mkdtempSync(join(tmpdir(), 'fgc-rgf-'));
const preload = join(dir, 'memory-report.cjs');
const reports = join(dir, 'reports.jsonl');
writeFileSync(preload, `process.on('SIGUSR2', () => { const m = process.memoryUsage();
  require('node:fs').appendFileSync(${JSON.stringify(reports)}, JSON.stringify({ heapTotal: m.heapTotal, heapUsed: m.heapUsed, external: m.external }) + '\\n'); });`);
const flags = [...nodeFlagsOrImage(), '--require', preload];
const BASELINE_CLI = process.env.BASELINE_CLI;
const variants: Record<string, { args: string[]; cli?: string }> = {
  'check on (default period)': { args: [] },
  'check off (--running-gates-period 0)': { args: ['--running-gates-period', '0'] },
  ...(BASELINE_CLI ? { [`baseline ${BASELINE_CLI}, check on`]: { args: [], cli: BASELINE_CLI } } : {}),
};

const anonymousMB = (pid: number) => Number(/^Anonymous:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1]) / 1024;
const cluster = await startBenchCluster();
type Row = { afterWork: number[]; afterIdle: number[]; anonymous: number[]; heapTotal: number[]; heapUsed: number[]; external: number[] };
const rows = new Map<string, Row>(
  Object.keys(variants).map((k) => [k, { afterWork: [], afterIdle: [], anonymous: [], heapTotal: [], heapUsed: [], external: [] }]),
);
/** The process's own memory report (SIGUSR2 → one JSON line), in MB. */
async function report(pid: number): Promise<{ heapTotal: number; heapUsed: number; external: number }> {
  const before = readLines().length;
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 100 && readLines().length === before; i++) await sleep(50);
  const r = JSON.parse(readLines().at(-1)!) as Record<'heapTotal' | 'heapUsed' | 'external', number>;
  return { heapTotal: r.heapTotal / 2 ** 20, heapUsed: r.heapUsed / 2 ** 20, external: r.external / 2 ** 20 };
}
function readLines(): string[] {
  try { return readFileSync(reports, 'utf8').split('\n').filter(Boolean); } catch { return []; }
}
try {
  for (let run = 0; run < RUNS; run++) {
    for (const [name, { args, cli }] of Object.entries(variants)) {
      const { proc } = await cluster.startOperator((kubeconfig, version) =>
        spawnOperatorProcess(kubeconfig, version, flags, { args, ...(cli ? { cli } : {}) }),
      );
      for (let i = 0; i < CHANGES; i++) await operatorChange(cluster.kc, cluster.fgs, cluster.watcher, i);
      const row = rows.get(name)!;
      row.afterWork.push(usage(proc.pid!).rssMB);
      await sleep(IDLE_MS);
      row.afterIdle.push(usage(proc.pid!).rssMB);
      row.anonymous.push(anonymousMB(proc.pid!));
      const r = await report(proc.pid!);
      row.heapTotal.push(r.heapTotal);
      row.heapUsed.push(r.heapUsed);
      row.external.push(r.external);
      proc.kill('SIGTERM');
      await exited(proc);
      console.error(`run ${run + 1} ${name}: RSS after work ${row.afterWork.at(-1)!.toFixed(1)} MB, after the idle minute ${row.afterIdle.at(-1)!.toFixed(1)} MB (anonymous ${row.anonymous.at(-1)!.toFixed(1)} MB)`);
    }
  }
  const f = (xs: number[]) => `${xs.map((x) => x.toFixed(1)).join(' / ')} MB (median ${median(xs).toFixed(1)})`;
  console.log(`node ${process.version}, flags ${flags.join(' ') || '(none)'}, ${RUNS} runs, ${CHANGES} changes, idle ${IDLE_MS / 1000} s\n`);
  console.log('| build | RSS after work | after the idle minute | anonymous RSS then | V8 heap total / used then | external then |\n| --- | --- | --- | --- | --- | --- |');
  const g = (xs: number[]) => median(xs).toFixed(2);
  for (const [name, r] of rows) console.log(`| ${name} | ${f(r.afterWork)} | ${f(r.afterIdle)} | ${f(r.anonymous)} | ${g(r.heapTotal)} / ${g(r.heapUsed)} MB | ${g(r.external)} MB |`);
  const on = rows.get('check on (default period)')!;
  const off = rows.get('check off (--running-gates-period 0)')!;
  console.log(`\ncheck on − off, medians: after work ${(median(on.afterWork) - median(off.afterWork)).toFixed(1)} MB, after idle ${(median(on.afterIdle) - median(off.afterIdle)).toFixed(1)} MB (goal ≤ 0.5 MB)`);
} finally {
  await cluster.stop();
}
