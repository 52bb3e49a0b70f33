// Where a hosted replica's idle CPU and per-HCP memory go: the coordinator in this process (node
// --expose-gc), a management control plane with N unreachable HCPs (kubeconfig → a closed port) and
// optionally R reachable guests; after a warm-up, a CPU profile of the idle window (node:inspector) summed
// by function and by file, and retained heap and RSS per HCP after a full GC, against the same process
// with no HCP. With --start, the HCPs are published first and the profile covers the coordinator's start
// until every reachable and hollow guest's status is correct (one replica: it holds every shard; a fresh replica
// taking over a fleet, as after a restart or a kill -9). Each window also reports the hollow guests' process's CPU.
//   npm run bench -- hosted-profile [--unreachable 480] [--reachable 0] [--warmup-s 60] [--profile-s 60] [--start]
//     [--backoff-initial-s S] [--backoff-max-s S] [--no-profile] [--hostile KIND,KIND…] [--changes N] [--hollow 0] [--wave]
//     [--heap-snapshot FILE] [--alloc-profile]
// --heap-snapshot FILE writes the heap after the warm-up (read it with `npm run bench -- heap-summary FILE --per N`).
// --alloc-profile samples what the window allocates (V8's sampling heap profiler, objects collected since included)
// instead of its CPU: bytes by function and file — what the garbage collector then spends its time on.
// --hollow N adds N HCPs whose guests are hollow (hollow-guests-process.ts, in a process of their own): what N live
// guests cost a replica that holds them all, idle, without N real API servers on the machine.
// --wave (with --hollow N) profiles every hollow guest's ClusterVersion moving to a new z-version at once (the fleet
// benchmark's wave) until every one's status holds both entries: the event loop's longest stall there is what a
// Lease renewal due meanwhile waits for.
// --changes N profiles N ClusterVersion changes (the latency benchmark's round trip) on the reachable guests in
// turn instead of the idle window, and reports their latency.
// --backoff-* set the guests' reflector backoff (the coordinator's --guest-backoff-max; the initial step is only
// settable here), so an idle window can be measured with the backoff at its cap; --no-profile measures the idle
// window's CPU without the profiler's own cost. --hostile adds one HCP per kind named (test/support/hostile-guests.ts:
// throttle, huge-error, no-newline, long-history, cycling), its guest served by another process
// (hostile-guests-process.ts), so the figures are the coordinator's alone.
// LOG_LEVEL (info, debug) logs the coordinator's lines (JSON, to stderr): a start's timeline, say (unset: errors only).
// (run.sh runs node without --expose-gc; this script re-executes itself with it, and with OPERATOR_NODE_FLAGS when set.)
import { sleep, until } from '../../test/support/timing.js';
import { operatorNodeFlags } from './operator-process.js';
import { FeatureGateWatcher } from './fg-watcher.js';
import { BENCH_PAYLOAD_CATALOG } from './fleet-replicas.js';
import { allocationProfileLines, cpuProfileLines, type AllocationProfile, type CpuProfile } from './profile-summary.js';
import { HollowGuests } from './hollow-guests-client.js';
import { median, nowMs, percentile } from './stats.js';
import { operatorChange } from './status-change.js';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Session } from 'node:inspector/promises';
import { writeHeapSnapshot } from 'node:v8';
import { parseArgs } from 'node:util';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ClusterProfiles, FEATURE_GATE_NAME, resolveFeatureGateDetails, type FeatureGateDetails } from '../../api-types/index.js';
import { FeatureGateResource, ResourceClient, createLogger, readKubeconfigFile } from '../../runtime/index.js';
import { ReleaseCatalog } from '../../hosted/release-catalog.js';
import { startHosted } from '../../hosted/index.js';
import {
  UNREACHABLE_GUEST_KUBECONFIG,
  ensureNamespace,
  hypershiftCRDPaths,
  publishHostedControlPlane,
  setClusterVersion,
  startControlPlane,
  upstreamCRDPaths,
  type ControlPlane,
} from '../../sdk/testing/index.js';

