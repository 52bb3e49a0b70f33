// Processes under the limits a Deployment sets: a cgroup of our own with a CPU quota (CFS: `quota` of CPU time per
// 100 ms period, as the kubelet sets `resources.limits.cpu`) and a memory limit (`resources.limits.memory`), on
// cgroup v1 (a hierarchy per controller: cpu/, memory/) or v2 (one unified hierarchy). Root creates and removes its
// own groups; a process joins one before it runs anything (a shell writes its own PID into the group, then execs the
// command, so the PID the caller sees is the command's). The plan of files and the parsing of the kernel's counters
// are pure (unit-tested for both versions); the rest is the file system.
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMemoryQuantity } from '../../api-types/memory-quantity.js';

export type CgroupVersion = 1 | 2;

export interface Limits {
  /** CPU limit in millicores (Kubernetes' `500m` is 500): a quota of millicores × 100 µs per 100 ms period. */
  cpuMillis?: number;
  /** Memory limit in bytes (swap not allowed beyond it). */
  memoryBytes?: number;
}

/** What the kernel counted for a group: throttling and memory. */
export interface GroupCounters {
  /** CFS periods in which the group ran, and those in which it used its whole quota and was stopped. */
  periods: number;
  throttledPeriods: number;
  /** Time the group's threads spent stopped by the quota, seconds. */
  throttledS: number;
  /** The largest memory charge the group reached, bytes (v2 without memory.peak: the current charge). */
  memoryPeakBytes: number;
  /** Processes of the group the kernel's OOM killer killed. */
  oomKills: number;
}

export const CFS_PERIOD_US = 100_000;

/** The cgroup version under `root` (default /sys/fs/cgroup): 2 when it is the unified hierarchy, 1 when it holds cpu/ and memory/. */
export function cgroupVersion(root = '/sys/fs/cgroup'): CgroupVersion {
  if (existsSync(join(root, 'cgroup.controllers'))) return 2;
  if (existsSync(join(root, 'cpu')) && existsSync(join(root, 'memory'))) return 1;
  throw new Error(`no cgroup hierarchy with the cpu and memory controllers under ${root} (neither cgroup.controllers nor cpu/ and memory/)`);
}

/** A Kubernetes quantity of CPU (`250m`, `1`, `0.5`) in millicores. */
export function parseCpuMillis(q: string): number {
  const m = /^(\d+(?:\.\d+)?)(m?)$/.exec(q.trim());
  if (!m) throw new Error(`CPU limit ${JSON.stringify(q)}: expected millicores (250m) or cores (1, 0.5)`);
  const n = Number(m[1]) * (m[2] ? 1 : 1000);
  if (!(n >= 1)) throw new Error(`CPU limit ${JSON.stringify(q)}: at least 1m`);
  return Math.round(n);
}

/** A Kubernetes quantity of memory (`768Mi`, `1Gi`, `500M`, bytes) in bytes. */
export function parseMemoryBytes(q: string): number {
  try {
    return parseMemoryQuantity(q);
  } catch (e) {
    throw new Error(`memory limit ${(e as Error).message}`, { cause: e });
  }
}

/**
 * The files to write, in order, for a group `name` with `limits` on cgroup `version` under `root`: the directories a
 * process joins (their cgroup.procs) and the limit files. v2 first lets the root's children use cpu and memory.
 */
export function groupPlan(version: CgroupVersion, root: string, name: string, limits: Limits) {
  const quota = limits.cpuMillis === undefined ? undefined : String(Math.round((limits.cpuMillis * CFS_PERIOD_US) / 1000));
  const memory = limits.memoryBytes === undefined ? undefined : String(limits.memoryBytes);
  if (version === 2) {
    const dir = join(root, name);
    const writes: [string, string][] = [[join(root, 'cgroup.subtree_control'), '+cpu +memory']];
    if (quota) writes.push([join(dir, 'cpu.max'), `${quota} ${CFS_PERIOD_US}`]);
    if (memory) writes.push([join(dir, 'memory.max'), memory], [join(dir, 'memory.swap.max'), '0']);
    return { dirs: [dir], writes, optional: [join(dir, 'memory.swap.max')] };
  }
  const cpu = join(root, 'cpu', name);
  const mem = join(root, 'memory', name);
  const writes: [string, string][] = [];
  if (quota) writes.push([join(cpu, 'cpu.cfs_period_us'), String(CFS_PERIOD_US)], [join(cpu, 'cpu.cfs_quota_us'), quota]);
  // memsw (memory + swap) only exists with swap accounting on; it must not be below the memory limit, so it goes second.
  if (memory) writes.push([join(mem, 'memory.limit_in_bytes'), memory], [join(mem, 'memory.memsw.limit_in_bytes'), memory]);
  return { dirs: [cpu, mem], writes, optional: [join(mem, 'memory.memsw.limit_in_bytes')] };
}

