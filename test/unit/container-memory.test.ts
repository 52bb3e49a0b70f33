// Where a container's memory is read (runtime/util/container-memory.ts): the memory cgroup /proc/self/cgroup names,
// on cgroup v1 or v2, or the hierarchy's root when a container sees its own group as the root; and its working set.
import { describe, expect, test } from '@jest/globals';
import { memoryGroupFiles, workingSetBytes } from '../../runtime/util/container-memory.js';

const V1 = ['12:pids:/kubepods/pod1/ctr', '4:memory:/kubepods/pod1/ctr', '1:cpu,cpuacct:/kubepods/pod1/ctr', '0::/'].join('\n');
const existing = (...files: string[]) => (p: string) => files.includes(p);

describe('container memory', () => {
  test('cgroup v1: the memory line\'s group when it is mounted, else the memory hierarchy\'s root (a container\'s view)', () => {
    const host = '/sys/fs/cgroup/memory/kubepods/pod1/ctr';
    expect(memoryGroupFiles(V1, '/sys/fs/cgroup', existing(`${host}/memory.usage_in_bytes`, `${host}/memory.stat`))).toEqual({
      usage: `${host}/memory.usage_in_bytes`, stat: `${host}/memory.stat`, inactiveKey: 'total_inactive_file',
    });
    const inside = '/sys/fs/cgroup/memory';
    expect(memoryGroupFiles(V1, '/sys/fs/cgroup', existing(`${inside}/memory.usage_in_bytes`, `${inside}/memory.stat`))?.usage)
      .toBe(`${inside}/memory.usage_in_bytes`);
  });

  test('cgroup v2: the unified line\'s group, or the root in a cgroup namespace ("0::/")', () => {
    const dir = '/sys/fs/cgroup/kubepods.slice/ctr.scope';
    expect(memoryGroupFiles('0::/kubepods.slice/ctr.scope\n', '/sys/fs/cgroup', existing(`${dir}/memory.current`, `${dir}/memory.stat`))).toEqual({
      usage: `${dir}/memory.current`, stat: `${dir}/memory.stat`, inactiveKey: 'inactive_file',
    });
    expect(memoryGroupFiles('0::/\n', '/sys/fs/cgroup', existing('/sys/fs/cgroup/memory.current', '/sys/fs/cgroup/memory.stat'))?.usage)
      .toBe('/sys/fs/cgroup/memory.current');
  });

  test('no memory controller, or its files missing: nothing to read', () => {
    expect(memoryGroupFiles('1:cpu:/\n', '/sys/fs/cgroup', () => true)).toBeUndefined();
    expect(memoryGroupFiles(V1, '/sys/fs/cgroup', () => false)).toBeUndefined();
    expect(memoryGroupFiles('', '/sys/fs/cgroup', () => true)).toBeUndefined();
  });

  test('the working set: the charge less the inactive page cache, never below 0', () => {
    const files = { usage: 'u', stat: 's', inactiveKey: 'total_inactive_file' as const };
    const read = (usage: string, stat: string) => (p: string) => (p === 'u' ? usage : stat);
    const stat = 'cache 300\ninactive_file 7\ntotal_inactive_file 100\ntotal_active_file 50\n';
    expect(workingSetBytes(files, read('1000\n', stat))).toBe(900);
    expect(workingSetBytes({ ...files, inactiveKey: 'inactive_file' }, read('1000\n', stat))).toBe(993);
    expect(workingSetBytes(files, read('50\n', stat))).toBe(0);
    expect(workingSetBytes(files, read('1000\n', 'rss 5\n'))).toBe(1000);
    expect(() => workingSetBytes(files, read('max\n', stat))).toThrow(/u: not a number/);
  });
});