if (typeof globalThis.gc !== 'function') {
  // The coordinator runs in this process: with OPERATOR_NODE_FLAGS (say the image's), else node's defaults.
  execFileSync(process.execPath, [...operatorNodeFlags, '--expose-gc', process.argv[1]!, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(0);
}
const gc = globalThis.gc as () => void;

const { values: flags } = parseArgs({
  options: {
    unreachable: { type: 'string', default: '480' }, reachable: { type: 'string', default: '0' }, 'warmup-s': { type: 'string', default: '60' },
    'profile-s': { type: 'string', default: '60' }, start: { type: 'boolean', default: false },
    hostile: { type: 'string', default: '' }, 'backoff-initial-s': { type: 'string' }, 'backoff-max-s': { type: 'string' }, 'no-profile': { type: 'boolean', default: false },
    changes: { type: 'string', default: '0' }, hollow: { type: 'string', default: '0' }, wave: { type: 'boolean', default: false },
    'heap-snapshot': { type: 'string' }, 'alloc-profile': { type: 'boolean', default: false },
  },
});
const N = Number(flags.unreachable);
const R = Number(flags.reachable);
const HOLLOW = Number(flags.hollow);
const say = (s: string) => process.stdout.write(`${s}\n`);
/**
 * Resident memory by kind of mapping (/proc/self/smaps): malloc's main heap (brk), anonymous mappings (V8's pages, large mallocs, other
 * arenas), files.
 */
function residentByMapping(): { brkMB: number; anonMB: number; fileMB: number } {
  const r = { brkMB: 0, anonMB: 0, fileMB: 0 };
  let kind: keyof typeof r = 'anonMB';
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) kind = header[1] === '[heap]' ? 'brkMB' : header[1] === '' || header[1]!.startsWith('[anon') ? 'anonMB' : 'fileMB';
    else if (line.startsWith('Rss:')) r[kind] += Number(line.split(/\s+/)[1]) / 1024;
  }
  return r;
}
const mem = () => {
  gc();
  gc();
  const m = process.memoryUsage();
  return {
    heapMB: m.heapUsed / 2 ** 20,
    heapTotalMB: m.heapTotal / 2 ** 20,
    rssMB: m.rss / 2 ** 20,
    externalMB: (m.external + m.arrayBuffers) / 2 ** 20,
    ...residentByMapping(),
  };
};

/** CPU seconds per thread name of this process (/proc: the main thread is "node"; V8's GC and compiler helpers, libuv's pool…). */
function threadCpu(): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      const fields = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) / 100);
    } catch { /* the thread ended */ }
  }
  return byName;
}

/** What each thread spent between two threadCpu() readings. */
function threadsLine(before: Map<string, number>): string {
  const after = threadCpu();
  return [...after].map(([name, s]) => [name, s - (before.get(name) ?? 0)] as const).filter(([, s]) => s > 0.005)
    .sort((a, b) => b[1] - a[1]).map(([name, s]) => `${name} ${s.toFixed(2)} s`).join(', ');
}

