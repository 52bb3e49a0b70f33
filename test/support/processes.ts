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
