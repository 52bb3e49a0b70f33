// Profiles a running Node.js process for a window — a hosted-fleet replica in its idle minute, say — without
// restarting it: SIGUSR1 opens its inspector on 127.0.0.1:PORT (node's documented signal), the DevTools protocol over
// a WebSocket takes a CPU profile (or, with --alloc, a sampled allocation profile) for --seconds, and the tables are
// profile-summary.ts's, as hosted-profile.ts prints them. The process is chosen by --pid or by a string of its command
// line (a value that starts with a dash goes after '=': "--cmdline=--identity replica-1 "); --after FILE --pattern RE waits until a line of
// FILE matches first, then
// --delay-s more (to land the window inside a phase another benchmark prints).
//   npm run bench -- live-profile (--pid P | --cmdline S) [--seconds 120] [--alloc] [--port 9229] [--after FILE --pattern RE --delay-s 0]
// The inspector stays open in that process afterwards (node has no signal to close it): use it on benchmark processes only.
import { readFileSync, readdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { eventually, sleep, until } from '../../test/support/timing.js';
import { usage } from './operator-process.js';
import { allocationProfileLines, cpuProfileLines, type AllocationProfile, type CpuProfile } from './profile-summary.js';

const { values: flags } = parseArgs({
  options: {
    pid: { type: 'string' }, cmdline: { type: 'string' }, seconds: { type: 'string', default: '120' }, alloc: { type: 'boolean', default: false },
    port: { type: 'string', default: '9229' }, after: { type: 'string' }, pattern: { type: 'string' }, 'delay-s': { type: 'string', default: '0' },
  },
});
const say = (s: string) => process.stdout.write(`${s}\n`);

const cpuS = (pid: number) => usage(pid).cpuS;

function findPid(): number {
  if (flags.pid) return Number(flags.pid);
  const match = flags.cmdline ?? '';
  const pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d) && Number(d) !== process.pid).filter((d) => {
    try {
      const argv = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').join(' ');
      return match !== '' && argv.includes(match) && /\bnode\b/.test(argv.split(' ')[0]!);
    } catch { return false; }
  });
  if (pids.length !== 1) throw new Error(`--cmdline "${match}": ${pids.length} node processes match (need exactly one)`);
  return Number(pids[0]);
}

if (flags.after) {
  const pattern = new RegExp(flags.pattern ?? '.');
  await until(`a line of ${flags.after} matching ${pattern}`, async () => {
    try { return readFileSync(flags.after!, 'utf8').split('\n').some((l) => pattern.test(l)); } catch { return false; }
  }, 3_600_000, 500);
  await sleep(Number(flags['delay-s']) * 1000);
}
const pid = findPid();
process.kill(pid, 'SIGUSR1');
const port = Number(flags.port);
const targets = await eventually(async () => {
  const list = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json() as { webSocketDebuggerUrl: string }[];
  if (!list.length) throw new Error(`the inspector of ${pid} on port ${port} lists no target`);
  return list;
}, 10_000, 100);

const ws = new WebSocket(targets[0]!.webSocketDebuggerUrl);
await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject; });
let next = 0;
const waiting = new Map<number, (r: unknown) => void>();
ws.onmessage = (m) => {
  const msg = JSON.parse(String(m.data)) as { id?: number; result?: unknown; error?: { message: string } };
  if (msg.id === undefined) return;
  if (msg.error) throw new Error(`inspector: ${msg.error.message}`);
  waiting.get(msg.id)?.(msg.result);
  waiting.delete(msg.id);
};
const post = <T>(method: string, params: Record<string, unknown> = {}) => new Promise<T>((resolve) => {
  const id = ++next;
  waiting.set(id, resolve as (r: unknown) => void);
  ws.send(JSON.stringify({ id, method, params }));
});

const seconds = Number(flags.seconds);
const cpu0 = cpuS(pid);
if (flags.alloc) {
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  await sleep(seconds * 1000);
  const { profile } = await post<{ profile: AllocationProfile }>('HeapProfiler.stopSampling');
  const { bytes, lines } = allocationProfileLines(profile);
  say(`process ${pid}, ${seconds} s (allocation sampling): CPU ${(cpuS(pid) - cpu0).toFixed(2)} s; ${(bytes / 1e6).toFixed(1)} MB allocated (sampled every 4 KiB)`);
  for (const l of lines) say(l);
} else {
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 2000 }); // as hosted-profile.ts: 2 ms between samples
  await post('Profiler.start');
  await sleep(seconds * 1000);
  const { profile } = await post<{ profile: CpuProfile }>('Profiler.stop');
  say(`process ${pid}, ${seconds} s (CPU profile, 2 ms sampling): CPU ${(cpuS(pid) - cpu0).toFixed(2)} s, the profiler's own cost included`);
  for (const l of cpuProfileLines(profile)) say(l);
}
ws.close();
