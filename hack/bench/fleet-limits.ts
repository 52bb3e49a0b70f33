// The hosted-fleet benchmark under a Deployment's limits (--cpu-limit, --memory-limit): each replica slot runs in a
// cgroup of its own (test/support/cgroup.ts; a slot's later generations join the same group), and the run ends with
// what the limits did: the kernel's throttling, memory peaks and OOM kills per slot, the Leases the replicas lost
// (their logs: a shard or membership renewal past its deadline, a shard lost), and how late their renewals were
// answered (featuregates_lease_renewal_delay_seconds from each live replica's /metrics).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LimitGroup, parseCpuMillis, parseMemoryBytes, type GroupCounters, type Limits } from '../../test/support/cgroup.js';
import { servingAddress } from '../../test/support/cli.js';

/** The limits of the flags (Kubernetes quantities), or undefined when neither is given. */
export function limitsFromFlags(cpu: string | undefined, memory: string | undefined): Limits | undefined {
  if (cpu === undefined && memory === undefined) return undefined;
  return {
    ...(cpu !== undefined ? { cpuMillis: parseCpuMillis(cpu) } : {}),
    ...(memory !== undefined ? { memoryBytes: parseMemoryBytes(memory) } : {}),
  };
}

export function describeLimits(l: Limits): string {
  return [l.cpuMillis !== undefined ? `CPU ${l.cpuMillis}m` : 'CPU unlimited', l.memoryBytes !== undefined ? `memory ${l.memoryBytes / 2 ** 20} MiB` : 'memory unlimited'].join(', ');
}

/** What one replica's log says about its Leases. */
export interface LeaseLosses { shardsLate: number; shardsLost: number; membershipLate: number }

/** Counts the log lines (JSON) of Lease losses: renewals past their deadline (shard lapses, membership rejoins) and shards lost. */
export function leaseLosses(log: string): LeaseLosses {
  const out: LeaseLosses = { shardsLate: 0, shardsLost: 0, membershipLate: 0 };
  for (const line of log.split('\n')) {
    if (!line.includes('renew') && !line.includes('shard lost')) continue;
    let msg: unknown;
    try { msg = (JSON.parse(line) as { msg?: unknown }).msg; } catch { continue; }
    if (typeof msg !== 'string') continue;
    if (msg.startsWith('shard renewal late')) out.shardsLate++;
    else if (msg === 'shard lost') out.shardsLost++;
    else if (msg.startsWith('membership renewal missed') || msg.startsWith('membership not renewed')) out.membershipLate++;
  }
  return out;
}

/** What one replica's log says about its memory budget (hosted/memory-budget.ts): its budget, the sheds, the guests taken back. */
export interface Shedding { budgetMiB: number | undefined; sheds: number; guestsShed: string[]; readmitted: number }

/** Counts the memory budget's log lines (JSON): the budget it started with, each shed and the guests in it, each guest taken back. */
export function shedding(log: string): Shedding {
  const out: Shedding = { budgetMiB: undefined, sheds: 0, guestsShed: [], readmitted: 0 };
  for (const line of log.split('\n')) {
    if (!line.includes('budget')) continue;
    let entry: { msg?: unknown; guests?: unknown; budgetMiB?: unknown };
    try { entry = JSON.parse(line) as typeof entry; } catch { continue; }
    if (entry.msg === 'memory budget' && typeof entry.budgetMiB === 'number') out.budgetMiB = entry.budgetMiB;
    else if (entry.msg === 'memory over budget: shedding guests') {
      out.sheds++;
      if (Array.isArray(entry.guests)) out.guestsShed.push(...entry.guests.filter((g): g is string => typeof g === 'string'));
    } else if (entry.msg === 'memory under budget again: engaging a shed guest') out.readmitted++;
  }
  return out;
}