/** CPU and a sampled profile of `run` in this process, printed summed by file and by function. */
async function profiled(label: string, run: () => Promise<void>): Promise<void> {
  // The event loop's longest stalls: what a Lease renewal due meanwhile waits for.
  // At 100 ms its own cost (~0.05 s a minute) stays out of the figure; at 10 ms it was ~0.4 s.
  const loop = monitorEventLoopDelay({ resolution: 100 });
  loop.enable();
  const stalls = () => { loop.disable(); return `event-loop delay p50 ${(loop.percentile(50) / 1e6).toFixed(0)} / p99 ${(loop.percentile(99) / 1e6).toFixed(0)} / max ${(loop.max / 1e6).toFixed(0)} ms`; };
  const threads0 = threadCpu();
  // The hollow guests' process shares the machine's cores: its CPU says whether the guests or the replica set the pace.
  const hollow0 = hollow?.cpuS();
  const hollowLine = () => (hollow0 === undefined ? '' : `; the hollow guests' process: ${(hollow!.cpuS() - hollow0).toFixed(2)} s`);
  if (flags['no-profile']) {
    const cpu0 = process.cpuUsage();
    await run();
    const cpu = process.cpuUsage(cpu0);
    say(`${label} (no profiler): CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s (user ${(cpu.user / 1e6).toFixed(2)}, system ${(cpu.system / 1e6).toFixed(2)}); ${stalls()}`);
    say(`by thread: ${threadsLine(threads0)}${hollowLine()}`);
    return;
  }
  const session = new Session();
  session.connect();
  if (flags['alloc-profile']) {
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    const cpu0 = process.cpuUsage();
    await run();
    const cpu = process.cpuUsage(cpu0);
    const { profile } = await session.post('HeapProfiler.stopSampling');
    session.disconnect();
    const { bytes: all, lines } = allocationProfileLines(profile as AllocationProfile);
    say(`${label} (allocation sampling): CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s; ${(all / 1e6).toFixed(1)} MB allocated (sampled every 4 KiB); ${stalls()}`);
    for (const l of lines) say(l);
    return;
  }
  await session.post('Profiler.enable');
  // 2 ms between samples: at V8's default (1 ms, a larger heap to walk) the profiler cost more CPU than the idle replica.
  await session.post('Profiler.setSamplingInterval', { interval: 2000 });
  await session.post('Profiler.start');
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await run();
  const wallS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  say(`${label}: ${wallS.toFixed(1)} s, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s (user ${(cpu.user / 1e6).toFixed(2)}, system ${(cpu.system / 1e6).toFixed(2)}); ${stalls()}`);
  say(`by thread: ${threadsLine(threads0)}${hollowLine()}`);
  for (const l of cpuProfileLines(profile as CpuProfile)) say(l);
}

const catalogDir = BENCH_PAYLOAD_CATALOG;

const mgmt = await startControlPlane({ crdPaths: hypershiftCRDPaths() });
const mkc = readKubeconfigFile(mgmt.kubeconfigPath)!;
await ensureNamespace(mkc, 'fgc');
const guests = await Promise.all([...Array(R).keys()].map(async (i) => {
  const plane = await startControlPlane({ etcdURL: mgmt.etcdURL, etcdPrefix: `/g${i}`, crdPaths: upstreamCRDPaths() });
  await setClusterVersion(readKubeconfigFile(plane.kubeconfigPath)!, { history: ['4.22.0'] });
  return plane;
}));
const hostileKinds = flags.hostile ? flags.hostile.split(',') : [];
const hostileProcess = hostileKinds.length
  ? spawn(process.execPath, [join(dirname(fileURLToPath(import.meta.url)), 'hostile-guests-process.js'), ...hostileKinds], { stdio: ['pipe', 'pipe', 'inherit'] })
  : undefined;
const hostileKubeconfigs = hostileProcess
  ? await new Promise<string[]>((resolve, reject) => {
    let out = '';
    hostileProcess.stdout!.on('data', (d: Buffer) => { out += d.toString(); if (out.includes('\n')) resolve(JSON.parse(out) as string[]); });
    hostileProcess.once('exit', (code) => reject(new Error(`hostile-guests-process exited ${code}`)));
  })
  : [];
