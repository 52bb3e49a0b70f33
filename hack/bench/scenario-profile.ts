// Benchmark tooling: where the operator's CPU goes per change — a V8 CPU profile of the footprint scenario
// only (100 status-changing ClusterVersion changes and 20 heartbeats), taken through the inspector protocol
// from outside the process, so start-up is not in it (issue 21: "measured, not guessed").
//   npm run bench -- scenario-profile          (node flags: OPERATOR_NODE_FLAGS, else the Containerfile ENTRYPOINT's)
// Prints the sampled time by kind (our code by folder, Node's internals by module, GC, JSON, idle) and the top
// functions by self time; the profile is kept in .cache/bench/scenario.cpuprofile (Chrome DevTools opens it).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../sdk/testing/index.js';
import { startBenchCluster } from './bench-cluster.js';
import { exited, nodeFlagsOrImage, spawnOperatorProcess, usage } from './operator-process.js';
import { SCENARIO_CHANGES as CHANGES, SCENARIO_HEARTBEATS as HEARTBEATS, changeScenario } from './status-change.js';
import { sleep } from '../../test/support/timing.js';

const INSPECT_PORT = Number(process.env.INSPECT_PORT ?? 9339);
const nodeFlags = [...nodeFlagsOrImage(), `--inspect=127.0.0.1:${INSPECT_PORT}`];

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] }

/** A tiny client of the inspector protocol: one WebSocket, calls by id. */
async function inspector(): Promise<{ call(method: string, params?: object): Promise<unknown>; close(): void }> {
  const targets = await (await fetch(`http://127.0.0.1:${INSPECT_PORT}/json/list`)).json() as { webSocketDebuggerUrl: string }[];
  const ws = new WebSocket(targets[0]!.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject; });
  let next = 1;
  const waiting = new Map<number, (v: unknown) => void>();
  ws.onmessage = (m) => {
    const msg = JSON.parse(String(m.data)) as { id?: number; result?: unknown };
    if (msg.id !== undefined) waiting.get(msg.id)?.(msg.result);
  };
  return {
    call: (method, params = {}) => new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    }),
    close: () => ws.close(),
  };
}

/** What a frame is: our code by folder, a Node internal module, a dependency, or V8's own entries. */
function kindOf(f: ProfileNode['callFrame']): string {
  if (!f.url) return f.functionName.startsWith('(') ? f.functionName : `(native) ${f.functionName || 'anonymous'}`;
  const dist = f.url.indexOf('/dist/');
  if (f.url.includes('node_modules/')) return `dependency ${f.url.split('node_modules/').pop()!.split('/')[0]}`;
  if (dist >= 0) return `ours: ${f.url.slice(dist + 6).split('/').slice(0, -1).join('/') || f.url.slice(dist + 6)}`;
  if (f.url.startsWith('node:')) return `node: ${f.url.slice(5).replace(/^internal\//, '').split('/')[0]!.replace(/\.js$/, '')}`;
  return f.url;
}

const cluster = await startBenchCluster();
const op = await cluster.startOperator((kubeconfigPath, version) => spawnOperatorProcess(kubeconfigPath, version, nodeFlags));
try {
  await sleep(10_000);
  const session = await inspector();
  await session.call('Profiler.enable');
  await session.call('Profiler.setSamplingInterval', { interval: 200 });
  const cpu0 = usage(op.proc.pid!).cpuS;
  await session.call('Profiler.start');
  await changeScenario([cluster]);
  await sleep(2_000);
  const { profile } = await session.call('Profiler.stop') as { profile: Profile };
  const cpuS = usage(op.proc.pid!).cpuS - cpu0;
  session.close();
  const out = join(packageRoot(), '.cache', 'bench');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'scenario.cpuprofile'), JSON.stringify(profile));

  // Self time per node: each sample is charged to the node it hit, with the time delta that follows it.
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0)));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const byKind = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  for (const [id, us] of self) {
    const f = byId.get(id)!.callFrame;
    if (f.functionName === '(idle)') continue;
    total += us;
    const kind = kindOf(f);
    byKind.set(kind, (byKind.get(kind) ?? 0) + us);
    const name = `${f.functionName || '(anonymous)'} ${f.url ? `${f.url.replace(/^.*\/dist\//, '').replace(/^.*node_modules\//, '')}:${f.lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  }
  const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
  console.log(`operator with node ${nodeFlags.join(' ')}: ${CHANGES} changes + ${HEARTBEATS} heartbeats; process CPU ${cpuS.toFixed(2)} s, sampled non-idle ${(total / 1e6).toFixed(3)} s (${(total / 1e3 / CHANGES).toFixed(2)} ms per change)`);
  console.log('| kind | ms | share |\n| --- | --- | --- |');
  for (const [k, us] of top(byKind, 25)) console.log(`| ${k} | ${(us / 1e3).toFixed(1)} | ${((100 * us) / total).toFixed(1)} % |`);
  console.log('\ntop functions by self time:');
  for (const [k, us] of top(byFunction, 30)) console.log(`  ${(us / 1e3).toFixed(1).padStart(7)} ms  ${k}`);
} finally {
  op.proc.kill('SIGTERM');
  await exited(op.proc);
  await cluster.stop();
}
