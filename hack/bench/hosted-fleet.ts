// `featuregates hosted` at fleet size on real processes: a management control plane with HyperShift's
// HostedControlPlane CRD, GUESTS real guest kube-apiservers (sharing the management etcd through
// --etcd-prefix, each with openshift/api's CRDs and an audit log of its writes), UNREACHABLE more HCPs whose
// kubeconfig points at a closed port, and REPLICAS coordinator processes. Baseline in the same run: the
// single-cluster operator on its own kube-apiserver (same etcd, same audit policy as a guest's): start → first
// status write, and the same ClusterVersion change → status round trip, samples interleaved. The replicas (and the
// watch floor's bare client) run with the node flags of the hosted Deployment's command, the baseline with those of
// the image's ENTRYPOINT, as each ships (OPERATOR_NODE_FLAGS overrides both; set and empty: none).
//   npm run bench -- hosted-fleet [--guests 20] [--unreachable 480] [--hostile 0] [--hollow 0] [--replicas 3] [--samples 100] [--idle-s 60]
//                                 [--settle-s 180] [--restarts 1] [--cpu-limit 1] [--memory-limit 768Mi] [--lease-renewals thread]
//                                 [--json FILE]
// --hollow N adds N HCPs whose guests are hollow (test/support/hollow-guests.ts, all in one process of their own,
// hollow-guests-process.ts): they answer as a guest kube-apiserver does where the coordinator can tell, so a fleet
// of thousands of live guests fits on one machine. `--hollow 1980 --guests 20 --unreachable 0 --hostile 10` is
// issue 46's fleet of 2,010. With hollow guests the benchmark adds a wave (every guest's ClusterVersion moves to a
// new z-version at once → all statuses correct, then back) and counts them in the start and kill -9 phases.
// --hostile N adds N HCPs whose guests are hostile in-process servers (test/support/hostile-guests.ts, its kinds in
// turn), published after the unreachable ones: `--unreachable 470 --hostile 10` is issue 33's fleet of 500.
// --cpu-limit / --memory-limit (Kubernetes quantities) run each replica inside a cgroup with that CPU quota and memory
// limit (root; cgroup v1 or v2: hack/bench/fleet-limits.ts), and end with what the limits did: throttling, memory peaks,
// OOM kills, the Leases lost and how late the renewals were (the `limits` chaos scenario runs the fleet this way).
// --lease-renewals passes the replicas' flag (thread, their default, or event-loop: where they renew their Leases).
// --json FILE writes the rows for scripts.
// The idle phase says what each replica held in it (shards, guests by kind, hostile ones by kind): replicas idle
// unequally by what they hold. The latency phase gives the p50 ratio twice: as measured, and with each operator's share
// (its change less its API server's own PUT → watch) over one server's floor (latencyP50RatioSameFloor).
// Phases: footprint (RSS at 0 HCPs, UNREACHABLE, then 1 / 10 / GUESTS reachable) → idle CPU and Lease writes
// → latency → restart of all replicas (SIGTERM, then fresh ones over emptied guest statuses: start → all
// guests correct) → kill -9 of one replica (its guests written again) → audit: guest writes by non-holders.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ClusterProfiles, FEATURE_GATE_NAME, resolveFeatureGateDetails, shardName, shardOf, type FeatureGate, type FeatureGateDetails } from '../../api-types/index.js';
import { FeatureGateResource, LeaseResource, ResourceClient, readKubeconfigFile, type ClusterAccess, type Lease } from '../../runtime/index.js';
import { ReleaseCatalog } from '../../hosted/release-catalog.js';
import {
  UNREACHABLE_GUEST_KUBECONFIG,
  ensureNamespace,
  hypershiftCRDPaths,
  publishHostedControlPlane,
  setClusterVersion,
  setFeatureGateStatus,
  startControlPlane,
  upstreamCRDPaths,
  type ControlPlane,
} from '../../sdk/testing/index.js';
import { HOSTILE_KINDS, startHostileGuest, type HostileGuest } from '../../test/support/hostile-guests.js';
import { auditSetup, readAuditWrites } from '../../test/support/audit.js';
import { startBenchCluster } from './bench-cluster.js';
import { leaseTimeline } from './lease-timeline.js';
import { BENCH_PAYLOAD_CATALOG, saveReplicaLogs, spawnHostedReplica, type Replica } from './fleet-replicas.js';
import { FeatureGateWatcher } from './fg-watcher.js';
import { ReplicaGroups, describeLimits, limitsFromFlags, limitsReport } from './fleet-limits.js';
import { HollowGuests } from './hollow-guests-client.js';
import { exited, nodeFlagsOrHosted, nodeFlagsOrImage, spawnOperatorProcess, usage } from './operator-process.js';
import { median, nowMs, percentile, spread } from './stats.js';
import { operatorChange, rawWrite } from './status-change.js';
import { sleep, until } from '../../test/support/timing.js';

