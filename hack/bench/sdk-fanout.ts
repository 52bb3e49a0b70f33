// Benchmark: what the SDK costs a component.
//   npm run bench -- sdk-fanout             (RUNS=3; one run takes ~2.5 min)
// Per run, on one local control plane:
//  - fan-out: 200 accessors in this process; each sample is one FeatureGate /status PUT, timed until all 200
//    accessors' onChange ran, and until this process's own single watch saw it (the raw baseline, same
//    write); p99 of each over 100 writes and their ratio (goal ≤ 2×);
//  - 1,000 accessors in this process: RSS and heap growth per accessor, after a full GC;
//  - one accessor in a component: processes that load @kubernetes/client-node and a KubeConfig, half of
//    them also the SDK with one started accessor (sdk-component.ts), three of each; the difference of the
//    median RSS 30 s after ready (goal ≤ 5 MB) and of the median idle CPU per minute after.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { FeatureGateResource, ResourceClient } from '../../runtime/index.js';
import { createFeatureGateAccess, type FeatureGateAccess } from '../../sdk/index.js';
import { bundledCRDPaths, setClusterVersion, setFeatureGateStatus, startControlPlane } from '../../sdk/testing/index.js';
import { runComponent } from './component-process.js';
import { FeatureGateWatcher } from './fg-watcher.js';
import { median, ms, nowMs, percentile, spread } from './stats.js';

const RUNS = Number(process.env.RUNS ?? 3);
const FANOUT = 200;
const CHANGES = 100;
const MANY = 1000;
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
const kc = plane.kubeConfig;
await setClusterVersion(kc, { history: ['4.22.0'] });
await setFeatureGateStatus(kc, [{ version: '4.22.0', enabled: ['Gate-0'], disabled: [] }]);
const watcher = await FeatureGateWatcher.start(kc);
const fgs = new ResourceClient(kc, FeatureGateResource);

async function startAccessors(n: number, onChange: (first: string | undefined) => void): Promise<FeatureGateAccess[]> {
  const accessors = Array.from({ length: n }, () => createFeatureGateAccess({
    kubeConfig: kc, desiredVersion: '4.22.0', onChange: ({ current }) => onChange(current.enabledNames[0]),
  }));
  for (const a of accessors) a.start();
  await Promise.all(accessors.map((a) => a.waitForInitial({ timeoutMs: 120_000 })));
  return accessors;
}

const component = async (mode: 'baseline' | 'accessor') => {
  const s = await runComponent(plane.kubeconfigPath, mode);
  return { rssMB: s.at30.rssMB, idleCpuS: s.idleCpuS };
};

interface Run {
  fanP99: number;
  rawP99: number;
  perAccessorKB: number;
  heapPerAccessorKB: number;
  oneAccessorMB: number;
  accessorIdleCpuS: number;
  baselineIdleCpuS: number;
}
const runs: Run[] = [];
for (let r = 1; r <= RUNS; r++) {
  let expected = '';
  let seen = 0;
  let allSeen: (() => void) | undefined;
  const fan = await startAccessors(FANOUT, (first) => { if (first === expected && ++seen === FANOUT) allSeen?.(); });
  await new Promise((res) => setTimeout(res, 2000)); // every watch connected
  const fanSamples: number[] = [];
  const rawSamples: number[] = [];
  for (let i = 1; i <= CHANGES; i++) {
    expected = `Gate-${r}-${i}`;
    seen = 0;
    const all = new Promise<void>((resolve) => { allSeen = resolve; });
    const fg = await fgs.get('cluster');
    const t0 = nowMs();
    const raw = watcher.next((v) => v === '4.22.0').then(() => rawSamples.push(nowMs() - t0));
    await fgs.replaceStatus({ ...fg, status: { featureGates: [{ version: '4.22.0', enabled: [{ name: expected }], disabled: [] }] } });
    await Promise.all([all, raw]);
    fanSamples.push(nowMs() - t0);
  }
  await Promise.all(fan.map((a) => a.stop()));

  // Three of each (RSS of identical processes differs by a few MB), started after the fan-out samples so their
  // start-up does not compete with them; they idle while the 1,000 accessors are measured here.
  const components = Promise.all([...Array(3).keys()].flatMap(() => [component('baseline'), component('accessor')]));
  gc();
  const before = process.memoryUsage();
  const many = await startAccessors(MANY, () => undefined);
  gc();
  const after = process.memoryUsage();
  await Promise.all(many.map((a) => a.stop()));

  const pairs = await components;
  const baseline = {
    rssMB: median(pairs.filter((_, i) => i % 2 === 0).map((p) => p.rssMB)),
    idleCpuS: median(pairs.filter((_, i) => i % 2 === 0).map((p) => p.idleCpuS)),
  };
  const accessor = {
    rssMB: median(pairs.filter((_, i) => i % 2 === 1).map((p) => p.rssMB)),
    idleCpuS: median(pairs.filter((_, i) => i % 2 === 1).map((p) => p.idleCpuS)),
  };
  const run = {
    fanP99: percentile(fanSamples, 99), rawP99: percentile(rawSamples, 99),
    perAccessorKB: (after.rss - before.rss) / MANY / 1024, heapPerAccessorKB: (after.heapUsed - before.heapUsed) / MANY / 1024,
    oneAccessorMB: accessor.rssMB - baseline.rssMB, accessorIdleCpuS: accessor.idleCpuS, baselineIdleCpuS: baseline.idleCpuS,
  };
  runs.push(run);
  console.error(`run ${r}/${RUNS}: ${JSON.stringify(run)}`);
}
await watcher.stop();
await plane.stop();
const f = (pick: (r: Run) => number, fmt: (n: number) => string) => spread(runs.map(pick), fmt);
const kb = (n: number) => `${n.toFixed(1)} KB`;
console.log(`node ${process.version}, ${RUNS} runs (min / median / max)`);
console.log(`status write → all ${FANOUT} accessors observed, p99 over ${CHANGES}: ${f((r) => r.fanP99, ms)}; one watch (raw) p99: ${f((r) => r.rawP99, ms)}; ratio ${f((r) => r.fanP99 / r.rawP99, (n) => `${n.toFixed(2)}×`)} (goal ≤ 2×)`);
console.log(`${MANY} accessors in one process: RSS ${f((r) => r.perAccessorKB, kb)} per accessor, heap ${f((r) => r.heapPerAccessorKB, kb)} per accessor`);
console.log(`one accessor in a component (client-node loaded either way): +${f((r) => r.oneAccessorMB, (n) => `${n.toFixed(1)} MB`)} RSS (goal ≤ 5 MB); idle CPU per minute ${f((r) => r.accessorIdleCpuS, (n) => `${n.toFixed(2)} s`)} vs ${f((r) => r.baselineIdleCpuS, (n) => `${n.toFixed(2)} s`)} without`);
