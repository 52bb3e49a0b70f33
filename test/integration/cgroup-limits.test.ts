// The limits helper on this machine's kernel with real processes (what the `limits` chaos scenario and the fleet
// benchmark's --cpu-limit / --memory-limit rest on): a process in a group with a CPU quota gets no more than its quota
// and the kernel counts it throttled; one past its memory limit is killed by the OOM killer and the group counts it.
import { afterEach, describe, expect, test } from '@jest/globals';
import { spawn } from 'node:child_process';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import { LimitGroup } from '../support/cgroup.js';
import { hostedNodeFlags, imageNodeFlags, usage } from '../../hack/bench/operator-process.js';
import { parseMemoryQuantity } from '../../api-types/index.js';
import { BUDGET_OF_LIMIT, memoryBudgetBytes } from '../../hosted/memory-budget.js';
import { containerWorkingSet } from '../../runtime/util/container-memory.js';
import { packageRoot } from '../../runtime/util/version.js';

const groups: LimitGroup[] = [];
afterEach(async () => {
  for (const g of groups.splice(0)) await g.remove();
});

function run(group: LimitGroup, script: string, nodeFlags: string[] = []) {
  const [file, args] = group.command(process.execPath, [...nodeFlags, '-e', script]);
  const child = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, exit };
}