const hollow = HOLLOW ? await HollowGuests.start(HOLLOW) : undefined;
const coordinator = () => startHosted({
  kubeConfig: mkc, payloadCatalog: catalogDir, namespace: 'fgc',
  identity: 'profiled', metricsBindAddress: '0',
  guest: {
    ...(flags['backoff-initial-s'] ? { backoffInitialMs: Number(flags['backoff-initial-s']) * 1000 } : {}),
    ...(flags['backoff-max-s'] ? { backoffMaxMs: Number(flags['backoff-max-s']) * 1000 } : {}),
  }, healthProbeBindAddress: '0', logger: createLogger({ ...(process.env.LOG_LEVEL ? {} : { level: 'error' }), format: 'json' }),
});
const publishAll = async () => {
  for (let i = 0; i < N; i += 20) {
    await Promise.all([...Array(Math.min(20, N - i)).keys()].map((j) => publishHostedControlPlane(mkc, { namespace: `u${i + j}`, name: `u${i + j}`, kubeconfig: UNREACHABLE_GUEST_KUBECONFIG })));
  }
  for (const [i, kubeconfig] of hostileKubeconfigs.entries()) {
    await publishHostedControlPlane(mkc, { namespace: `h${i}`, name: `h${i}-${hostileKinds[i]}`, kubeconfig, releaseVersion: '4.22.0' });
  }
  for (let i = 0; i < HOLLOW; i += 20) {
    await Promise.all([...Array(Math.min(20, HOLLOW - i)).keys()].map((j) =>
      publishHostedControlPlane(mkc, { namespace: `w${i + j}`, name: `w${i + j}`, kubeconfig: hollow!.kubeconfigs[i + j]!, releaseVersion: '4.22.0' })));
  }
  for (const [i, plane] of guests.entries()) await publishHostedControlPlane(mkc, { namespace: `g${i}`, name: `g${i}`, kubeconfig: readFileSync(plane.kubeconfigPath, 'utf8'), releaseVersion: '4.22.0' });
};

if (flags.start) {
  await publishAll();
  const expected = JSON.stringify([resolveFeatureGateDetails({}, new ReleaseCatalog(catalogDir).registry('4.22.0', ClusterProfiles.IBMCloudManaged), '4.22.0')]);
  // One client per guest, made before the window: the polls' own kubeconfig parses and TLS handshakes stay out of the profile.
  const clientOf = (plane: ControlPlane) => new ResourceClient(readKubeconfigFile(plane.kubeconfigPath)!, FeatureGateResource);
  const clients = new Map(guests.map((plane) => [plane, clientOf(plane)]));
  const correct = async (plane: ControlPlane) => {
    const fg = await clients.get(plane)!.get(FEATURE_GATE_NAME).catch(() => undefined);
    return JSON.stringify(fg?.status?.featureGates) === expected;
  };
  let started: Awaited<ReturnType<typeof coordinator>> | undefined;
  await profiled(`start → ${R} reachable and ${HOLLOW} hollow guests correct (${N} unreachable HCPs)`, async () => {
    const t0 = nowMs();
    started = await coordinator();
    await Promise.all(guests.map((plane, i) => until(`start: guest ${i} correct`, () => correct(plane), 600_000, 50)));
    if (hollow) say(`start: all ${HOLLOW} hollow guests correct ${(await hollow.allCorrect(JSON.parse(expected) as FeatureGateDetails[], t0, 600)).toFixed(1)} s after it`);
  });
  await started!.stop();
  hollow?.stop();
  for (const g of guests) await g.stop();
  await mgmt.stop();
  process.exit(0);
}

const c = await coordinator();
await c.ready;
await sleep(10_000);
const before = mem();
await publishAll();
await sleep(Number(flags['warmup-s']) * 1000);
const after = mem();
say(`sessions ${c.sessions().length}; after GC: heap ${before.heapMB.toFixed(1)} → ${after.heapMB.toFixed(1)} MB (committed ${before.heapTotalMB.toFixed(1)} → ${after.heapTotalMB.toFixed(1)}), external ${before.externalMB.toFixed(1)} → ${after.externalMB.toFixed(1)} MB, ` +
  `RSS ${before.rssMB.toFixed(1)} → ${after.rssMB.toFixed(1)} MB (malloc's brk heap ${before.brkMB.toFixed(1)} → ${after.brkMB.toFixed(1)}, ` +
  `anonymous ${before.anonMB.toFixed(1)} → ${after.anonMB.toFixed(1)}, files ${before.fileMB.toFixed(1)} → ${after.fileMB.toFixed(1)}): per HCP heap ${((after.heapMB - before.heapMB) / (N + R + HOLLOW + hostileKinds.length) * 1024).toFixed(0)} KB, ` +
  `RSS ${((after.rssMB - before.rssMB) / (N + R + HOLLOW + hostileKinds.length) * 1024).toFixed(0)} KB`);
