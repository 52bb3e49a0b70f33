// Benchmark: where the operator's resident memory goes, beside a bare Node process in the same run — the
// profile behind the "RSS after work" row that a Node.js process cannot bring down to the Go loop's.
//   npm run bench -- rss-breakdown          (RUNS=3 by default; one run takes ~2.5 min)
// Per run, three processes with the same node flags (the image's unless OPERATOR_NODE_FLAGS is set) and the
// same preload: the operator (as operator-process.ts starts it); a bare `node` with one idle timer; and the
// least a Node.js Kubernetes client does — one TLS HTTP/2 connection to the API server holding watches of
// FeatureGates and ClusterVersions, each event parsed (node's built-ins only). Each reports at 60 s after
// start, then again after the scenario (100 changes, 20 heartbeats) and 60 s of idle: /proc/self/smaps_rollup
// (resident anonymous vs file-backed), process.memoryUsage(), V8's heap spaces and code statistics.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBenchCluster } from './bench-cluster.js';
import { changeScenario } from './status-change.js';
import { exited, nodeFlagsOrImage, spawnOperatorProcess } from './operator-process.js';
import { median } from './stats.js';
import { sleep } from '../../test/support/timing.js';

const RUNS = Number(process.env.RUNS ?? 3);
const IDLE_MS = 60_000;
const dir = mkdtempSync(join(tmpdir(), 'fgc-rss-'));
const preload = join(dir, 'memory-report.cjs');
// On SIGUSR2 the process appends one JSON line of its memory to $FGC_MEMORY_REPORT.
writeFileSync(preload, `
const v8 = require('node:v8'); const fs = require('node:fs');
process.on('SIGUSR2', () => {
  const kb = (k) => Number(new RegExp('^' + k + ':\\\\s+(\\\\d+)', 'm').exec(fs.readFileSync('/proc/self/smaps_rollup', 'utf8'))?.[1] ?? 0);
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.physical_space_size]));
  const code = v8.getHeapCodeStatistics();
  fs.appendFileSync(process.env.FGC_MEMORY_REPORT, JSON.stringify({
    rss: kb('Rss') * 1024, anonymous: kb('Anonymous') * 1024, fileBacked: (kb('Rss') - kb('Anonymous')) * 1024,
    ...process.memoryUsage(), spaces, bytecodeAndMetadata: code.bytecode_and_metadata_size, sourceText: code.external_script_source_size,
  }) + '\\n');
});
`);

// The least Node.js Kubernetes client: watches over one HTTP/2 connection, events parsed and dropped.
const watcher = join(dir, 'watcher.cjs');
writeFileSync(watcher, `
const http2 = require('node:http2');
const session = http2.connect(process.env.FGC_SERVER, { rejectUnauthorized: false });
setInterval(() => session.ping(() => {}), 30_000);
for (const path of ['/apis/config.openshift.io/v1/featuregates', '/apis/config.openshift.io/v1/clusterversions']) {
  const watch = () => {
    const req = session.request({ ':path': path + '?watch=1&allowWatchBookmarks=true&timeoutSeconds=600', authorization: 'Bearer ' + process.env.FGC_TOKEN });
    let buf = '';
    req.setEncoding('utf8');
    req.on('data', (d) => { buf += d; let i; while ((i = buf.indexOf('\\n')) >= 0) { JSON.parse(buf.slice(0, i)); buf = buf.slice(i + 1); } });
    req.on('end', watch);
  };
  watch();
}
`);

interface Report {
  rss: number; anonymous: number; fileBacked: number; heapTotal: number; heapUsed: number; external: number; arrayBuffers: number;
  spaces: Record<string, number>; bytecodeAndMetadata: number; sourceText: number;
}
const flags = nodeFlagsOrImage();

function spawnWith(report: string, args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [...flags, '--require', preload, ...args], { stdio: 'ignore', env: { ...process.env, ...env, FGC_MEMORY_REPORT: report } });
}

