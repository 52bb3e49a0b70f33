// Chaos: the operator and the hosted replicas inside the limits a cluster gives them. Each process runs in a cgroup of
// its own (test/support/cgroup.ts; cgroup v1 or v2, root) with the memory limit its Deployment sets
// (deploy/base/deployment.yaml: the operator; deploy/hosted/deployment.yaml: a hosted replica) and a CFS quota. Neither
// Deployment sets a CPU limit (requests only, as OpenShift's operators do), so the quota is the scenario's: one core,
// as a namespace's LimitRange might impose, and a quarter of it.
//  - The single-cluster operator: two replicas with --leader-elect, each in its group, while stale status entries are
//    injected one at a time (each pruned: a status write) and then through a quiet hold: the leader's Lease never lost,
//    no OOM kill, every entry pruned; the throttling, memory peaks and renewal delays reported.
//  - The hosted fleet (full size only): the hosted-fleet benchmark with each replica in its group — the 500-HCP fleet
//    with hostile tenants and the 2,010 fleet of hollow guests at one core, the 2,010 fleet at a quarter: no Lease lost
//    to throttling at one core, no Lease-loss loop at a quarter (a few lapses, each shard held again), no OOM kill, no
//    write by a replica that did not hold the shard, every guest correct.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { packageRoot } from '../../sdk/testing/index.js';
import { LimitGroup, parseCpuMillis, parseMemoryBytes, type GroupCounters, type Limits } from '../../test/support/cgroup.js';
import { describeLimits, renewalDelays } from '../bench/fleet-limits.js';
import { Figures, converged, injectStaleEntry, onChaosCluster, readLease, sleep, until, type ScenarioResult } from './lib.js';

/** The CPU limit the scenario assumes (no Deployment of ours sets one). */
export const ASSUMED_CPU_LIMIT = '1';

/** `resources.limits.memory` of the first container of the Deployment in `file` (under the package root). */
export function deploymentMemoryLimit(file: string): number {
  const d = parse(readFileSync(join(packageRoot(), file), 'utf8')) as { spec: { template: { spec: { containers: { resources?: { limits?: { memory?: string } } }[] } } } };
  const memory = d.spec.template.spec.containers[0]?.resources?.limits?.memory;
  if (!memory) throw new Error(`${file}: no resources.limits.memory on its first container`);
  return parseMemoryBytes(memory);
}

export interface LimitsOptions {
  /** The CPU limits to run at, each a Kubernetes quantity (the assumed limit, a quarter of it). */
  cpu: string[];
  /** Stale entries injected (each pruned by the leader) at each CPU limit, then a quiet hold of holdMs. */
  changes: number;
  holdMs: number;
  /** Also run the hosted fleets (minutes each). */
  fleets: boolean;
}

const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
const throttled = (c: GroupCounters) => `${c.throttledPeriods}/${c.periods} periods (${c.throttledS.toFixed(1)} s)`;

/** Two operator replicas, each in a group at `limits`, through `changes` prunes and a hold. */
async function operatorUnder(f: Figures, limits: Limits, o: LimitsOptions): Promise<void> {
  const tag = describeLimits(limits);
  const groups = [0, 1].map((k) => LimitGroup.create(`fgc-chaos-op-${process.pid}-${k}-${limits.cpuMillis ?? 0}`, limits));
  try {
    await onChaosCluster({}, async ({ kc, operator }) => {
      const ops = groups.map((g) => operator(undefined, [], g));
      await until('first status', () => converged(kc), 120_000);
      const holder0 = (await readLease(kc))?.spec?.holderIdentity;
      let pruned = 0;
      for (let i = 1; i <= o.changes; i++) {
        await until('stale entry written', () => injectStaleEntry(kc, `4.20.${i}`), 20_000, 10);
        await until('pruned', () => converged(kc), 60_000, 10);
        pruned++;
      }
      await sleep(o.holdMs);
      const holder = (await readLease(kc, 10_000))?.spec?.holderIdentity;
      const leader = ops.find((p) => holder?.includes(`_${p.pid}_`));
      const delays = leader ? renewalDelays(await (await fetch(`http://${await leader.metricsAddress()}/metrics`)).text()) : undefined;
      const lost = ops.filter((p) => p.log().includes('leader election lost')).length;
      const counters = groups.map((g) => g.counters());
      f.add(`operator, ${tag}: stale entries pruned`, `${pruned}/${o.changes}`, 'all', pruned === o.changes);
      f.add(`operator, ${tag}: leader Leases lost (logs), holder changed`, `${lost}, ${holder0 === holder ? 'no' : 'yes'}`, '0, no', lost === 0 && holder0 === holder);
      f.add(`operator, ${tag}: OOM kills, exited replicas`, `${counters.reduce((a, c) => a + c.oomKills, 0)}, ${ops.filter((p) => p.exited()).length}`, '0, 0',
        counters.every((c) => c.oomKills === 0) && ops.every((p) => !p.exited()));
      f.add(`operator, ${tag}: leader's renewals answered after they were due`,
        delays ? `${delays.count}, mean ${(delays.meanS * 1000).toFixed(0)} ms, slowest ≤ ${delays.maxUnderS} s` : 'no leader', 'reported', delays !== undefined);
      f.add(`operator, ${tag}: throttled (leader, follower); memory peak`,
        `${counters.map(throttled).join('; ')}; ${counters.map((c) => mib(c.memoryPeakBytes)).join(', ')}`, 'reported', true);
    });
  } finally {
    for (const g of groups) await g.remove();
  }
}

