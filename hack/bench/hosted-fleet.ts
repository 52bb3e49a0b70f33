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
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ClusterProfiles, FEATURE_GATE_NAME, resolveFeatureGateDetails, shardName, shardOf, type FeatureGateDetails } from '../../api-types/index.js';
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
import { HOSTILE_KINDS, startHostileGuest, type HostileGuest, type HostileKind } from '../../test/support/hostile-guests.js';
import { auditSetup, readAuditWrites } from '../../test/support/audit.js';
import { startBenchCluster } from './bench-cluster.js';
import { leaseTimeline } from './lease-timeline.js';
import { BENCH_PAYLOAD_CATALOG, saveReplicaLogs, spawnHostedReplica, type Replica } from './fleet-replicas.js';
import { FeatureGateWatcher } from './fg-watcher.js';
import { nonHolderWrites, writesPerSample } from './fleet-audit.js';
import { TakeoverCpu, startCpuMeter, watchFloor } from './fleet-cpu.js';
import { interleavedSamples, latencyReport } from './fleet-latency.js';
import { wave } from './fleet-wave.js';
import { rssPerHcp, type FootprintStep } from './fleet-footprint.js';
import { fleetHcp, heldByReplica } from './fleet-hcps.js';
import { ReplicaGroups, describeLimits, limitsFromFlags, limitsReport } from './fleet-limits.js';
import { HollowGuests } from './hollow-guests-client.js';
import { exited, nodeFlagsOrHosted, nodeFlagsOrImage, spawnOperatorProcess, usage } from './operator-process.js';
import { median, nowMs, spread, sum } from './stats.js';
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

interface Guest { i: number; plane: ControlPlane; kc: ClusterAccess; key: string; audit: string; watcher?: FeatureGateWatcher }

