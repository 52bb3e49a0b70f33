// The cgroup helper's pure parts: which files a group's limits write on cgroup v1 and v2, the kernel's counters read
// back, and Kubernetes' quantities of CPU and memory (test/integration/cgroup-limits.test.ts runs real processes).
import { describe, expect, test } from '@jest/globals';
import { groupPlan, parseCounters, parseCpuMillis, parseMemoryBytes } from '../support/cgroup.js';

describe('cgroup limits', () => {
  test('v1: a quota per 100 ms period in cpu/, the memory limit then memory + swap in memory/', () => {
    const plan = groupPlan(1, '/sys/fs/cgroup', 'fgc-a', { cpuMillis: 250, memoryBytes: 768 * 2 ** 20 });
    expect(plan.dirs).toEqual(['/sys/fs/cgroup/cpu/fgc-a', '/sys/fs/cgroup/memory/fgc-a']);
    expect(plan.writes).toEqual([
      ['/sys/fs/cgroup/cpu/fgc-a/cpu.cfs_period_us', '100000'],
      ['/sys/fs/cgroup/cpu/fgc-a/cpu.cfs_quota_us', '25000'],
      ['/sys/fs/cgroup/memory/fgc-a/memory.limit_in_bytes', String(805306368)],
      ['/sys/fs/cgroup/memory/fgc-a/memory.memsw.limit_in_bytes', String(805306368)],
    ]);
  });

  test('v2: the controllers enabled for the root\'s children, then cpu.max and memory.max with no swap', () => {
    const plan = groupPlan(2, '/sys/fs/cgroup', 'fgc-b', { cpuMillis: 1000, memoryBytes: 256 * 2 ** 20 });
    expect(plan.dirs).toEqual(['/sys/fs/cgroup/fgc-b']);
    expect(plan.writes).toEqual([
      ['/sys/fs/cgroup/cgroup.subtree_control', '+cpu +memory'],
      ['/sys/fs/cgroup/fgc-b/cpu.max', '100000 100000'],
      ['/sys/fs/cgroup/fgc-b/memory.max', String(268435456)],
      ['/sys/fs/cgroup/fgc-b/memory.swap.max', '0'],
    ]);
  });

  test('a limit left out writes nothing for it', () => {
    expect(groupPlan(1, '/r', 'g', { memoryBytes: 1 }).writes.map(([f]) => f)).toEqual(['/r/memory/g/memory.limit_in_bytes', '/r/memory/g/memory.memsw.limit_in_bytes']);
    expect(groupPlan(2, '/r', 'g', { cpuMillis: 10 }).writes).toEqual([['/r/cgroup.subtree_control', '+cpu +memory'], ['/r/g/cpu.max', '1000 100000']]);
  });

  test('the counters: v1 throttled_time in ns and oom_control, v2 throttled_usec and memory.events', () => {
    expect(parseCounters(1, {
      cpuStat: 'nr_periods 120\nnr_throttled 30\nthrottled_time 2500000000\n',
      memoryPeak: '104857600\n',
      memoryEvents: 'oom_kill_disable 0\nunder_oom 0\noom_kill 2\n',
    })).toEqual({ periods: 120, throttledPeriods: 30, throttledS: 2.5, memoryPeakBytes: 104857600, oomKills: 2 });
    expect(parseCounters(2, {
      cpuStat: 'usage_usec 9\nuser_usec 5\nsystem_usec 4\nnr_periods 10\nnr_throttled 4\nthrottled_usec 1500000\n',
      memoryPeak: '2048',
      memoryEvents: 'low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\noom_group_kill 0\n',
    })).toEqual({ periods: 10, throttledPeriods: 4, throttledS: 1.5, memoryPeakBytes: 2048, oomKills: 1 });
  });

  test('Kubernetes quantities', () => {
    expect([parseCpuMillis('250m'), parseCpuMillis('1'), parseCpuMillis('0.5'), parseCpuMillis('1.25')]).toEqual([250, 1000, 500, 1250]);
    expect([parseMemoryBytes('768Mi'), parseMemoryBytes('1Gi'), parseMemoryBytes('500M'), parseMemoryBytes('4096')]).toEqual([805306368, 2 ** 30, 5e8, 4096]);
    for (const bad of ['', 'm', '-1', '0m', '1 cpu']) expect(() => parseCpuMillis(bad)).toThrow(/CPU limit/);
    for (const bad of ['', '1Ti', '1.5Gi', 'lots']) expect(() => parseMemoryBytes(bad)).toThrow(/memory limit/);
  });
});