/** The hosted-fleet benchmark (compiled beside this file) with each replica under `cpu` and `memory`; its --json rows. */
async function fleetUnder(args: string[], cpu: string, memory: number): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'chaos-limits-'));
  try {
    const json = join(dir, 'rows.json');
    const child = spawn(process.execPath, [join(import.meta.dirname, '..', 'bench', 'hosted-fleet.js'), ...args,
      '--cpu-limit', cpu, '--memory-limit', String(memory), '--json', json], { stdio: ['ignore', 'inherit', 'inherit'] });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    if (code !== 0) throw new Error(`hosted-fleet ${args.join(' ')} at CPU ${cpu} exited ${code}`);
    return JSON.parse(readFileSync(json, 'utf8')) as Record<string, unknown>;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface FleetRows {
  leaseLosses: { shardsLate: number; shardsLost: number; membershipLate: number };
  cgroups: GroupCounters[];
  nonHolderWrites: number;
  hcps: number;
  startAllCorrectS: number;
  killRewrittenS: number;
}

function fleetFigures(f: Figures, label: string, rows: FleetRows, quarter: boolean, memory: number, shards: number): void {
  const l = rows.leaseLosses;
  const lost = l.shardsLate + l.shardsLost + l.membershipLate;
  const oom = rows.cgroups.reduce((a, c) => a + c.oomKills, 0);
  // At a quarter of the limit renewals may come late, but a loop would lose shard after shard: fewer than the shard count.
  f.add(`${label}: Leases lost (shard lapses + shards lost + membership rejoins)`, `${lost} (${l.shardsLate} + ${l.shardsLost} + ${l.membershipLate})`,
    quarter ? `< ${shards} (no loop)` : '0', quarter ? lost < shards : lost === 0);
  f.add(`${label}: OOM kills; memory peak per replica (limit ${mib(memory)})`, `${oom}; ${rows.cgroups.map((c) => mib(c.memoryPeakBytes)).join(', ')}`, '0', oom === 0);
  f.add(`${label}: guest writes by a replica not holding the shard`, rows.nonHolderWrites, '0', rows.nonHolderWrites === 0);
  f.add(`${label}: fresh replicas → all correct; kill -9 → written again`, `${rows.startAllCorrectS.toFixed(1)} s; ${rows.killRewrittenS.toFixed(1)} s`, 'reported', true);
  f.add(`${label}: throttled per replica`, rows.cgroups.map(throttled).join('; '), 'reported', true);
}

export async function underLimits(o: LimitsOptions): Promise<ScenarioResult> {
  const f = new Figures();
  const operatorMemory = deploymentMemoryLimit('deploy/base/deployment.yaml');
  for (const cpu of o.cpu) await operatorUnder(f, { cpuMillis: parseCpuMillis(cpu), memoryBytes: operatorMemory }, o);
  if (o.fleets) {
    const memory = deploymentMemoryLimit('deploy/hosted/deployment.yaml');
    const full = parseCpuMillis(o.cpu[0]!);
    const fleets: [string, string[], number][] = [
      ['500 HCPs (10 hostile)', ['--guests', '20', '--unreachable', '470', '--hostile', '10'], full],
      ['2,010 HCPs (hollow)', ['--hollow', '1980', '--guests', '20', '--unreachable', '0', '--hostile', '10'], full],
      ['2,010 HCPs (hollow), a quarter of the CPU', ['--hollow', '1980', '--guests', '20', '--unreachable', '0', '--hostile', '10'], full / 4],
    ];
    for (const [what, args, millis] of fleets) {
      const rows = (await fleetUnder(args, `${millis}m`, memory)) as unknown as FleetRows;
      fleetFigures(f, `${what}, CPU ${millis}m`, rows, millis < full, memory, 32);
    }
  }
  return { name: 'under the limits: CPU quota and memory limit', figures: f.list };
}