async function reportOf(p: ChildProcess, file: string, n: number): Promise<Report> {
  p.kill('SIGUSR2');
  for (let i = 0; i < 100; i++) {
    const lines = (() => { try { return readFileSync(file, 'utf8').trim().split('\n').filter(Boolean); } catch { return []; } })();
    if (lines.length >= n) return JSON.parse(lines[n - 1]!) as Report;
    await sleep(50);
  }
  throw new Error(`${file}: no memory report from pid ${p.pid}`);
}

const cluster = await startBenchCluster();
const rows: { phase: string; op: Report; bare: Report; watching: Report }[] = [];
for (let run = 1; run <= RUNS; run++) {
  const opFile = join(dir, `operator-${run}.jsonl`);
  const bareFile = join(dir, `bare-${run}.jsonl`);
  const { proc: op } = await cluster.startOperator((kubeconfigPath, version) =>
    spawnOperatorProcess(kubeconfigPath, version, [...flags, '--require', preload], { env: { ...process.env, FGC_MEMORY_REPORT: opFile } }));
  const bare = spawnWith(bareFile, ['-e', 'setInterval(() => {}, 3600e3)']);
  const watchFile = join(dir, `watcher-${run}.jsonl`);
  const watching = spawnWith(watchFile, [watcher], { FGC_SERVER: cluster.plane.server, FGC_TOKEN: cluster.plane.adminToken });
  await sleep(IDLE_MS);
  const reports = async (n: number) => ({
    op: await reportOf(op, opFile, n),
    bare: await reportOf(bare, bareFile, n),
    watching: await reportOf(watching, watchFile, n),
  });
  rows.push({ phase: '60 s after start', ...await reports(1) });
  await changeScenario([cluster]);
  await sleep(IDLE_MS);
  rows.push({ phase: 'after the work and 60 s idle', ...await reports(2) });
  for (const p of [op, bare, watching]) p.kill('SIGKILL');
  await Promise.all([exited(op), exited(bare), exited(watching)]);
  process.stderr.write(`run ${run}/${RUNS} done\n`);
}
await cluster.stop();

const MB = (b: number) => (b / 1024 / 1024).toFixed(1);
const categories: [string, (r: Report) => number][] = [
  ['RSS', (r) => r.rss],
  ['  resident file-backed (the node binary\'s pages, libraries)', (r) => r.fileBacked],
  ['  resident anonymous', (r) => r.anonymous],
  ['V8 heap, committed (heapTotal)', (r) => r.heapTotal],
  ['  of which used', (r) => r.heapUsed],
  ...['new_space', 'old_space', 'code_space', 'map_space', 'large_object_space', 'trusted_space', 'shared_space', 'read_only_space']
    .map((s): [string, (r: Report) => number] => [`  ${s} (resident)`, (r) => r.spaces[s] ?? 0]),
  ['  bytecode and metadata (in the heap)', (r) => r.bytecodeAndMetadata],
  ['external (Buffers, TLS, nghttp2 outside the heap)', (r) => r.external],
  ['  of which ArrayBuffers', (r) => r.arrayBuffers],
  ['script source text (outside the heap)', (r) => r.sourceText],
];
console.log(`node ${process.version} ${flags.join(' ')}; ${RUNS} runs, medians in MB`);
for (const phase of [...new Set(rows.map((r) => r.phase))]) {
  const of = rows.filter((r) => r.phase === phase);
  console.log(`\n${phase}\n| | bare node | node + HTTP/2 watches | operator | operator − watches |\n| --- | --- | --- | --- | --- |`);
  for (const [name, f] of categories) {
    const [bare, watching, op] = [of.map((r) => f(r.bare)), of.map((r) => f(r.watching)), of.map((r) => f(r.op))].map(median);
    console.log(`| ${name} | ${MB(bare!)} | ${MB(watching!)} | ${MB(op!)} | ${MB(median(of.map((r) => f(r.op) - f(r.watching))))} |`);
  }
}