/** `key value` lines (cpu.stat, memory.events, memory.oom_control) as numbers. */
export function parseKeyValues(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const [k, v] = line.trim().split(/\s+/);
    if (k && v !== undefined && /^\d+$/.test(v)) out.set(k, Number(v));
  }
  return out;
}

/**
 * The counters of a group from its files' text (v1: cpu.stat, memory.max_usage_in_bytes, memory.oom_control; v2: cpu.stat,
 * memory.peak, memory.events).
 */
export function parseCounters(version: CgroupVersion, files: { cpuStat: string; memoryPeak: string; memoryEvents: string }): GroupCounters {
  const cpu = parseKeyValues(files.cpuStat);
  const events = parseKeyValues(files.memoryEvents);
  return {
    periods: cpu.get('nr_periods') ?? 0,
    throttledPeriods: cpu.get('nr_throttled') ?? 0,
    throttledS: version === 2 ? (cpu.get('throttled_usec') ?? 0) / 1e6 : (cpu.get('throttled_time') ?? 0) / 1e9,
    memoryPeakBytes: Number(files.memoryPeak.trim()) || 0,
    oomKills: events.get('oom_kill') ?? 0,
  };
}

/** A cgroup of our own with limits: `command()` runs a process in it, `counters()` reads the kernel's, `remove()` deletes it. */
export class LimitGroup {
  private constructor(
    readonly name: string,
    readonly limits: Limits,
    readonly version: CgroupVersion,
    private readonly dirs: string[],
  ) {}

  /** Creates the group (every directory, then the limits); throws saying which file refused. */
  static create(name: string, limits: Limits, root = '/sys/fs/cgroup'): LimitGroup {
    if (!/^[a-z0-9][a-z0-9.-]*$/.test(name)) throw new Error(`cgroup name ${JSON.stringify(name)}: lower-case letters, digits, dots and dashes`);
    const version = cgroupVersion(root);
    const plan = groupPlan(version, root, name, limits);
    for (const d of plan.dirs) {
      try {
        mkdirSync(d, { recursive: true });
      } catch (e) {
        throw new Error(`cannot create cgroup ${d} (root creates its own groups): ${(e as Error).message}`, { cause: e });
      }
    }
    for (const [file, value] of plan.writes) {
      try {
        writeFileSync(file, value);
      } catch (e) {
        if (plan.optional.includes(file) && (e as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw new Error(`cannot write ${JSON.stringify(value)} to ${file}: ${(e as Error).message}`, { cause: e });
      }
    }
    return new LimitGroup(name, limits, version, plan.dirs);
  }

  /** [file, args] that run `file args…` inside the group, with the same PID. */
  command(file: string, args: readonly string[]): [string, string[]] {
    const join_ = this.dirs.map((d) => `echo $$ > '${join(d, 'cgroup.procs')}'`).join(' && ');
    return ['/bin/sh', ['-c', `${join_} && exec "$0" "$@"`, file, ...args]];
  }

  /** PIDs in the group now. */
  pids(): number[] {
    return readFileSync(join(this.dirs[0]!, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  }

  counters(): GroupCounters {
    const [cpuDir, memDir] = this.version === 2 ? [this.dirs[0]!, this.dirs[0]!] : [this.dirs[0]!, this.dirs[1]!];
    const read = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8') : '');
    const peak = this.version === 2
      ? read(join(memDir, 'memory.peak')) || read(join(memDir, 'memory.current'))
      : read(join(memDir, 'memory.max_usage_in_bytes'));
    return parseCounters(this.version, {
      cpuStat: read(join(cpuDir, 'cpu.stat')),
      memoryPeak: peak,
      memoryEvents: read(join(memDir, this.version === 2 ? 'memory.events' : 'memory.oom_control')),
    });
  }

  /** Kills what is left in the group (SIGKILL) and removes it. */
  async remove(): Promise<void> {
    for (let i = 0; i < 50; i++) {
      const left = this.dirs.flatMap((d) => (existsSync(d) ? readFileSync(join(d, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean) : []));
      if (!left.length) break;
      for (const pid of new Set(left)) {
        try { process.kill(Number(pid), 'SIGKILL'); } catch { /* gone */ }
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const d of this.dirs) if (existsSync(d)) rmdirSync(d);
  }
}