const { values: flags } = parseArgs({
  options: {
    guests: { type: 'string', default: '20' }, unreachable: { type: 'string', default: '480' }, hostile: { type: 'string', default: '0' }, replicas: { type: 'string', default: '3' },
    samples: { type: 'string', default: '100' }, 'idle-s': { type: 'string', default: '60' }, shards: { type: 'string', default: '32' },
    'settle-s': { type: 'string', default: '180' }, restarts: { type: 'string', default: '1' }, hollow: { type: 'string', default: '0' }, json: { type: 'string' },
    'cpu-limit': { type: 'string' }, 'memory-limit': { type: 'string' }, 'lease-renewals': { type: 'string' },
  },
});
const GUESTS = Number(flags.guests);
const UNREACHABLE = Number(flags.unreachable);
const HOSTILE = Number(flags.hostile);
const HOLLOW = Number(flags.hollow);
const REPLICAS = Number(flags.replicas);
const SAMPLES = Number(flags.samples);
const IDLE_S = Number(flags['idle-s']);
const SHARDS = Number(flags.shards);
const RESTARTS = Number(flags.restarts);
const LIMITS = limitsFromFlags(flags['cpu-limit'], flags['memory-limit']);
const NS = 'featuregate-hosted';
const CATALOG = BENCH_PAYLOAD_CATALOG;
const LEASE = { duration: 15, renew: 10, retry: 2 };
const NODE_FLAGS = nodeFlagsOrHosted();
const BASELINE_NODE_FLAGS = nodeFlagsOrImage();
const say = (s: string) => process.stdout.write(`${s}\n`);
process.setMaxListeners(100); // one exit hook per control plane
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

interface Guest { i: number; plane: ControlPlane; kc: ClusterAccess; key: string; audit: string; watcher?: FeatureGateWatcher }

const catalog = new ReleaseCatalog(CATALOG);
const expected: FeatureGateDetails = resolveFeatureGateDetails({}, catalog.registry('4.22.0', ClusterProfiles.IBMCloudManaged), '4.22.0');
/** The wave's new z-version and its entry. */
const WAVE_VERSION = '4.22.1';
const expectedWave: FeatureGateDetails = resolveFeatureGateDetails(
  {},
  catalog.registry(WAVE_VERSION, ClusterProfiles.IBMCloudManaged),
  WAVE_VERSION,
);
/** Rows for --json. */
const rows: Record<string, unknown> = {};
const hollowKey = (i: number) => `clusters-w${i}/w${i}`;

/** CPU per minute of a bare client holding 3 watches on each of these guests (watch-floor.ts in a process of its own). */
async function watchFloor(kubeconfigs: string[]): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'watch-floor-'));
  writeFileSync(join(dir, 'kubeconfigs.json'), JSON.stringify(kubeconfigs));
  const child = spawn(process.execPath, [...NODE_FLAGS, join(import.meta.dirname, 'watch-floor.js'), '--kubeconfigs', join(dir, 'kubeconfigs.json'),
    '--warmup-s', '30', '--window-s', String(IDLE_S), '--json', join(dir, 'floor.json')], { stdio: ['ignore', 'inherit', 'inherit'] });
  onFailure.push(() => { if (child.exitCode === null) child.kill('SIGKILL'); });
  await exited(child);
  return (JSON.parse(readFileSync(join(dir, 'floor.json'), 'utf8')) as { cpuSPerMin: number }).cpuSPerMin;
}

/**
 * What a run that fails must still stop: its replicas and baseline operator outlive it otherwise (they are not in a process group of its
 * own).
 */
const onFailure: (() => unknown)[] = [];
/** The replica slots' cgroups under --cpu-limit / --memory-limit. */
const groups = LIMITS && new ReplicaGroups(LIMITS, REPLICAS);
if (groups) onFailure.push(() => groups.remove());
/** Every replica spawned, by id (its log is `<id>.log` in the management plane's directory). */
const spawned: string[] = [];
function spawnReplica(mgmt: ControlPlane, id: string): Replica {
  spawned.push(id);
  const replica = spawnHostedReplica(mgmt, id, {
    catalog: CATALOG, namespace: NS, shards: SHARDS, nodeFlags: NODE_FLAGS, ...(groups ? { cgroup: groups.of(id) } : {}),
    ...(flags['lease-renewals'] ? { args: ['--lease-renewals', flags['lease-renewals']] } : {}),
  });
  onFailure.push(() => { if (replica.proc.exitCode === null && replica.proc.signalCode === null) replica.proc.kill('SIGKILL'); });
  return replica;
}

/**
 * What the machine's cores did from now until the returned function is called: the fresh replicas' CPU (all of it,
 * since they were spawned after), per guest engaged, beside the hollow process, the management kube-apiserver and
 * etcd, and the machine's busy time against its cores × the wall time (is the start bound by the CPU?).
 */
