// Benchmark: kill -9 of one of three sharded replicas → when the survivors hold its share again, for
// multicluster-runtime's sharded coordinator with its default timings (hack/bench/go-mcr: v0.24.1, the namespace
// provider — each namespace is a cluster, fenced by one Lease per cluster — reconciling ConfigMaps) and for ours
// (`featuregates hosted`: 32 shard Leases; its HCPs' guests do not answer, so what is timed is the hand-over of the
// Leases alone, without the engagement work the hosted-fleet benchmark adds). One API server, the same namespaces
// for both (each holds one HCP and one ConfigMap), one after the other; each round starts three fresh processes,
// waits until every Lease is held and none has moved for 30 s, lands the kill at a random point of the renewal
// cycle, samples the Leases every 100 ms (lease-timeline.ts), and deletes the round's Leases after it.
//   npm run bench -- mcr-takeover [--runs 3] [--clusters 30] [--json FILE]
// Prints per round and side: when the first and the last of the killed replica's Leases were held by a survivor
// (seconds after the kill), and for multicluster-runtime when the last of its clusters was reconciled again.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { isShardName, type ConfigMap, type Lease } from '../../api-types/index.js';
import { ConfigMapResource, LeaseResource, ResourceClient, readKubeconfigFile } from '../../runtime/index.js';
import { UNREACHABLE_GUEST_KUBECONFIG, hypershiftCRDPaths, publishHostedControlPlane, startControlPlane, ensureNamespace } from '../../sdk/testing/index.js';
import { sleep, until } from '../../test/support/timing.js';
import { goBenchBinary } from './go-bench.js';
import { BENCH_PAYLOAD_CATALOG, spawnHostedReplica } from './fleet-replicas.js';
import { leaseTimeline } from './lease-timeline.js';
import { nodeFlagsOrImage } from './operator-process.js';
import { median } from './stats.js';

const { values: flags } = parseArgs({ options: { runs: { type: 'string', default: '3' }, clusters: { type: 'string', default: '30' }, json: { type: 'string' } } });
const RUNS = Number(flags.runs);
const CLUSTERS = Number(flags.clusters);
const SHARDS = 32;
/** How long no Lease may move before the kill: longer than multicluster-runtime's peer refresh (10 s) and probe (5 s) together. */
const STEADY_MS = 30_000;
const NS = 'featuregate-hosted';
const MCR_FENCE = /^mcr-shard-/;
const say = (s: string) => process.stdout.write(`${s}\n`);

const MCR_PEER = goBenchBinary('go-mcr');

const mgmt = await startControlPlane({ crdPaths: hypershiftCRDPaths() });
const mkc = readKubeconfigFile(mgmt.kubeconfigPath)!;
await ensureNamespace(mkc, NS);
const clusters = [...Array(CLUSTERS).keys()].map((i) => `clusters-t${i}`);
for (const ns of clusters) {
  await publishHostedControlPlane(mkc, { namespace: ns, name: ns.slice('clusters-'.length), kubeconfig: UNREACHABLE_GUEST_KUBECONFIG, releaseVersion: '4.22.0' });
  await new ResourceClient<ConfigMap>(mkc, ConfigMapResource, undefined, { namespace: ns }).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'probe' }, data: {} });
}

