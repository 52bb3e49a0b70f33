// Benchmark: what one SDK accessor costs a component process (issues 21, 49, 70).
//   npm run bench -- sdk-component-cost      (PAIRS=12; AT_ONCE=<pairs started together, default 6: ~5 min; 1: one
//                                             pair at a time, ~100 s each>; WATCHING=0: without the components' own
//                                             client-node watch; COMPARE_SDK=<another build's sdk/index.js>: a third
//                                             process per pair with that build's accessor, a baseline in the same run)
// Each pair is two real processes started together on one local control plane (sdk-component.ts), both loading
// @kubernetes/client-node and a KubeConfig and holding a client-node watch on Namespaces, as a component does; the
// second also runs one started accessor that has observed its gates. Per pair: the difference of RSS (and of V8 heap
// and external memory) 30 s and 90 s after each is ready, as sampled (no collection forced in either process before),
// then the same after a full collection at the end (what is retained, labelled as such); min / median / max over the
// pairs. Also the idle CPU per minute of each.
import { runComponent, startComponentPlane, type ComponentSample, type MemorySample } from './component-process.js';
import { median, spread } from './stats.js';

const PAIRS = Number(process.env.PAIRS ?? 12);
const WATCHING = process.env.WATCHING !== '0';
const COMPARE_SDK = process.env.COMPARE_SDK;
const AT_ONCE = Number(process.env.AT_ONCE ?? 6);

const plane = await startComponentPlane();

try {
  const run = (mode: 'baseline' | 'accessor', sdk?: string) => runComponent(plane.kubeconfigPath, mode, ['--expose-gc'], WATCHING, sdk);
  const round = async () => {
    const [baseline, accessor, compared] = await Promise.all([run('baseline'), run('accessor'), ...(COMPARE_SDK ? [run('accessor', COMPARE_SDK)] : [])]);
    return { baseline: baseline!, accessor: accessor!, compared };
  };
  const rounds: Awaited<ReturnType<typeof round>>[] = [];
  while (rounds.length < PAIRS) rounds.push(...await Promise.all([...Array(Math.min(AT_ONCE, PAIRS - rounds.length)).keys()].map(round)));
  const mb = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(1)} MB`;
  type At = (s: ComponentSample) => MemorySample;
  const table = (title: string, pick: (r: (typeof rounds)[number]) => ComponentSample) => {
    const diff = (at: At, field: keyof MemorySample) => spread(rounds.map((r) => at(pick(r))[field] - at(r.baseline)[field]), mb);
    const row = (label: string, at: At) => `| ${label} | ${diff(at, 'rssMB')} | ${diff(at, 'heapUsedMB')} | ${diff(at, 'externalMB')} |`;
    console.log(`\n${title}\n| one accessor, accessor − baseline | RSS | V8 heap used | external |\n| --- | --- | --- | --- |`);
    console.log(row('30 s after ready, as sampled (goal ≤ 3 MB median)', (s) => s.at30));
    console.log(row('90 s after ready, as sampled', (s) => s.at90));
    console.log(row('after a full collection (what is retained)', (s) => s.afterGc!));
  };
  console.log(`node ${process.version}, ${PAIRS} pairs, ${AT_ONCE} at a time (the processes of a pair start together)${WATCHING ? ', each holding a client-node watch on Namespaces' : ''}; ` +
    'min / median / max over the pairs');
  table('this build', (r) => r.accessor);
  if (COMPARE_SDK) table(`the accessor of ${COMPARE_SDK} (same run)`, (r) => r.compared!);
  const modes = {
    baseline: (r: (typeof rounds)[number]) => r.baseline,
    accessor: (r: (typeof rounds)[number]) => r.accessor,
    ...(COMPARE_SDK ? { compared: (r: (typeof rounds)[number]) => r.compared! } : {}),
  };
  for (const [m, pick] of Object.entries(modes)) {
    console.log(`  ${m}: RSS at 30 s ${spread(rounds.map((r) => pick(r).at30.rssMB), (n) => `${n.toFixed(1)} MB`)}, heap ${spread(rounds.map((r) => pick(r).at30.heapUsedMB), (n) => `${n.toFixed(1)} MB`)}, ` +
      `idle CPU per minute ${spread(rounds.map((r) => pick(r).idleCpuS), (n) => `${n.toFixed(2)} s`)}, ready ${median(rounds.map((r) => pick(r).readyMs)).toFixed(0)} ms after start (median)`);
  }
  if (process.env.JSON) console.log(JSON.stringify(rounds));
} finally {
  await plane.stop();
}