/** The renewal-delay histogram of a /metrics text: how many renewals, their mean, and the bucket bound the slowest fits under. */
export function renewalDelays(text: string): { count: number; meanS: number; maxUnderS: number; over1s: number } {
  const buckets = [...text.matchAll(/^featuregates_lease_renewal_delay_seconds_bucket\{le="([^"]+)"\} (\d+)/gm)].map((m) => [Number(m[1]), Number(m[2])] as const);
  const count = Number(/^featuregates_lease_renewal_delay_seconds_count (\d+)/m.exec(text)?.[1] ?? 0);
  const sum = Number(/^featuregates_lease_renewal_delay_seconds_sum (\S+)/m.exec(text)?.[1] ?? 0);
  const atOne = buckets.find(([le]) => le === 1)?.[1] ?? count;
  return { count, meanS: count ? sum / count : 0, maxUnderS: buckets.find(([, n]) => n === count)?.[0] ?? Infinity, over1s: count - atOne };
}

/** One cgroup per replica slot, created at the start of the run and removed at its end. */
export class ReplicaGroups {
  private readonly groups: LimitGroup[];

  constructor(readonly limits: Limits, slots: number) {
    this.groups = [...Array(slots).keys()].map((k) => LimitGroup.create(`fgc-fleet-${process.pid}-${k}`, limits));
  }

  /** The group of the replica slot a replica id names (`replica-N`: slot N mod slots). */
  of(id: string): LimitGroup {
    const n = Number(/replica-(\d+)/.exec(id)?.[1] ?? 0);
    return this.groups[n % this.groups.length]!;
  }

  counters(): GroupCounters[] {
    return this.groups.map((g) => g.counters());
  }

  async remove(): Promise<void> {
    for (const g of this.groups) await g.remove().catch(() => undefined);
  }
}

/** The summary line and --json rows of a run under limits: per slot, then the Leases lost and the renewal delays of the live replicas. */
export async function limitsReport(groups: ReplicaGroups, logDir: string, ids: string[], live: string[]) {
  const counters = groups.counters();
  const losses = ids.map((id) => leaseLosses(readFileSync(join(logDir, `${id}.log`), 'utf8')));
  const total: LeaseLosses = { shardsLate: 0, shardsLost: 0, membershipLate: 0 };
  for (const l of losses) for (const k of Object.keys(total) as (keyof LeaseLosses)[]) total[k] += l[k];
  const shed = ids.map((id) => shedding(readFileSync(join(logDir, `${id}.log`), 'utf8')));
  const metrics = await Promise.all(live.map(async (id) => {
    const log = () => readFileSync(join(logDir, `${id}.log`), 'utf8');
    const address = await servingAddress(log, 'metrics', 5_000);
    return (await fetch(`http://${address}/metrics`)).text();
  }));
  const delays = metrics.map(renewalDelays);
  const shedNow = metrics.map((text) => Number(/^featuregates_hosted_guests_shed (\S+)/m.exec(text)?.[1] ?? NaN));
  const lines = [
    `limits (${describeLimits(groups.limits)}), per replica slot: ` + counters.map((c, k) =>
      `slot ${k}: throttled ${c.throttledPeriods}/${c.periods} periods (${c.throttledS.toFixed(1)} s), memory peak ${(c.memoryPeakBytes / 2 ** 20).toFixed(0)} MiB, ` +
      `OOM kills ${c.oomKills}`).join('; '),
    `limits: Leases lost over the run (every generation's log): shard renewals past their deadline ${total.shardsLate}, shards lost ${total.shardsLost}, ` +
      `membership renewals past their deadline ${total.membershipLate}`,
    `limits: renewals of the live replicas, answered after they were due: ` + delays.map((d, k) =>
      `${live[k]}: ${d.count} renewals, mean ${(d.meanS * 1000).toFixed(0)} ms, slowest ≤ ${d.maxUnderS} s, ${d.over1s} over 1 s`).join('; '),
    `limits: memory budget (every generation's log): ` + ids.map((id, k) => {
      const s = shed[k]!;
      return `${id}: ${s.budgetMiB === undefined ? 'none' : `${s.budgetMiB} MiB`}, ${s.sheds} sheds of ${s.guestsShed.length} guests ` +
        `(${new Set(s.guestsShed).size} distinct), ${s.readmitted} taken back`;
    }).join('; ') + `; shed now: ` + live.map((id, k) => `${id} ${shedNow[k]}`).join(', '),
  ];
  const renewals = Object.fromEntries(live.map((id, k) => [id, delays[k]]));
  const budget = Object.fromEntries(ids.map((id, k) => [id, { ...shed[k]!, guestsShed: [...new Set(shed[k]!.guestsShed)] }]));
  const shedAtEnd = Object.fromEntries(live.map((id, k) => [id, shedNow[k]]));
  return {
    lines,
    rows: { limits: groups.limits, cgroups: counters, leaseLosses: total, renewalDelays: renewals, memoryBudget: budget, shedAtEnd },
  };
}
