// The memory of the container this process runs in, as the kubelet and the kernel's OOM killer count it: its memory
// cgroup's charge less the page cache it could drop (inactive file pages) — the kubelet's "working set". A process's
// own RSS is not that number: it counts the pages of files it maps (Node's own binary, tens of MiB) whether or not its
// group was charged for them, and leaves out the group's page cache. cgroup v2 (memory.current, memory.stat's
// inactive_file) or v1 (memory/…/memory.usage_in_bytes, memory.stat's total_inactive_file); the group is the one
// /proc/self/cgroup names, or the hierarchy's root when that path is not mounted (a container sees its own group as
// the root, with or without a cgroup namespace).
import { existsSync, readFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { join } from 'node:path';

/** Where a memory cgroup's charge and its inactive page cache are read. */
export interface MemoryGroupFiles {
  /** The charge, bytes (v2 memory.current, v1 memory.usage_in_bytes). */
  usage: string;
  /** memory.stat. */
  stat: string;
  /** The memory.stat line of the page cache that can be dropped (v2 inactive_file; v1 total_inactive_file, its subtree's). */
  inactiveKey: 'inactive_file' | 'total_inactive_file';
}

/**
 * The memory cgroup of the process whose /proc/<pid>/cgroup reads `procCgroup`, under `root`; undefined when neither
 * version's files are there.
 */
export function memoryGroupFiles(procCgroup: string, root = '/sys/fs/cgroup', exists: (p: string) => boolean = existsSync): MemoryGroupFiles | undefined {
  const lines = procCgroup.split('\n').map((l) => l.split(':')).filter((f) => f.length >= 3);
  const pathOf = (f: string[]) => f.slice(2).join(':');
  const v1 = lines.find((f) => f[1]!.split(',').includes('memory'));
  const v2 = lines.find((f) => f[0] === '0' && f[1] === '');
  const candidates: [string, 'v1' | 'v2'][] = [];
  if (v1) candidates.push([join(root, 'memory', pathOf(v1)), 'v1'], [join(root, 'memory'), 'v1']);
  if (v2) candidates.push([join(root, pathOf(v2)), 'v2'], [root, 'v2']);
  for (const [dir, version] of candidates) {
    const usage = join(dir, version === 'v2' ? 'memory.current' : 'memory.usage_in_bytes');
    if (exists(usage) && exists(join(dir, 'memory.stat'))) {
      return { usage, stat: join(dir, 'memory.stat'), inactiveKey: version === 'v2' ? 'inactive_file' : 'total_inactive_file' };
    }
  }
  return undefined;
}

/** The working set of the group: its charge less its inactive page cache (never below 0). */
export function workingSetBytes(f: MemoryGroupFiles, read: (p: string) => string = (p) => readFileSync(p, 'utf8')): number {
  const usage = Number(read(f.usage).trim());
  const inactive = Number(new RegExp(`^${f.inactiveKey} (\\d+)$`, 'm').exec(read(f.stat))?.[1] ?? 0);
  if (!Number.isFinite(usage)) throw new Error(`${f.usage}: not a number of bytes`);
  return Math.max(0, usage - inactive);
}

/**
 * A reader of this process's container working set, when the process runs under a memory limit (Node's
 * process.constrainedMemory(): the limit of its group) and the group's files can be read; else undefined (no
 * container limit: the group, if any, is shared with others and says nothing about this process).
 */
export function containerWorkingSet(): (() => number) | undefined {
  const limit = process.constrainedMemory();
  if (!(limit > 0 && limit < totalmem())) return undefined;
  let procCgroup: string;
  try {
    procCgroup = readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return undefined;
  }
  const files = memoryGroupFiles(procCgroup);
  if (!files) return undefined;
  try {
    workingSetBytes(files);
  } catch {
    return undefined;
  }
  return () => workingSetBytes(files);
}
