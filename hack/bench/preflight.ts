// Benchmark: `featuregates preflight` on a 240-gate set (every gate Kubernetes 1.36 registers, each at its value in
// force, with one locked gate flipped so the whole check runs and a problem is reported). Two figures: the pure
// check in process (checkFeatureGates, warm), and the CPU of the whole CLI process (user + system, from the kernel's
// accounting of the child) beside `featuregates version` in the same run — the Node.js start-up floor.
// Goal: the check under 50 ms of CPU.   npm run bench -- preflight
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkFeatureGates, gateSpecAt, kubernetesGateRules } from '../../api-types/index.js';
import { median, ms, nowMs, percentile } from './stats.js';

const rules = kubernetesGateRules('1.36');
const gates = new Map<string, boolean>();
for (const g of Object.keys(rules.gates)) gates.set(g, gateSpecAt(rules, g, '1.36')!.default);
gates.set('ServiceAccountTokenNodeBinding', false);
const flag = [...gates].map(([n, v]) => `${n}=${v}`).join(',');

const samples: number[] = [];
let problems = 0;
for (let i = 0; i < 300; i++) {
  const t0 = nowMs();
  problems = checkFeatureGates({ kubernetesVersion: '1.36', gates }).problems.length;
  samples.push(nowMs() - t0);
}
const warm = samples.slice(20);
console.log(`checkFeatureGates, ${gates.size} gates (${problems} problem): median ${ms(median(warm))}, p99 ${ms(percentile(warm, 99))}, first ${ms(samples[0]!)}`);

/** CPU (user + system) of a child process, in ms, read from /proc/self/stat's children totals around its run. */
function childCpuMs(args: string[]): number {
  const ticks = () => { const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' '); return Number(f[13]) + Number(f[14]); };
  const before = ticks();
  const r = spawnSync(process.execPath, [join('dist', 'cli', 'featuregates.js'), ...args], { encoding: 'utf8' });
  if (r.status !== 0 && r.status !== 1) throw new Error(`featuregates ${args[0]} exited ${r.status}: ${r.stderr}`);
  return (ticks() - before) * 10; // USER_HZ is 100 on Linux
}
const runs = (args: string[]) => Array.from({ length: 15 }, () => childCpuMs(args));
const preflight = runs(['preflight', '--kubernetes-version', '1.36', '--feature-gates', flag, '-o', 'json']);
const version = runs(['version']);
console.log(`CLI process CPU, median of 15 (10 ms ticks): preflight ${median(preflight)} ms, version ${median(version)} ms (Node start-up floor), ` +
  `difference ${median(preflight) - median(version)} ms`);