if (flags['heap-snapshot']) say(`heap snapshot: ${writeHeapSnapshot(flags['heap-snapshot'])} (npm run bench -- heap-summary FILE --per ${N + R + HOLLOW + hostileKinds.length})`);
say(`active resources: ${JSON.stringify(Object.entries(process.getActiveResourcesInfo().reduce<Record<string, number>>((a, r) => ({ ...a, [r]: (a[r] ?? 0) + 1 }), {})))}`);

/** rest_client_requests_total by "method resource code" (management and guest requests alike). */
const requestCounts = async () => new Map((await c.metrics.getSingleMetric('rest_client_requests_total')?.get())?.values
  .map((v) => [`${v.labels.method} ${v.labels.resource} ${v.labels.code}`, v.value] as const) ?? []);
const requestsBefore = await requestCounts();
const CHANGES = Number(flags.changes);
if (flags.wave) {
  if (!hollow) throw new Error('--wave moves the hollow guests: give --hollow N');
  const catalog = new ReleaseCatalog(catalogDir);
  const entry = (v: string) => resolveFeatureGateDetails({}, catalog.registry(v, ClusterProfiles.IBMCloudManaged), v);
  await profiled(`wave: ${HOLLOW} hollow guests to 4.22.1 at once`, async () => {
    const t0 = nowMs();
    await hollow.ask({ type: 'history', history: ['4.22.1', '4.22.0'] });
    const s = await hollow.allCorrect([entry('4.22.1'), entry('4.22.0')], t0, 600);
    say(`wave: all ${HOLLOW} correct ${s.toFixed(1)} s after it started`);
  });
} else if (CHANGES > 0) {
  // The latency benchmark's round trip on the reachable guests in turn, profiled: what the coordinator spends on a
  // change (this process also drives the changes and watches for their result: hack/bench and sdk/testing files).
  const watched = await Promise.all(guests.map(async (plane) => {
    const kc = readKubeconfigFile(plane.kubeconfigPath)!;
    return { kc, fgs: new ResourceClient(kc, FeatureGateResource), watcher: await FeatureGateWatcher.start(kc) };
  }));
  const lat: number[] = [];
  await profiled(`${CHANGES} changes on ${R} reachable guests`, async () => {
    for (let i = 0; i < CHANGES; i++) {
      const g = watched[i % watched.length]!;
      lat.push(await operatorChange(g.kc, g.fgs, g.watcher, i));
    }
  });
  say(`change → status seen: p50 ${median(lat).toFixed(1)} / p99 ${percentile(lat, 99).toFixed(1)} ms`);
  for (const w of watched) await w.watcher.stop();
} else {
  await profiled(`idle ${flags['profile-s']} s`, async () => { await sleep(Number(flags['profile-s']) * 1000); });
}
const requestsAfter = await requestCounts();
const sent = [...requestsAfter]
  .map(([k, n]) => [k, n - (requestsBefore.get(k) ?? 0)] as const)
  .filter(([, n]) => n > 0)
  .sort((a, b) => b[1] - a[1]);
say(`requests in the idle window: ${sent.reduce((a, [, n]) => a + n, 0)} (${sent.slice(0, 8).map(([k, n]) => `${k}: ${n}`).join(', ')})`);
await c.stop();
hostileProcess?.stdin!.end();
hollow?.stop();
for (const g of guests) await g.stop();
await mgmt.stop();
process.exit(0);