interface Side {
  name: string;
  leaseNamespace: string;
  /** A Lease fencing a share of the work (a shard, a cluster). */
  isShare(lease: string): boolean;
  /** Shares the three must hold before the kill, and which those are (multicluster-runtime fences every namespace). */
  expected: number;
  counted(lease: string): boolean;
  /** The Leases a round leaves, deleted after it. */
  leftByRound(lease: string): boolean;
  /** The bench's cluster a share Lease fences, where a survivor's reconcile of it is timed too. */
  clusterOf?(lease: string): string | undefined;
  start(round: number, k: number): { id: string; proc: ChildProcess };
}
const mcrCluster = (lease: string) => (MCR_FENCE.test(lease) && clusters.includes(lease.replace(MCR_FENCE, '')) ? lease.replace(MCR_FENCE, '') : undefined);
/** Every reconcile a multicluster-runtime peer printed: {atMs, peer, cluster}. */
const reconciles: { atMs: number; peer: string; cluster: string }[] = [];
const sides: Side[] = [
  {
    name: 'multicluster-runtime v0.24.1 (defaults: fence 20 s renewed every 10 s, peers 30 s / 10 s, probe 5 s)',
    leaseNamespace: 'kube-system', isShare: (l) => MCR_FENCE.test(l), expected: clusters.length, counted: (l) => mcrCluster(l) !== undefined,
    leftByRound: (l) => /^mcr-(shard|peer)-/.test(l), clusterOf: mcrCluster,
    start(round, k) {
      const id = `mcr-${round}-${k}`;
      const proc = spawn(MCR_PEER, ['--kubeconfig', mgmt.kubeconfigPath, '--peer', id], { stdio: ['ignore', 'pipe', 'inherit'] });
      let rest = '';
      proc.stdout!.on('data', (b: Buffer) => {
        const lines = (rest + b.toString()).split('\n');
        rest = lines.pop()!;
        for (const l of lines) if (l) reconciles.push(JSON.parse(l) as { atMs: number; peer: string; cluster: string });
      });
      return { id, proc };
    },
  },
  {
    name: `featuregates hosted (${SHARDS} shards: Lease 15 s renewed every 5 s, looks every 2 s)`,
    leaseNamespace: NS, isShare: isShardName, expected: SHARDS, counted: () => true, leftByRound: () => true,
    start(round, k) {
      return spawnHostedReplica(mgmt, `ours-${round}-${k}`, {
        catalog: BENCH_PAYLOAD_CATALOG, namespace: NS, shards: SHARDS, nodeFlags: nodeFlagsOrImage(),
      });
    },
  },
];

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
/** Every peer and replica started: none outlives the benchmark, whether it ends or fails. */
const spawned: ChildProcess[] = [];
process.on('exit', () => { for (const p of spawned) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL'); });
const results: Record<string, { firstS: number[]; lastS: number[]; reconciledS: number[] }> = {};
for (const side of sides) {
  const r = results[side.name] = { firstS: [] as number[], lastS: [] as number[], reconciledS: [] as number[] };
  for (let round = 0; round < RUNS; round++) {
    const timeline = leaseTimeline(mkc, side.leaseNamespace);
    const procs = [0, 1, 2].map((k) => side.start(round, k));
    spawned.push(...procs.map((p) => p.proc));
    const ids = new Set(procs.map((p) => p.id));
    const shares = () => {
      const last = timeline.samples.at(-1)?.holders ?? new Map<string, string>();
      return new Map([...last].filter(([lease, holder]) => side.isShare(lease) && ids.has(holder)));
    };
    let steadySince = 0;
    let seen = '';
    await until(`${side.name}, round ${round + 1}: every Lease held by the three, none moved for ${STEADY_MS / 1000} s`, async () => {
      const held = shares();
      const now = JSON.stringify([...held].sort());
      if ([...held.keys()].filter(side.counted).length < side.expected || new Set(held.values()).size < 3) return false;
      if (now !== seen) { seen = now; steadySince = Date.now(); }
      return Date.now() - steadySince >= STEADY_MS;
    }, 300_000, 200);
    await sleep(Math.random() * 10_000); // anywhere in the renewal cycles
    const held = shares();
    const counts = new Map<string, number>();
    for (const h of held.values()) counts.set(h, (counts.get(h) ?? 0) + 1);
    const victim = procs.find((p) => p.id === [...counts].sort((a, b) => b[1] - a[1])[0]![0])!;
    const its = [...held].filter(([, h]) => h === victim.id).map(([lease]) => lease);
    const killedAt = Date.now();
    victim.proc.kill('SIGKILL');
    await until(`${side.name}, round ${round + 1}: the ${its.length} Leases of ${victim.id} held by a survivor`,
      async () => its.every((l) => timeline.takenFrom(l, victim.id, killedAt) !== undefined), 120_000, 200);
    const taken = its.map((l) => timeline.takenFrom(l, victim.id, killedAt)! - killedAt);
    r.firstS.push(Math.min(...taken) / 1000);
    r.lastS.push(Math.max(...taken) / 1000);
    let line = `${side.name}, round ${round + 1}: kill -9 of ${victim.id} (${its.length} Leases) → held by survivors ${seconds(Math.min(...taken))} (first) … ${seconds(Math.max(...taken))} (last)`;
    if (side.clusterOf) {
      const theirs = its.map(side.clusterOf).filter((c) => c !== undefined);
      const again = (c: string) => reconciles.find((x) => x.cluster === c && x.atMs >= killedAt && x.peer !== victim.id)?.atMs;
      await until(`round ${round + 1}: the victim's clusters reconciled again`, async () => theirs.every((c) => again(c) !== undefined), 60_000, 200).catch((e: unknown) => {
        say(`its clusters: ${theirs.join(' ')}; reconciles: ${JSON.stringify(reconciles.filter((x) => theirs.includes(x.cluster)))}; killed at ${killedAt}`);
        throw e;
      });
      const last = Math.max(...theirs.map((c) => again(c)! - killedAt));
      r.reconciledS.push(last / 1000);
      line += `; its clusters reconciled again ${seconds(last)} (last)`;
    }
    say(line);
    await timeline.stop();
    for (const p of procs) if (p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill('SIGKILL');
    await Promise.all(procs.map((p) => (p.proc.exitCode === null && p.proc.signalCode === null ? new Promise((res) => p.proc.once('exit', res)) : undefined)));
    // The next round starts from no holder: this round's Leases (and multicluster-runtime's peer Leases) deleted.
    const leases = new ResourceClient<Lease>(mkc, LeaseResource, undefined, { namespace: side.leaseNamespace });
    for (const l of (await leases.list()).items) {
      if (side.leftByRound(l.metadata.name!)) await leases.delete(l.metadata.name!);
    }
  }
}
await mgmt.stop();
for (const [name, r] of Object.entries(results)) {
  say(`${name}: last Lease held by a survivor, ${r.lastS.length} rounds: median ${median(r.lastS).toFixed(1)} s, min ${Math.min(...r.lastS).toFixed(1)}, max ${Math.max(...r.lastS).toFixed(1)}` +
    (r.reconciledS.length ? `; clusters reconciled again: median ${median(r.reconciledS).toFixed(1)} s, max ${Math.max(...r.reconciledS).toFixed(1)}` : ''));
}
if (flags.json) writeFileSync(flags.json, `${JSON.stringify(results, null, 2)}\n`);