function startCpuMeter(mgmt: ControlPlane, hollow: HollowGuests | undefined): (replicas: Replica[], guests: number) => string {
  const machineBusyS = () => {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
    return (ticks[0]! + ticks[1]! + ticks[2]! + ticks[5]! + ticks[6]! + ticks[7]!) / 100; // user nice system irq softirq steal
  };
  // The control plane's pids are its reapers' (control-plane/supervised-process.ts): the binary is the reaper's child.
  const binaryCpuS = (reaper: number) => {
    const children = readFileSync(`/proc/${reaper}/task/${reaper}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    return sum([reaper, ...children].map((pid) => usage(pid).cpuS));
  };
  const apiCpuS = () => binaryCpuS(mgmt.pids.kubeAPIServer);
  const etcdCpuS = () => binaryCpuS(mgmt.pids.etcd);
  const t0 = nowMs();
  const at0 = { machine: machineBusyS(), hollow: hollow?.cpuS() ?? 0, api: apiCpuS(), etcd: etcdCpuS() };
  return (replicas, guests) => {
    const wallS = (nowMs() - t0) / 1000;
    const replicaS = sum(replicas.map((r) => usage(r.proc.pid!).cpuS));
    return `replicas ${replicaS.toFixed(1)} s (${(replicaS / guests * 1000).toFixed(1)} ms a guest), hollow process ` +
      `${((hollow?.cpuS() ?? 0) - at0.hollow).toFixed(1)} s, management kube-apiserver ${(apiCpuS() - at0.api).toFixed(1)} s, ` +
      `etcd ${(etcdCpuS() - at0.etcd).toFixed(1)} s; the machine busy ${(machineBusyS() - at0.machine).toFixed(1)} s of ` +
      `${cpus().length} cores × ${wallS.toFixed(1)} s`;
  };
}

async function guestCorrect(g: Guest): Promise<boolean> {
  const fg = await new ResourceClient(g.kc, FeatureGateResource).get(FEATURE_GATE_NAME);
  return JSON.stringify(fg.status?.featureGates) === JSON.stringify([expected]);
}

async function main(): Promise<void> {
  const t00 = Date.now();
  say(`# hosted-fleet: ${GUESTS} reachable guests + ${UNREACHABLE} unreachable HCPs, ${REPLICAS} replicas, ${SHARDS} shards, lease ${LEASE.duration}s/${LEASE.renew}s/${LEASE.retry}s, node ${process.version} ${NODE_FLAGS.join(' ') || '(no flags)'} (the baseline ${BASELINE_NODE_FLAGS.join(' ') || 'no flags'})` +
    (LIMITS ? `; each replica under ${describeLimits(LIMITS)}` : ''));
  const mgmtAudit = auditSetup();
  const mgmt = await startControlPlane({ crdPaths: hypershiftCRDPaths(), extraAPIServerArgs: mgmtAudit.apiServerArgs });
  managementDir = mgmt.dir;
  const mkc = readKubeconfigFile(mgmt.kubeconfigPath)!;
  const guests: Guest[] = [];
  for (let i = 0; i < GUESTS; i += 4) {
    const batch = await Promise.all([...Array(Math.min(4, GUESTS - i)).keys()].map(async (j) => {
      const a = auditSetup();
      const plane = await startControlPlane({ etcdURL: mgmt.etcdURL, etcdPrefix: `/guest-${i + j}`, crdPaths: upstreamCRDPaths(), extraAPIServerArgs: [...a.apiServerArgs, '--v=0'] });
      const kc = readKubeconfigFile(plane.kubeconfigPath)!;
      await setClusterVersion(kc, { history: ['4.22.0'] });
      return { i: i + j, plane, kc, key: `clusters-g${i + j}/g${i + j}`, audit: a.logPath };
    }));
    guests.push(...batch);
  }
  say(`setup: management + ${GUESTS} guest kube-apiservers in ${((Date.now() - t00) / 1000).toFixed(0)} s`);
  // The baseline's API server shares the management etcd too and keeps the same audit log as every guest's:
  // same storage, same load, same work per write.
  const baseAudit = auditSetup();
  const baseline = await startBenchCluster({ etcdURL: mgmt.etcdURL, etcdPrefix: '/baseline', extraAPIServerArgs: [...baseAudit.apiServerArgs, '--v=0'] });
  onFailure.push(() => baseline.stop());
  const base = await baseline.startOperator((kubeconfig, version) => spawnOperatorProcess(kubeconfig, version, BASELINE_NODE_FLAGS));
  say(`baseline: single-cluster operator start → first status write ${base.startMs.toFixed(0)} ms`);

  await ensureNamespace(mkc, NS);
  const timeline = leaseTimeline(mkc, NS);
  let replicas = [...Array(REPLICAS).keys()].map((k) => spawnReplica(mgmt, `replica-${k}`));
  const rss = () => sum(replicas.map((r) => usage(r.proc.pid!).rssMB));
  await sleep(15_000);
  const footprint: [string, number, number][] = [['0 HCPs', 0, rss()]];
  say(`footprint: 0 HCPs: ${rss().toFixed(1)} MB over ${REPLICAS} replicas`);

  // Unreachable HCPs: a kubeconfig whose server is a closed port.
  for (let i = 0; i < UNREACHABLE; i += 20) {
    await Promise.all([...Array(Math.min(20, UNREACHABLE - i)).keys()].map((j) =>
      publishHostedControlPlane(mkc, { namespace: `clusters-u${i + j}`, name: `u${i + j}`, kubeconfig: UNREACHABLE_GUEST_KUBECONFIG })));
  }
  await sleep(30_000);
  footprint.push([`${UNREACHABLE} unreachable`, UNREACHABLE, rss()]);
  say(`footprint: ${UNREACHABLE} unreachable: ${rss().toFixed(1)} MB`);
  const hostile: HostileGuest[] = [];
  for (let i = 0; i < HOSTILE; i++) {
    const kind = HOSTILE_KINDS[i % HOSTILE_KINDS.length]!;
    const server = await startHostileGuest(kind);
    hostile.push(server);
    await publishHostedControlPlane(mkc, { namespace: `clusters-h${i}`, name: `h${i}`, kubeconfig: server.kubeconfig(), releaseVersion: '4.22.0' });
  }
  if (HOSTILE) {
    await sleep(30_000);
    footprint.push([`+${HOSTILE} hostile`, UNREACHABLE + HOSTILE, rss()]);
    say(`footprint: ${UNREACHABLE} unreachable + ${HOSTILE} hostile (${HOSTILE_KINDS.join(', ')} in turn): ${rss().toFixed(1)} MB; ` +
      `requests they were sent: ${hostile.map((h) => h.requests.length).join(' ')}`);
  }
  const hollow = HOLLOW ? await HollowGuests.start(HOLLOW) : undefined;
  if (hollow) {
    const t0 = nowMs();
    for (let i = 0; i < HOLLOW; i += 20) {
      await Promise.all([...Array(Math.min(20, HOLLOW - i)).keys()].map((j) =>
        publishHostedControlPlane(mkc, { namespace: `clusters-w${i + j}`, name: `w${i + j}`, kubeconfig: hollow.kubeconfigs[i + j]!, releaseVersion: '4.22.0' })));
    }
    const published = (nowMs() - t0) / 1000;
    const correctS = await hollow.allCorrect([expected], t0, 900);
    say(`hollow: ${HOLLOW} HCPs published in ${published.toFixed(1)} s; all ${HOLLOW} guests' status correct ${correctS.toFixed(1)} s after the first was published`);
    rows.hollowEngagedAllCorrectS = correctS;
    await sleep(10_000);
    footprint.push([`+${HOLLOW} hollow reachable`, UNREACHABLE + HOSTILE + HOLLOW, rss()]);
    say(`footprint: ${UNREACHABLE} unreachable + ${HOSTILE} hostile + ${HOLLOW} hollow: ${rss().toFixed(1)} MB`);
  }
  let added = 0;
  for (const step of [1, 10, GUESTS].filter((n, k, a) => n <= GUESTS && a.indexOf(n) === k)) {
    for (; added < step; added++) {
      const g = guests[added]!;
      await publishHostedControlPlane(mkc, { namespace: `clusters-g${g.i}`, name: `g${g.i}`, kubeconfig: readFileSync(g.plane.kubeconfigPath, 'utf8'), releaseVersion: '4.22.0' });
    }
    await Promise.all(guests.slice(0, step).map((g) => until(`guest ${g.i} correct`, () => guestCorrect(g), 120_000, 100)));
    await sleep(10_000);
    footprint.push([`+${step} reachable`, UNREACHABLE + HOSTILE + HOLLOW + step, rss()]);
    say(`footprint: ${UNREACHABLE} unreachable + ${step} reachable: ${rss().toFixed(1)} MB`);
  }

  // Who holds each shard Lease now, and what each replica holds through them (the idle rows differ by what they hold).
  const shardHolders = async () => new Map((await new ResourceClient<Lease>(mkc, LeaseResource, undefined, { namespace: NS }).list()).items
    .map((l) => [l.metadata.name, l.spec?.holderIdentity]));
  const heldByReplica = async () => {
    const holders = await shardHolders();
    const holderOf = (key: string) => holders.get(shardName(shardOf(key, SHARDS)));
    return replicas.map(({ id }) => {
      const shards = [...Array(SHARDS).keys()].filter((s) => holders.get(shardName(s)) === id).length;
      const hollowHeld = [...Array(HOLLOW).keys()].filter((i) => holderOf(hollowKey(i)) === id).length;
      const real = guests.filter((g) => holderOf(g.key) === id).length;
      const unreachable = [...Array(UNREACHABLE).keys()].filter((i) => holderOf(`clusters-u${i}/u${i}`) === id).length;
      const kinds = hostile.map((_, i) => HOSTILE_KINDS[i % HOSTILE_KINDS.length]!).filter((_, i) => holderOf(`clusters-h${i}/h${i}`) === id);
      return `${id} ${shards} shards, ${hollowHeld} hollow + ${real} real guests + ${unreachable} unreachable, hostile: ${kinds.join(', ') || 'none'}`;
    }).join('; ');
  };

  // Idle: CPU per replica and Lease writes (the management audit log) over IDLE_S, right after the work and
  // again once the unreachable guests' backoff has grown (SETTLE_S later); the baseline operator beside it.
  const idle = async (label: string) => {
    const cpu0 = replicas.map((r) => usage(r.proc.pid!).cpuS);
    const base0 = usage(base.proc.pid!).cpuS;
    const idleFrom = Date.now();
    await sleep(IDLE_S * 1000);
    const idleTo = Date.now();
    const idleCpu = replicas.map((r, k) => (usage(r.proc.pid!).cpuS - cpu0[k]!) / (IDLE_S / 60));
    const leaseWrites = readAuditWrites(mgmtAudit.logPath).filter((w) => w.resource === 'leases' && (w.verb === 'update' || w.verb === 'create')
      && w.completed >= idleFrom && w.completed <= idleTo && w.code < 300);
    const leaseRate = leaseWrites.length / ((idleTo - idleFrom) / 1000);
    rows.idleCpuSPerMin = idleCpu;
    rows.leaseWritesPerS = leaseRate;
    say(`idle ${IDLE_S} s ${label}: CPU per replica ${idleCpu.map((c) => c.toFixed(2)).join(' / ')} s per minute ` +
      `(baseline single-cluster operator ${((usage(base.proc.pid!).cpuS - base0) / (IDLE_S / 60)).toFixed(2)}); Lease writes ${leaseRate.toFixed(2)}/s ` +
      `(goal ≤ shards / retry period = ${(SHARDS / LEASE.retry).toFixed(1)}/s)`);
  };
  await idle('right after');
  await sleep(Number(flags['settle-s']) * 1000);
  await idle(`${flags['settle-s']} s later`);
  say(`held in that window: ${await heldByReplica()}`);
  if (hollow) {
    // The floor of the same watches: a bare Node.js client holding a replica's share of the live guests' watches (3 each)
    // on the same hollow process, beside the replicas, with their node flags (watch-floor.ts).
    const share = Math.round((HOLLOW + GUESTS) / REPLICAS);
    const floor = await watchFloor(hollow.kubeconfigs.slice(0, share));
    rows.watchFloorCpuSPerMin = floor;
    const idleCpu = rows.idleCpuSPerMin as number[];
    say(`watch floor: ${share} guests × 3 watches from a bare client ${floor.toFixed(2)} s per minute; the replicas idle at ` +
      `${idleCpu.map((c) => `${(c / floor).toFixed(1)}×`).join(' / ')} of it (goal ≤ 3× and ≤ 0.4 s/min)`);
  }
  const baseCpu0 = usage(base.proc.pid!).cpuS;
  const fleetCpu0 = sum(replicas.map((r) => usage(r.proc.pid!).cpuS));
  const latencyStarted = Date.now();

  // Latency: the same round trip as the single-cluster benchmark, interleaved with it.
  for (const g of guests) g.watcher = await FeatureGateWatcher.start(g.kc);
  const fleetLat: number[] = [];
  const baseLat: number[] = [];
  const latencyFrom = Date.now();
  // Beside each change, the same API server's own floor: a status PUT by this process until the watcher sees it
  // (rawWrite; the operator then prunes that entry, awaited before the next sample). The operators' share of a
  // round trip is the change's time less that floor: what separates the fleet's code from its guests' servers.
  const baseRaw: number[] = [];
  const fleetRaw: number[] = [];
  const rawThenPruned = async (kc: ClusterAccess, fgs: ResourceClient<FeatureGate>, watcher: FeatureGateWatcher, i: number) => {
    const ms = await rawWrite(kc, fgs, watcher, i);
    await until('the raw entry pruned', async () => (await fgs.get(FEATURE_GATE_NAME)).status?.featureGates.length === 1, 30_000, 20);
    return ms;
  };
  // Both sides through this project's kubeconfig reader (client-node's reads the files again on every request).
  const baseKc = readKubeconfigFile(baseline.plane.kubeconfigPath)!;
  for (let i = 0; i < SAMPLES; i++) {
    baseLat.push(await operatorChange(baseKc, baseline.fgs, baseline.watcher, i));
    const g = guests[i % GUESTS]!;
    const gfgs = new ResourceClient(g.kc, FeatureGateResource);
    fleetLat.push(await operatorChange(g.kc, gfgs, g.watcher!, i));
    baseRaw.push(await rawThenPruned(baseKc, baseline.fgs, baseline.watcher, i));
    fleetRaw.push(await rawThenPruned(g.kc, gfgs, g.watcher!, i));
  }
  say(`latency floor (the API server's PUT → watch, ${SAMPLES} each): guests p50 ${median(fleetRaw).toFixed(1)} ms, single-cluster p50 ${median(baseRaw).toFixed(1)} ms; ` +
    `the operators' share (p50 change − p50 floor): fleet ${(median(fleetLat) - median(fleetRaw)).toFixed(1)} ms, single-cluster ${(median(baseLat) - median(baseRaw)).toFixed(1)} ms`);
  const baseIdle = (usage(base.proc.pid!).cpuS - baseCpu0);
  const fleetCpu = sum(replicas.map((r) => usage(r.proc.pid!).cpuS)) - fleetCpu0;
  say(`CPU per sample over the latency phase (a change and a raw entry's prune; the fleet's is all replicas', Leases and quiet guests included): ` +
    `fleet ${(fleetCpu / SAMPLES * 1000).toFixed(1)} ms, single-cluster operator ${(baseIdle / SAMPLES * 1000).toFixed(1)} ms over ${((Date.now() - latencyStarted) / 1000).toFixed(0)} s`);
  rows.latencyP50Ratio = median(fleetLat) / median(baseLat);
  // The same ratio with both operators' shares over one API server's floor (the baseline's: the larger of the two
  // ratios): what separates the coordinator's code from the single-cluster operator's, the guests' slower servers left out.
  const shares = [median(fleetLat) - median(fleetRaw), median(baseLat) - median(baseRaw)] as const;
  rows.latencyP50RatioSameFloor = (median(baseRaw) + shares[0]) / (median(baseRaw) + shares[1]);
  say(`latency p50 over the same floor: ${(rows.latencyP50RatioSameFloor as number).toFixed(2)} on the baseline's, ` +
    `${((median(fleetRaw) + shares[0]) / (median(fleetRaw) + shares[1])).toFixed(2)} on the guests'`);
  rows.latencyP99Ratio = percentile(fleetLat, 99) / percentile(baseLat, 99);
  say(`latency (${SAMPLES} changes): fleet p50 ${median(fleetLat).toFixed(1)} / p99 ${percentile(fleetLat, 99).toFixed(1)} ms; ` +
    `single-cluster operator p50 ${median(baseLat).toFixed(1)} / p99 ${percentile(baseLat, 99).toFixed(1)} ms ` +
    `(ratio ${(median(fleetLat) / median(baseLat)).toFixed(2)} / ${(percentile(fleetLat, 99) / percentile(baseLat, 99)).toFixed(2)}); baseline CPU over the latency phase ${baseIdle.toFixed(2)} s`);

  // What each path wrote during the latency phase (guest audit logs: verb, resource, answer), per change.
  const latencyTo = Date.now();
  const writesIn = (paths: string[], who: RegExp) => {
    const counts = new Map<string, number>();
    for (const p of paths) {
      for (const w of readAuditWrites(p)) {
        if (w.received < latencyFrom || w.received > latencyTo || !who.test(w.userAgent) || w.resource === 'events') continue;
        const what = `${w.verb} ${w.resource}${w.subresource ? `/${w.subresource}` : ''} ${w.code}`;
        counts.set(what, (counts.get(what) ?? 0) + 1);
      }
    }
    return [...counts].sort().map(([w, n]) => `${w} ${(n / SAMPLES).toFixed(2)}`).join(', ') || 'none';
  };
  say(`latency phase writes per sample (a change, then the prune of a raw entry): fleet ${writesIn(guests.map((g) => g.audit), /replica\//)}; single-cluster operator ${writesIn([baseAudit.logPath], /^featuregates-operator\//)}`);

  // The wave: every guest's ClusterVersion moves to a new z-version at once (as a fleet-wide upgrade reaches the
  // guests), until every guest's status holds both entries; then back (the history rewritten to the old version
  // alone), until the new entry is pruned everywhere.
  if (hollow) {
    for (const [label, history, entries] of [['to', [WAVE_VERSION, '4.22.0'], [expectedWave, expected]], ['back', ['4.22.0'], [expected]]] as const) {
      const t0 = nowMs();
      await Promise.all([hollow.ask({ type: 'history', history }), ...guests.map((g) => setClusterVersion(g.kc, { history: [...history] }))]);
      const wanted = JSON.stringify([...entries].sort((a, b) => a.version.localeCompare(b.version)));
      const realDone = Promise.all(guests.map((g) => until(`guest ${g.i} after the wave`, async () => {
        const fg = await new ResourceClient(g.kc, FeatureGateResource).get(FEATURE_GATE_NAME);
        return JSON.stringify([...fg.status?.featureGates ?? []].sort((a, b) => a.version.localeCompare(b.version))) === wanted;
      }, 600_000, 250)));
      // Together: a real guest that times out first must fail this await (and keep the logs), not reject unhandled.
      const [hollowS] = await Promise.all([hollow.allCorrect([...entries], t0, 600), realDone]);
      const allS = (nowMs() - t0) / 1000;
      if (label === 'to') rows.waveAllCorrectS = allS;
      say(`wave ${label} ${history[0]}: all ${HOLLOW + GUESTS} guests' status correct in ${allS.toFixed(1)} s (hollow ${hollowS.toFixed(1)} s)`);
    }
  }

  // Restart: SIGTERM every replica (each releases its Leases), empty every guest's status, start REPLICAS fresh,
  // time until all are correct; RESTARTS times (the start burst is where a busy replica can miss its renewals).
  let generation = 1;
  for (let round = 1; round <= RESTARTS; round++) {
    const terms = await Promise.all(replicas.map(async (r) => {
      const t = nowMs();
      r.proc.kill('SIGTERM');
      await exited(r.proc);
      return { code: r.proc.exitCode, s: (nowMs() - t) / 1000 };
    }));
    say(`SIGTERM: ${terms.map((t) => `exit ${t.code} in ${t.s.toFixed(1)} s`).join(', ')}`);
    for (const g of guests) await setFeatureGateStatus(g.kc, []);
    await hollow?.ask({ type: 'clear' });
    const startCpu = startCpuMeter(mgmt, hollow);
    const started = nowMs();
    replicas = [...Array(REPLICAS).keys()].map((k) => spawnReplica(mgmt, `replica-${k + REPLICAS * generation}`));
    generation++;
    const correctAt = await Promise.all(guests.map(async (g) => {
      await until(`guest ${g.i} correct after restart`, () => guestCorrect(g), 120_000, 100);
      return { g, s: (nowMs() - started) / 1000 };
    }));
    const hollowS = hollow ? await hollow.allCorrect([expected], started, 600) : 0;
    const startToCorrect = nowMs() - started;
    rows.startAllCorrectS = startToCorrect / 1000;
    if (hollow) say(`start: all ${HOLLOW} hollow guests correct ${hollowS.toFixed(1)} s after the spawn`);
    say(`start: CPU until then ${startCpu(replicas, GUESTS + HOLLOW)}`);
    const gone = replicas.filter((r) => r.proc.exitCode !== null || r.proc.signalCode !== null);
    say(`start${RESTARTS > 1 ? ` ${round}/${RESTARTS}` : ''}: ${REPLICAS} replicas spawned → all ${GUESTS + HOLLOW} reachable guests' status correct in ${(startToCorrect / 1000).toFixed(1)} s ` +
      `(baseline single-cluster start → first write ${(base.startMs / 1000).toFixed(2)} s); replicas exited meanwhile: ${gone.length ? gone.map((r) => `${r.id} (${r.proc.exitCode ?? r.proc.signalCode})`).join(', ') : 'none'}`);
    const bySpeed = correctAt.sort((a, b) => a.s - b.s);
    say(`start: per guest ${bySpeed[0]!.s.toFixed(1)} / ${median(bySpeed.map((c) => c.s)).toFixed(1)} / ${bySpeed[bySpeed.length - 1]!.s.toFixed(1)} s (min / median / max); ` +
      `slowest ${bySpeed.slice(-3).reverse().map((c) => `${c.g.key} (shard ${shardOf(c.g.key, SHARDS)}) ${c.s.toFixed(1)} s`).join(', ')}`);
    if (gone.length) replicas = [...replicas.filter((r) => !gone.includes(r)), ...gone.map((r) => spawnReplica(mgmt, `${r.id}-again`))];
    if (round < RESTARTS) await sleep(10_000);
  }
  await sleep(3_000);

  // kill -9 of one replica: seed a stale entry on each of its guests, kill, drop it from history, time until pruned.
  const victim = replicas[0]!;
  const holders = await shardHolders();
  const owned = guests.filter((g) => holders.get(shardName(shardOf(g.key, SHARDS))) === victim.id);
  for (const g of owned) {
    await setClusterVersion(g.kc, { history: ['4.22.0', '4.21.99'] });
    await setFeatureGateStatus(g.kc, [{ version: '4.22.0', enabled: expected.enabled.map((x) => x.name), disabled: expected.disabled.map((x) => x.name) }, { version: '4.21.99', enabled: [], disabled: [] }]);
  }
  await sleep(2_000);
  const ownedHollow = [...Array(HOLLOW).keys()].filter((i) => holders.get(shardName(shardOf(hollowKey(i), SHARDS))) === victim.id);
  const killedAt = nowMs();
  const killedWall = Date.now();
  victim.proc.kill('SIGKILL');
  await exited(victim.proc);
  // The survivors' CPU through the take-over (sampled every 250 ms): its idle part before their first shard is taken.
  const survivors = replicas.slice(1);
  const cpuSamples: { t: number; cpuS: number }[] = [];
  const sampleCpu = () => cpuSamples.push({ t: Date.now(), cpuS: sum(survivors.map((r) => usage(r.proc.pid!).cpuS)) });
  sampleCpu();
  const sampler = setInterval(sampleCpu, 250);
  // Its hollow guests' statuses emptied at the kill: written again once their shards are taken over.
  const hollowRewritten = hollow && ownedHollow.length
    ? hollow.ask({ type: 'clear', indices: ownedHollow }).then(() => hollow.allCorrect([expected], killedAt, 120, ownedHollow)) : Promise.resolve(0);
  const takeovers = await Promise.all(owned.map(async (g) => {
    const pruned = g.watcher!.next((v) => v === '4.22.0');
    await setClusterVersion(g.kc, { history: ['4.22.0'] });
    await pruned;
    return nowMs() - killedAt;
  }));
  const hollowKillS = await hollowRewritten;
  sampleCpu();
  clearInterval(sampler);
  rows.killRewrittenS = Math.max(hollowKillS, ...takeovers.map((t) => t / 1000));
  if (hollow) say(`kill -9: its ${ownedHollow.length} hollow guests written again ${hollowKillS.toFixed(1)} s after the kill`);
  // The row in two parts: the Leases (each of its shards seen held by a survivor) and the work after them.
  const takenS = (shard: number) => ((timeline.takenFrom(shardName(shard), victim.id, killedWall) ?? NaN) - killedWall) / 1000;
  const shardTaken = Array.from({ length: SHARDS }, (_, s) => s).filter((s) => holders.get(shardName(s)) === victim.id).map(takenS);
  const afterShard = owned.map((g, i) => takeovers[i]! / 1000 - takenS(shardOf(g.key, SHARDS)));
  say(`kill -9: its ${shardTaken.length} shards taken over ${spread(shardTaken, (n) => `${n.toFixed(1)} s`)} after the kill (min / median / max; ` +
    `Leases sampled every 100 ms); its reachable guests written ${afterShard.length ? spread(afterShard, (n) => `${n.toFixed(2)} s`) : 'n/a'} after that`);
  // The take-over's CPU per guest: the survivors' CPU from their first shard taken to the last guest written, less
  // what they spent idle at the rate of the Lease wait before it, over the guests they took.
  const firstTaken = killedWall + Math.min(...shardTaken.filter(Number.isFinite)) * 1000;
  const cpuAt = (t: number) => cpuSamples.reduce((best, x) => (Math.abs(x.t - t) < Math.abs(best.t - t) ? x : best));
  const [atKill, atTaken, atEnd] = [cpuSamples[0]!, cpuAt(firstTaken), cpuSamples.at(-1)!];
  const idleRate = (atTaken.cpuS - atKill.cpuS) / Math.max(1, atTaken.t - atKill.t);
  const takenGuests = ownedHollow.length + owned.length;
  const takeoverCpuMs = (atEnd.cpuS - atTaken.cpuS - idleRate * (atEnd.t - atTaken.t)) * 1000;
  rows.takeoverCpuMsPerGuest = takeoverCpuMs / Math.max(1, takenGuests);
  say(`kill -9: the survivors' CPU for the take-over ${(takeoverCpuMs / 1000).toFixed(2)} s over ${takenGuests} guests = ` +
    `${(rows.takeoverCpuMsPerGuest as number).toFixed(1)} ms per guest (idle ${(idleRate * 60_000).toFixed(2)} s/min subtracted; goal ≤ 5 ms)`);
  replicas = replicas.slice(1);
  say(`kill -9 of ${victim.id} (owned ${owned.length} of the reachable guests): written again after ${takeovers.length ? `${(Math.max(...takeovers) / 1000).toFixed(1)} s (max), ${(median(takeovers) / 1000).toFixed(1)} s (median)` : 'n/a'} ` +
    `(goal ≤ lease duration + 5 s = ${LEASE.duration + 5} s)`);

  // Audit: every successful guest write names its replica (User-Agent); was that replica the shard's holder?
  await timeline.stop();
  let writes = 0;
  const violations: string[] = [];
  for (const g of guests) {
    const lease = shardName(shardOf(g.key, SHARDS));
    for (const w of readAuditWrites(g.audit)) {
      const id = /replica\/(\S+)/.exec(w.userAgent)?.[1];
      if (!id || w.code >= 300 || !['featuregates', 'clusteroperators'].includes(w.resource)) continue;
      writes++;
      // A violation: the samples just before and just after the write both name another holder.
      const before = timeline.holderAt(lease, w.received);
      const after = timeline.holderAfter(lease, w.completed);
      if (before !== undefined && after !== undefined && before !== id && after !== id) violations.push(`${g.key}: ${w.verb} ${w.resource} by ${id} while ${before} held ${lease}`);
    }
  }
  rows.nonHolderWrites = violations.length;
  say(`audit: ${writes} guest writes by replicas, ${violations.length} by a replica that did not hold the shard${violations.length ? `: ${violations.slice(0, 5).join('; ')}` : ''}`);

  const per = (a: [string, number, number], b: [string, number, number]) => (b[1] === a[1] ? 'n/a' : ((b[2] - a[2]) / (b[1] - a[1])).toFixed(3));
  const f = footprint;
  // Least-squares slope over the reachable steps (1 / 10 / GUESTS): the cost of one more reachable guest.
  const reachable = f.filter(([what]) => what.endsWith('reachable') && what.startsWith('+'));
  const pts = reachable.map(([, n, mb]) => [n, mb] as const);
  const mx = sum(pts.map(([x]) => x)) / pts.length;
  const my = sum(pts.map(([, y]) => y)) / pts.length;
  const slope = pts.length > 1 ? sum(pts.map(([x, y]) => (x - mx) * (y - my))) / sum(pts.map(([x]) => (x - mx) ** 2)) : NaN;
  const hostileStep = f.find(([what]) => what.endsWith('hostile'));
  const beforeReachable = hostileStep ?? f[1]!;
  say(`RSS per HCP: unreachable ${per(f[0]!, f[1]!)} MB; ${hostileStep ? `hostile ${per(f[1]!, hostileStep)} MB; ` : ''}` +
    `reachable ${reachable.length ? per(beforeReachable, reachable[reachable.length - 1]!) : 'n/a'} MB on average, ` +
    `${slope.toFixed(3)} MB slope over the reachable steps ` +
    `(${f.map(([what, , mb]) => `${what}: ${mb.toFixed(1)} MB`).join(', ')}; goal ≤ 1 MB per HCP)`);
  const hostilePer = hostileStep ? (hostileStep[2] - f[1]![2]) / (hostileStep[1] - f[1]![1]) : undefined;
  // With hollow guests, a reachable HCP's cost is their step's (thousands of them), not the slope over the few real ones.
  const hollowStep = f.find(([what]) => what.includes('hollow'));
  const reachablePer = hollowStep ? (hollowStep[2] - beforeReachable[2]) / (hollowStep[1] - beforeReachable[1]) : slope;
  if (hollowStep) say(`RSS per hollow (reachable) HCP: ${reachablePer.toFixed(3)} MB (goal ≤ 0.5 MB)`);
  rows.rssPerHcpMB = { reachable: reachablePer, ...(hostilePer !== undefined ? { hostile: hostilePer } : {}) };
  if (groups) {
    const report = await limitsReport(groups, mgmt.dir, spawned, replicas.map((r) => r.id));
    for (const line of report.lines) say(line);
    Object.assign(rows, report.rows);
  }
  rows.hcps = UNREACHABLE + HOSTILE + HOLLOW + GUESTS;
  rows.replicas = REPLICAS;
  if (flags.json) writeFileSync(flags.json, `${JSON.stringify(rows, null, 2)}\n`);
  hollow?.stop();
  for (const r of replicas) r.proc.kill('SIGKILL');
  say(`replica logs: ${saveReplicaLogs(mgmt.dir)}`);
  for (const g of guests) await g.watcher?.stop();
  await baseline.stop();
  for (const g of guests) await g.plane.stop();
  await mgmt.stop();
  await groups?.remove();
  say(`total ${((Date.now() - t00) / 1000).toFixed(0)} s`);
}
/** The management plane's directory, once it exists (for the logs of a run that fails). */
let managementDir: string | undefined;

await main().catch(async (e: unknown) => {
  if (managementDir) say(`replica logs: ${saveReplicaLogs(managementDir)}`);
  for (const stop of onFailure) await Promise.resolve().then(stop).catch(() => undefined);
  throw e;
});
process.exit(0);