const catalog = new ReleaseCatalog(CATALOG);
const expected: FeatureGateDetails = resolveFeatureGateDetails({}, catalog.registry('4.22.0', ClusterProfiles.IBMCloudManaged), '4.22.0');
/** The wave's new z-version and its entry. */
const WAVE_VERSION = '4.22.1';
const expectedWave = resolveFeatureGateDetails({}, catalog.registry(WAVE_VERSION, ClusterProfiles.IBMCloudManaged), WAVE_VERSION);
/** Rows for --json. */
const rows: Record<string, unknown> = {};

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
      return { i: i + j, plane, kc, key: fleetHcp('real', i + j).key, audit: a.logPath };
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
  const footprint: FootprintStep[] = [['0 HCPs', 0, rss()]];
  say(`footprint: 0 HCPs: ${rss().toFixed(1)} MB over ${REPLICAS} replicas`);

  // Unreachable HCPs: a kubeconfig whose server is a closed port.
  for (let i = 0; i < UNREACHABLE; i += 20) {
    await Promise.all([...Array(Math.min(20, UNREACHABLE - i)).keys()].map((j) =>
      publishHostedControlPlane(mkc, { ...fleetHcp('unreachable', i + j), kubeconfig: UNREACHABLE_GUEST_KUBECONFIG })));
  }
  await sleep(30_000);
  footprint.push([`${UNREACHABLE} unreachable`, UNREACHABLE, rss()]);
  say(`footprint: ${UNREACHABLE} unreachable: ${rss().toFixed(1)} MB`);
  const hostile: HostileGuest[] = [];
  const hostileKinds: HostileKind[] = [];
  for (let i = 0; i < HOSTILE; i++) {
    const kind = HOSTILE_KINDS[i % HOSTILE_KINDS.length]!;
    const server = await startHostileGuest(kind);
    hostile.push(server);
    hostileKinds.push(kind);
    await publishHostedControlPlane(mkc, { ...fleetHcp('hostile', i), kubeconfig: server.kubeconfig(), releaseVersion: '4.22.0' });
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
        publishHostedControlPlane(mkc, { ...fleetHcp('hollow', i + j), kubeconfig: hollow.kubeconfigs[i + j]!, releaseVersion: '4.22.0' })));
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
      await publishHostedControlPlane(mkc, { ...fleetHcp('real', g.i), kubeconfig: readFileSync(g.plane.kubeconfigPath, 'utf8'), releaseVersion: '4.22.0' });
    }
    await Promise.all(guests.slice(0, step).map((g) => until(`guest ${g.i} correct`, () => guestCorrect(g), 120_000, 100)));
    await sleep(10_000);
    footprint.push([`+${step} reachable`, UNREACHABLE + HOSTILE + HOLLOW + step, rss()]);
    say(`footprint: ${UNREACHABLE} unreachable + ${step} reachable: ${rss().toFixed(1)} MB`);
  }

  // Who holds each shard Lease now, and what each replica holds through them (the idle rows differ by what they hold).
  const shardHolders = async () => new Map((await new ResourceClient<Lease>(mkc, LeaseResource, undefined, { namespace: NS }).list()).items
    .map((l) => [l.metadata.name, l.spec?.holderIdentity]));

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
  const fleet = { real: GUESTS, hollow: HOLLOW, unreachable: UNREACHABLE, hostile: hostileKinds };
  say(`held in that window: ${heldByReplica(await shardHolders(), replicas.map((r) => r.id), SHARDS, fleet)}`);
  if (hollow) {
    // The floor of the same watches: a bare Node.js client holding a replica's share of the live guests' watches (3 each)
    // on the same hollow process, beside the replicas, with their node flags (watch-floor.ts).
    const share = Math.round((HOLLOW + GUESTS) / REPLICAS);
    const floor = await watchFloor(hollow.kubeconfigs.slice(0, share), {
      nodeFlags: NODE_FLAGS, windowS: IDLE_S, spawned: (child) => onFailure.push(() => { if (child.exitCode === null) child.kill('SIGKILL'); }),
    });
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
  const latencyFrom = Date.now();
  // Both sides through this project's kubeconfig reader (client-node's reads the files again on every request).
  const baseKc = readKubeconfigFile(baseline.plane.kubeconfigPath)!;
  const latency = latencyReport(await interleavedSamples({ kc: baseKc, fgs: baseline.fgs, watcher: baseline.watcher }, guests, SAMPLES));
  for (const line of latency.lines) say(line);
  Object.assign(rows, latency.rows);
  const baseIdle = (usage(base.proc.pid!).cpuS - baseCpu0);
  const fleetCpu = sum(replicas.map((r) => usage(r.proc.pid!).cpuS)) - fleetCpu0;
  say(`CPU per sample over the latency phase (a change and a raw entry's prune; the fleet's is all replicas', Leases and quiet guests ` +
    `included): fleet ${(fleetCpu / SAMPLES * 1000).toFixed(1)} ms, single-cluster operator ${(baseIdle / SAMPLES * 1000).toFixed(1)} ms ` +
    `over ${((Date.now() - latencyStarted) / 1000).toFixed(0)} s`);

  // What each path wrote during the latency phase (guest audit logs: verb, resource, answer), per change.
  const latencyTo = Date.now();
  const writesIn = (paths: string[], who: RegExp) => writesPerSample(paths, who, { from: latencyFrom, to: latencyTo }, SAMPLES);
  say(`latency phase writes per sample (a change, then the prune of a raw entry): fleet ${writesIn(guests.map((g) => g.audit), /replica\//)}; single-cluster operator ${writesIn([baseAudit.logPath], /^featuregates-operator\//)}`);

  // The wave (fleet-wave.ts): every guest to a new z-version at once, then back.
  if (hollow) {
    for (const w of await wave(hollow, guests, { version: '4.22.0', entry: expected }, { version: WAVE_VERSION, entry: expectedWave })) {
      if (w.label === 'to') rows.waveAllCorrectS = w.allS;
      say(`wave ${w.label} ${w.version}: all ${HOLLOW + GUESTS} guests' status correct in ${w.allS.toFixed(1)} s (hollow ${w.hollowS.toFixed(1)} s)`);
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
    const startCpu = startCpuMeter(mgmt, () => hollow?.cpuS() ?? 0);
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
    say(`start: CPU until then ${startCpu(replicas.map((r) => r.proc.pid!), GUESTS + HOLLOW)}`);
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
  const ownedHollow = [...Array(HOLLOW).keys()].filter((i) => holders.get(shardName(shardOf(fleetHcp('hollow', i).key, SHARDS))) === victim.id);
  const killedAt = nowMs();
  const killedWall = Date.now();
  victim.proc.kill('SIGKILL');
  await exited(victim.proc);
  // The survivors' CPU through the take-over (sampled every 250 ms): its idle part before their first shard is taken.
  const survivorCpu = new TakeoverCpu(replicas.slice(1).map((r) => r.proc.pid!));
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
  const { cpuMs: takeoverCpuMs, idleSPerMin } = survivorCpu.stop(killedWall + Math.min(...shardTaken.filter(Number.isFinite)) * 1000);
  const takenGuests = ownedHollow.length + owned.length;
  rows.takeoverCpuMsPerGuest = takeoverCpuMs / Math.max(1, takenGuests);
  say(`kill -9: the survivors' CPU for the take-over ${(takeoverCpuMs / 1000).toFixed(2)} s over ${takenGuests} guests = ` +
    `${(rows.takeoverCpuMsPerGuest as number).toFixed(1)} ms per guest (idle ${idleSPerMin.toFixed(2)} s/min subtracted; goal ≤ 5 ms)`);
  replicas = replicas.slice(1);
  say(`kill -9 of ${victim.id} (owned ${owned.length} of the reachable guests): written again after ${takeovers.length ? `${(Math.max(...takeovers) / 1000).toFixed(1)} s (max), ${(median(takeovers) / 1000).toFixed(1)} s (median)` : 'n/a'} ` +
    `(goal ≤ lease duration + 5 s = ${LEASE.duration + 5} s)`);

  // Audit: every successful guest write names its replica (User-Agent); was that replica the shard's holder?
  await timeline.stop();
  const { writes, violations } = nonHolderWrites(guests, timeline, SHARDS);
  rows.nonHolderWrites = violations.length;
  say(`audit: ${writes} guest writes by replicas, ${violations.length} by a replica that did not hold the shard${violations.length ? `: ${violations.slice(0, 5).join('; ')}` : ''}`);

  const rssRows = rssPerHcp(footprint);
  for (const line of rssRows.lines) say(line);
  rows.rssPerHcpMB = rssRows.row;
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
