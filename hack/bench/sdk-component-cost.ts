// Benchmark: what one SDK accessor costs a component process, and where it goes (issue 21).
//   npm run bench -- sdk-component-cost      (ROUNDS=5; ~2.5 min, the rounds run at once; WATCHING=1: every process
//                                             first holds one client-node watch on Namespaces — the accessor's floor)
// Each round is three processes started together on one local control plane (sdk-component.ts), all loading
// @kubernetes/client-node and a KubeConfig as a component does: "baseline" nothing more, "loaded" also the
// SDK's modules, "accessor" the SDK and one started accessor that has observed its gates. Per round, the
// differences of RSS 60 s after start (accessor − baseline: the goal ≤ 5 MB median; loaded − baseline: the
// code; accessor − loaded: the running accessor), and of V8 heap and external memory; min / median / max over
// the rounds; the same after a full collection in each process (what stays), since identical processes differ
// by several MB with the timing of their last collection. Also the idle CPU per minute of each mode.
import { bundledCRDPaths, setClusterVersion, setFeatureGateSpec, setFeatureGateStatus, startControlPlane } from '../../sdk/testing/index.js';
import { runComponent, type ComponentMode } from './component-process.js';
import { median, spread } from './stats.js';

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const WATCHING = process.env.WATCHING === '1';
interface Sample { rssMB: number; heapUsedMB: number; externalMB: number; idleCpuS: number; gcRssMB: number; gcHeapUsedMB: number; gcExternalMB: number }

const plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
await setFeatureGateSpec(plane.kubeConfig, {});
await setClusterVersion(plane.kubeConfig, { history: ['4.22.0'] });
await setFeatureGateStatus(plane.kubeConfig, [{ version: '4.22.0', enabled: ['ExampleGatewayAPI'], disabled: ['ExampleNodeSwap'] }]);

const component = (mode: ComponentMode) => runComponent<Sample>(plane.kubeconfigPath, mode, ['--expose-gc'], WATCHING);

try {
  const modes: ComponentMode[] = ['baseline', 'loaded', 'accessor'];
  const rounds = await Promise.all([...Array(ROUNDS).keys()].map(async () => {
    const [baseline, loaded, accessor] = await Promise.all(modes.map(component));
    return { baseline: baseline!, loaded: loaded!, accessor: accessor! };
  }));
  const mb = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(1)} MB`;
  const f = (pick: (r: (typeof rounds)[number]) => number, fmt = mb) => spread(rounds.map(pick), fmt);
  console.log(`node ${process.version}, ${ROUNDS} rounds of 3 processes started together (min / median / max over the rounds)${WATCHING ? ', each holding a client-node watch on Namespaces first' : ''}`);
  console.log(`one accessor, RSS accessor − baseline: ${f((r) => r.accessor.rssMB - r.baseline.rssMB)} (goal ≤ 5 MB median)`);
  console.log(`the same after a full collection in each process (what is retained): ${f((r) => r.accessor.gcRssMB - r.baseline.gcRssMB)} RSS; heap ${f((r) => r.accessor.gcHeapUsedMB - r.baseline.gcHeapUsedMB)}; external ${f((r) => r.accessor.gcExternalMB - r.baseline.gcExternalMB)}`);
  console.log(`  of which the SDK's code (loaded − baseline): ${f((r) => r.loaded.gcRssMB - r.baseline.gcRssMB)} RSS, heap ${f((r) => r.loaded.gcHeapUsedMB - r.baseline.gcHeapUsedMB)}; the running accessor (accessor − loaded): ${f((r) => r.accessor.gcRssMB - r.loaded.gcRssMB)} RSS, heap ${f((r) => r.accessor.gcHeapUsedMB - r.loaded.gcHeapUsedMB)}, external ${f((r) => r.accessor.gcExternalMB - r.loaded.gcExternalMB)}`);
  console.log(`  as sampled (no collection forced), the SDK's code, RSS loaded − baseline: ${f((r) => r.loaded.rssMB - r.baseline.rssMB)}; heap ${f((r) => r.loaded.heapUsedMB - r.baseline.heapUsedMB)}; external ${f((r) => r.loaded.externalMB - r.baseline.externalMB)}`);
  console.log(`  the running accessor, RSS accessor − loaded: ${f((r) => r.accessor.rssMB - r.loaded.rssMB)}; heap ${f((r) => r.accessor.heapUsedMB - r.loaded.heapUsedMB)}; external ${f((r) => r.accessor.externalMB - r.loaded.externalMB)}`);
  for (const m of modes) {
    console.log(`  ${m}: RSS ${f((r) => r[m].rssMB, (n) => `${n.toFixed(1)} MB`)}, heap used ${f((r) => r[m].heapUsedMB, (n) => `${n.toFixed(1)} MB`)}, idle CPU per minute ${f((r) => r[m].idleCpuS, (n) => `${n.toFixed(2)} s`)}`);
  }
  console.log(`(medians of the absolute figures: ${modes.map((m) => `${m} ${median(rounds.map((r) => r[m].rssMB)).toFixed(1)} MB`).join(', ')})`);
} finally {
  await plane.stop();
}