describe('cgroup limits on real processes', () => {
  test('a CPU quota of 100m: a busy process gets about a tenth of a core, throttled period after period', async () => {
    const group = LimitGroup.create(`fgc-test-cpu-${process.pid}`, { cpuMillis: 100 });
    groups.push(group);
    const { child, exit } = run(group, 'const end = Date.now() + 2000; while (Date.now() < end); let cpu = process.cpuUsage(); process.exitCode = 0; process.stderr.write(JSON.stringify(cpu))');
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    await new Promise((r) => setTimeout(r, 300));
    expect(group.pids()).toEqual([child.pid]); // the command's own PID joined the group (the shell exec'd it)
    expect((await exit).code).toBe(0);
    const cpu = JSON.parse(err) as { user: number; system: number };
    const cpuS = (cpu.user + cpu.system) / 1e6;
    // 2 s of wall time at a tenth of a core: ~0.2 s, with the start of Node.js on top; unlimited it would be ~2 s.
    expect(cpuS).toBeLessThan(0.6);
    const c = group.counters();
    expect(c.throttledPeriods).toBeGreaterThan(5);
    expect(c.throttledS).toBeGreaterThan(1);
  });

  test('a memory limit of 96Mi: a process that keeps 300 MB is OOM-killed, and the group counts the kill', async () => {
    const group = LimitGroup.create(`fgc-test-mem-${process.pid}`, { memoryBytes: 96 * 2 ** 20 });
    groups.push(group);
    const { child, exit } = run(group, 'const keep = []; for (let i = 0; i < 300; i++) keep.push(Buffer.alloc(1 << 20, 1)); process.stderr.write("survived")');
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    expect(await exit).toEqual({ code: null, signal: 'SIGKILL' });
    expect(err).not.toContain('survived');
    const c = group.counters();
    expect(c.oomKills).toBeGreaterThanOrEqual(1);
    expect(c.memoryPeakBytes).toBeGreaterThan(80 * 2 ** 20);
    expect(c.memoryPeakBytes).toBeLessThanOrEqual(96 * 2 ** 20);
  });

  test('in a 256Mi group Node sees the limit: the image\'s flags keep V8\'s heap under it, a hosted replica\'s budget is 85% of it', async () => {
    const limit = 256 * 2 ** 20;
    const group = LimitGroup.create(`fgc-test-heap-${process.pid}`, { memoryBytes: limit });
    groups.push(group);
    const script = 'process.stderr.write(JSON.stringify({ limit: process.constrainedMemory(), heap: require("v8").getHeapStatistics().heap_size_limit }))';
    const seen = async (flags: string[]) => {
      const { child, exit } = run(group, script, flags);
      let err = '';
      child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      expect((await exit).code).toBe(0);
      return JSON.parse(err) as { limit: number; heap: number };
    };
    const plain = await seen([]);
    expect(plain.limit).toBe(limit);
    expect(plain.heap).toBeGreaterThan(limit); // V8's default: the kernel would kill it before V8 felt short
    const image = await seen(imageNodeFlags());
    expect(image.heap).toBeLessThanOrEqual(0.8 * limit); // 75% for the old generation, a few MB of young generation besides
    expect(image.heap).toBeGreaterThan(0.6 * limit);
    const hosted = await seen(hostedNodeFlags()); // the hosted Deployment's own flags: a larger young generation, the same old one
    expect(hosted.heap).toBeLessThanOrEqual(0.85 * limit);
    expect(hosted.heap).toBeGreaterThan(0.6 * limit);
    expect(memoryBudgetBytes(undefined, parseMemoryQuantity, image.limit)).toBe(Math.floor(limit * BUDGET_OF_LIMIT));
    expect(memoryBudgetBytes('auto', parseMemoryQuantity, 2 ** 64)).toBeUndefined(); // no limit: no budget unless one is given
    expect(memoryBudgetBytes('0', parseMemoryQuantity, limit)).toBeUndefined();
    expect(memoryBudgetBytes('640Mi', parseMemoryQuantity, limit)).toBe(640 * 2 ** 20);
    expect(() => memoryBudgetBytes('32Mi', parseMemoryQuantity, limit)).toThrow(/below 64Mi/);
  });

  test('in a 256Mi group a process reads its container\'s working set: what it keeps, not the binary\'s pages its RSS counts', async () => {
    const group = LimitGroup.create(`fgc-test-ws-${process.pid}`, { memoryBytes: 256 * 2 ** 20 });
    groups.push(group);
    const module = join(packageRoot(), 'dist', 'runtime', 'util', 'container-memory.js');
    const script = `const { containerWorkingSet } = await import(${JSON.stringify(module)}); const keep = [];
      for (let i = 0; i < 100; i++) keep.push(Buffer.alloc(1 << 20, 1));
      process.stderr.write(JSON.stringify({ workingSet: containerWorkingSet()?.(), rss: process.memoryUsage.rss() }));`;
    const { child, exit } = run(group, script, ['--input-type=module']);
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    expect((await exit).code).toBe(0);
    const seen = JSON.parse(err) as { workingSet?: number; rss: number };
    expect(seen.workingSet).toBeGreaterThan(100 * 2 ** 20); // the buffers it keeps, and Node's own heap
    expect(seen.workingSet).toBeLessThan(256 * 2 ** 20);
    expect(seen.workingSet).toBeLessThan(seen.rss); // Node's binary is mapped (RSS) but its pages were charged to whoever read them first
    if (!(process.constrainedMemory() < totalmem())) expect(containerWorkingSet()).toBeUndefined(); // no limit here: no container to read
  });

  test('a process under the limit runs as it would without it, and remove() leaves nothing behind', async () => {
    const group = LimitGroup.create(`fgc-test-idle-${process.pid}`, { cpuMillis: 500, memoryBytes: 256 * 2 ** 20 });
    groups.push(group);
    const { child, exit } = run(group, 'setTimeout(() => {}, 60000)');
    await new Promise((r) => setTimeout(r, 500));
    expect(usage(child.pid!).rssMB).toBeLessThan(256);
    expect(group.counters().oomKills).toBe(0);
    await group.remove(); // kills what is left, then removes every directory
    expect((await exit).signal).toBe('SIGKILL');
    expect(() => group.pids()).toThrow(/ENOENT/);
  });

  test('a name that is not a plain directory name is refused before anything is created', () => {
    expect(() => LimitGroup.create('../escape', { cpuMillis: 100 })).toThrow(/cgroup name/);
  });
});
