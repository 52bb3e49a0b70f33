// PIDs of running processes whose command line mentions a string (a control plane's temp folder, say).
import { readdirSync, readFileSync } from 'node:fs';

export function processesMentioning(needle: string, exclude?: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmd.includes(needle) && !(exclude && cmd.includes(exclude))) out.push(Number(entry));
    } catch { /* exited */ }
  }
  return out;
}

/** The children of a process (its main thread's, from /proc: a reaper's binary, say); [] once it has exited. */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
