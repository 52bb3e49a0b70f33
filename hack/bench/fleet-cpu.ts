// Where hosted-fleet's CPU goes: the fresh start's (replicas, hollow process, management API server and etcd, the
// machine's busy time against its cores), the survivors' through a take-over (sampled, the idle part subtracted),
// and the floor of the watches a replica holds (a bare client in a process of its own, watch-floor.ts).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { childPids } from '../../test/support/processes.js';
import { exited, usage } from './operator-process.js';
import { nowMs, sum } from './stats.js';

/** The machine's busy CPU seconds since boot: user, nice, system, irq, softirq, steal (/proc/stat). */
function machineBusyS(): number {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
  return (ticks[0]! + ticks[1]! + ticks[2]! + ticks[5]! + ticks[6]! + ticks[7]!) / 100;
}

/** CPU seconds of a control-plane binary: its pid is its reaper's (control-plane/supervised-process.ts), the binary the reaper's child. */
const binaryCpuS = (reaper: number) => sum([reaper, ...childPids(reaper)].map((pid) => usage(pid).cpuS));

/**
 * What the machine's cores do from now until the returned function is called: the replicas' CPU (all of it: they are
 * spawned after), per guest, beside the hollow process, the management kube-apiserver and etcd, and the machine's busy
 * time against its cores × the wall time (is the start bound by the CPU?).
 */
export function startCpuMeter(
  mgmt: { pids: { kubeAPIServer: number; etcd: number } }, hollowCpuS: () => number,
): (replicaPids: number[], guests: number) => string {
  const apiCpuS = () => binaryCpuS(mgmt.pids.kubeAPIServer);
  const etcdCpuS = () => binaryCpuS(mgmt.pids.etcd);
  const t0 = nowMs();
  const at0 = { machine: machineBusyS(), hollow: hollowCpuS(), api: apiCpuS(), etcd: etcdCpuS() };
  return (replicaPids, guests) => {
    const wallS = (nowMs() - t0) / 1000;
    const replicaS = sum(replicaPids.map((pid) => usage(pid).cpuS));
    return `replicas ${replicaS.toFixed(1)} s (${(replicaS / guests * 1000).toFixed(1)} ms a guest), hollow process ` +
      `${(hollowCpuS() - at0.hollow).toFixed(1)} s, management kube-apiserver ${(apiCpuS() - at0.api).toFixed(1)} s, ` +
      `etcd ${(etcdCpuS() - at0.etcd).toFixed(1)} s; the machine busy ${(machineBusyS() - at0.machine).toFixed(1)} s of ` +
      `${cpus().length} cores × ${wallS.toFixed(1)} s`;
  };
}

/** The survivors' CPU through a take-over, sampled every 250 ms from now. */
export class TakeoverCpu {
  private readonly samples: { t: number; cpuS: number }[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly pids: number[]) {
    this.sample();
    this.timer = setInterval(() => this.sample(), 250);
  }

  private sample(): void {
    this.samples.push({ t: Date.now(), cpuS: sum(this.pids.map((pid) => usage(pid).cpuS)) });
  }

  /**
   * Stops sampling; the CPU from `firstTakenWall` (the first shard taken) to now, less what the survivors spent idle at
   * their rate of the Lease wait before it (from the first sample), and that idle rate.
   */
  stop(firstTakenWall: number): { cpuMs: number; idleSPerMin: number } {
    this.sample();
    clearInterval(this.timer);
    const at = (t: number) => this.samples.reduce((best, x) => (Math.abs(x.t - t) < Math.abs(best.t - t) ? x : best));
    const [atStart, atTaken, atEnd] = [this.samples[0]!, at(firstTakenWall), this.samples.at(-1)!];
    const idleRate = (atTaken.cpuS - atStart.cpuS) / Math.max(1, atTaken.t - atStart.t);
    return { cpuMs: (atEnd.cpuS - atTaken.cpuS - idleRate * (atEnd.t - atTaken.t)) * 1000, idleSPerMin: idleRate * 60_000 };
  }
}

/**
 * CPU per minute of a bare client holding 3 watches on each of these guests for `windowS` (watch-floor.ts in a process
 * of its own, with `nodeFlags`); `spawned` is told the child, for a run that fails to kill.
 */
export async function watchFloor(
  kubeconfigs: string[], o: { nodeFlags: string[]; windowS: number; spawned(child: ReturnType<typeof spawn>): void },
): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'watch-floor-'));
  writeFileSync(join(dir, 'kubeconfigs.json'), JSON.stringify(kubeconfigs));
  const child = spawn(process.execPath, [...o.nodeFlags, join(import.meta.dirname, 'watch-floor.js'), '--kubeconfigs', join(dir, 'kubeconfigs.json'),
    '--warmup-s', '30', '--window-s', String(o.windowS), '--json', join(dir, 'floor.json')], { stdio: ['ignore', 'inherit', 'inherit'] });
  o.spawned(child);
  await exited(child);
  return (JSON.parse(readFileSync(join(dir, 'floor.json'), 'utf8')) as { cpuSPerMin: number }).cpuSPerMin;
}
