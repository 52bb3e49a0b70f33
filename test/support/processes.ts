// Processes from /proc: the PIDs whose command line mentions a string (a control plane's temp folder, say), a
// process's children, and its established TCP connections to a port.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

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

/**
 * The established TCP connections a process has open to `port` (any address), from /proc: its socket inodes matched
 * against the kernel's tables. Every thread of the process counts (a worker's sockets are the process's).
 */
export function tcpConnectionsTo(port: number, pid: number | 'self' = 'self'): number {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch { /* closed meanwhile */ }
  }
  let n = 0;
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try { text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8'); } catch { continue; }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // sl local_address rem_address st … inode: the remote port in hex, state 01 = ESTABLISHED.
      if (f.length < 10 || f[3] !== '01' || Number.parseInt(f[2]!.split(':')[1]!, 16) !== port) continue;
      if (inodes.has(f[9]!)) n++;
    }
  }
  return n;
}
