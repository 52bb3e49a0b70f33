// The parent's side of hollow-guests-process.ts: forks it and asks it one thing at a time over the IPC channel.
import { fork, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FeatureGateDetails } from '../../api-types/index.js';
import { until } from '../../test/support/timing.js';
import { usage } from './operator-process.js';
import { nowMs } from './stats.js';

/** The hollow guests' process: one request at a time over its IPC channel. */
export class HollowGuests {
  private chain: Promise<unknown> = Promise.resolve();
  private constructor(private readonly proc: ChildProcess, readonly kubeconfigs: string[]) {}

  static async start(n: number, version = '4.22.0'): Promise<HollowGuests> {
    const proc = fork(join(dirname(fileURLToPath(import.meta.url)), 'hollow-guests-process.js'), [String(n), version], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const kubeconfigs = await new Promise<string[]>((resolve, reject) => {
      proc.once('message', (m: { kubeconfigs: string[] }) => resolve(m.kubeconfigs));
      proc.once('exit', (code) => reject(new Error(`hollow-guests-process exited ${code}`)));
    });
    return new HollowGuests(proc, kubeconfigs);
  }

  /** CPU seconds the hollow process has spent so far (user + system, from /proc). */
  cpuS(): number {
    return usage(this.proc.pid!).cpuS;
  }

  ask<T>(m: Record<string, unknown>): Promise<T> {
    const next = this.chain.then(() => new Promise<T>((resolve) => { this.proc.once('message', (r: T) => resolve(r)); this.proc.send(m); }));
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** How many (of `indices`, default all) hold exactly `entries` (and a ClusterOperator). */
  async correct(entries: FeatureGateDetails[], indices?: number[]): Promise<number> {
    const sorted = [...entries].sort((a, b) => a.version.localeCompare(b.version));
    return (await this.ask<{ correct: number }>({ type: 'count', expected: { featureGates: sorted }, ...(indices ? { indices } : {}) })).correct;
  }

  /** Resolves once all (of `indices`) hold `entries`: seconds since `from` (nowMs). */
  async allCorrect(entries: FeatureGateDetails[], from: number, timeoutS: number, indices?: number[]): Promise<number> {
    const want = indices?.length ?? this.kubeconfigs.length;
    let last = 0;
    await until(`${want} hollow guests correct`, async () => (last = await this.correct(entries, indices)) === want, timeoutS * 1000, 250)
      .catch((e: unknown) => { throw new Error(`${(e as Error).message}: ${last} of ${want} correct at the end`); });
    return (nowMs() - from) / 1000;
  }

  stop(): void {
    this.proc.disconnect();
  }
}
