// Benchmark: where the operator's start → first status write goes, phase by phase, read from its own JSON
// log lines as they arrive on a pipe (timestamps of arrival, taken here) and a watcher of FeatureGate/cluster.
//   npm run bench -- start-phases          (STARTS=10; node flags: OPERATOR_NODE_FLAGS, else the image's)
// Phases: spawn → first log line (node's start and the bundle's modules), → "payload feature sets loaded",
// → "serving" (health endpoint listening), → "caches synced" (connection, three lists), → first status write
// seen by the watcher. Beside them, a bare `node -e ''` spawn → exit with the same flags.
import { spawn } from 'node:child_process';
import { startBenchCluster } from './bench-cluster.js';
import { exited, nodeFlagsOrImage, operatorCLI, spawnOperatorProcess } from './operator-process.js';
import { median, ms, nowMs } from './stats.js';

const STARTS = Number(process.env.STARTS ?? 10);
const flags = nodeFlagsOrImage();
const MARKS = ['first log line', 'payload feature sets loaded', 'serving', 'caches synced'] as const;

const cluster = await startBenchCluster();
const phases: Record<string, number[]> = Object.fromEntries([...MARKS, 'first status write', 'bare node exit'].map((m) => [m, []]));
for (let i = 0; i < STARTS; i++) {
  const t0 = nowMs();
  await exited(spawn(process.execPath, [...flags, '-e', ''], { stdio: 'ignore' }));
  phases['bare node exit']!.push(nowMs() - t0);
  const seen = new Map<string, number>();
  const { proc, startMs } = await cluster.startOperator((kubeconfigPath, version) => {
    const p = spawnOperatorProcess(kubeconfigPath, version, flags, { args: ['--log-format', 'json'], pipeStderr: true });
    const spawnedAt = nowMs();
    let buf = '';
    p.stderr!.setEncoding('utf8').on('data', (d: string) => {
      const at = nowMs() - spawnedAt;
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!seen.has('first log line')) seen.set('first log line', at);
        const msg = (() => { try { return (JSON.parse(line) as { msg?: string }).msg; } catch { return undefined; } })();
        if (msg && !seen.has(msg)) seen.set(msg, at);
      }
    });
    return p;
  });
  for (const m of MARKS) phases[m]!.push(seen.get(m) ?? NaN);
  phases['first status write']!.push(startMs);
  proc.kill('SIGKILL');
  await exited(proc);
}
await cluster.stop();

console.log(`${operatorCLI} with node ${flags.join(' ') || '(no flags)'} on ${process.version}; medians of ${STARTS} starts (ms after spawn)`);
console.log('| mark | at | since the mark before |\n| --- | --- | --- |');
let before = 0;
for (const m of [...MARKS, 'first status write']) {
  const at = median(phases[m]!);
  console.log(`| ${m} | ${ms(at)} | ${ms(at - before)} |`);
  before = at;
}
console.log(`| bare \`node -e ''\`, spawn → exit | ${ms(median(phases['bare node exit']!))} | |`);
