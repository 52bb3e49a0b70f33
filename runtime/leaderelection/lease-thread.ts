// Lease renewals that starvation cannot delay: the process's Lease electors on a thread of their own (a worker,
// lease-thread-worker.ts), so that a renewal never waits in the event loop behind the work its Lease fences — a
// hosted replica's hundreds of guests' reads and reconciles, which made renewals seconds late under a CPU quota. A
// CPU quota still stops the whole process (every thread) for the rest of a period; the thread only takes the renewal
// out of the queue.
//  - The fence stays synchronous and honest: each elector's horizon (until when it leads, on the process's monotonic
//    clock) lives in memory both threads share; isLeader() reads it, so a write is refused on time even while this
//    thread is too busy to read the thread's messages.
//  - What the elector would have told the caller comes as messages: acquired, lost (onStoppedLeading), released;
//    its log lines go to the caller's logger; `leader_election_master_status` and
//    `featuregates_lease_renewal_delay_seconds` are kept in the caller's registry. The Lease requests themselves are
//    the thread's own (its own connection to the API server, one per cluster access however many Leases it holds: a
//    transport each cost a hosted replica 33 TLS handshakes and contexts) and are not in the caller's request metrics.
//  - Should the thread die, every Lease it held is lost at once (the horizons go to 0; onStoppedLeading with cause
//    'renew-deadline': the Lease may still name this process) and the next acquire starts a new thread.
//  - Only credentials that can cross to another thread (a StaticKubeConfig: files, inline data, a token file; with the
//    user agent withTransportConfig gave them) and the real clock go to the thread; anything else (an exec-plugin
//    kubeconfig, a LeaseStore, a fake clock) gets an elector on the caller's own thread, as before.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { NotLeaderError } from '../rest/api-errors.js';
import type { ClusterAccess } from '../rest/kube-config.js';
import { accessForThread } from '../rest/kube-transport.js';
import { processClock, realClock } from '../util/clock.js';
import { packageRoot } from '../util/version.js';
import { silentLogger, type Logger } from '../log/logger.js';
import {
  LeaderElector, electorTiming, leaderStatusGauge, renewalDelayHistogram,
  type Elector, type LeaderElectionTiming, type LeaderElectorOptions,
} from './leader-election.js';
import type { FromLeaseThread, ThreadAccess, ThreadLease, ToLeaseThread } from './lease-thread-worker.js';

/** The worker's file: beside this one when it runs compiled (dist/, or the bundle's dist/cli/); dist's when it runs from source (tests). */
function workerFile(): string {
  const beside = fileURLToPath(new URL('./lease-thread-worker.js', import.meta.url));
  return existsSync(beside) ? beside : join(packageRoot(), 'dist', 'runtime', 'leaderelection', 'lease-thread-worker.js');
}

export class LeaseThread {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly electors = new Map<number, ThreadElector>();
  /** Each cluster access's number on the thread: its Leases share one transport there (one connection, one TLS context). */
  private readonly accessIds = new WeakMap<ClusterAccess, number>();
  private nextAccessId = 1;

  constructor(private readonly file: string = workerFile()) {}

  /** An elector whose renewals run on the lease thread, or on this thread where they cannot (see the header). */
  elector(kc: ClusterAccess | undefined, options: LeaderElectorOptions): Elector {
    const access = kc && accessForThread(kc);
    const onThread = access && !options.store && (options.clock === undefined || options.clock === realClock);
    if (!onThread) return new LeaderElector(kc, options);
    const id = this.nextId++;
    let accessId = this.accessIds.get(kc);
    if (accessId === undefined) this.accessIds.set(kc, (accessId = this.nextAccessId++));
    const e = new ThreadElector(this, id, { id: accessId, ...access }, options);
    this.electors.set(id, e);
    return e;
  }

  /** Whether electors of `kc` (on the real clock) renew on this thread: its credentials can cross to it. */
  accepts(kc: ClusterAccess): boolean {
    return accessForThread(kc) !== undefined;
  }

  /** Electors whose Lease is on the thread now (acquiring, held or releasing). */
  get size(): number {
    return this.electors.size;
  }

  /** Stops the thread as a crash would: every Lease on it is lost (not released). A later acquire starts a new thread. */
  async terminate(): Promise<void> {
    const w = this.worker;
    if (!w) return;
    this.stopped(w, 'terminated');
    await w.terminate();
  }

  post(m: ToLeaseThread): void {
    this.start().postMessage(m);
  }

  /** The Lease is no longer on the thread; with none left the thread ends (the next acquire starts another). */
  forget(id: number): void {
    this.electors.delete(id);
    const w = this.worker;
    if (this.electors.size > 0 || !w) return;
    this.worker = undefined;
    void w.terminate();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(this.file, { name: 'lease-thread' });
    w.unref(); // the caller's own handles keep the process up; a thread holding Leases alone must not
    w.on('message', (m: FromLeaseThread) => this.electors.get(m.id)?.heard(m));
    w.on('error', (e) => this.stopped(w, e.message));
    w.on('exit', (code) => this.stopped(w, `exited with code ${code}`));
    this.worker = w;
    return w;
  }

  private stopped(w: Worker, why: string): void {
    if (this.worker !== w) return;
    this.worker = undefined;
    for (const e of [...this.electors.values()]) e.threadStopped(why);
  }
}

/** One Lease held on the lease thread, seen from the caller's thread. */
class ThreadElector implements Elector {
  readonly timing: LeaderElectionTiming;
  private readonly lease: ThreadLease;
  private readonly horizon = new SharedArrayBuffer(8);
  private readonly slot = new BigInt64Array(this.horizon);
  private readonly log: Logger;
  private readonly status;
  private readonly renewalDelay;
  private posted = false;
  /** The thread has nothing of this Lease any more (lost, not acquired, released, or the thread died). */
  private gone = false;
  private leading = false;
  private acquiring: { resolve: () => void; reject: (e: Error) => void } | undefined;
  private releasing: (() => void) | undefined;

  constructor(private readonly thread: LeaseThread, private readonly id: number,
    private readonly access: ThreadAccess, private readonly options: LeaderElectorOptions) {
    const { timing, renewIntervalMs } = electorTiming(options);
    this.timing = timing;
    const seen = options.observedSince;
    const clock = options.clock ?? realClock;
    this.lease = {
      namespace: options.namespace, name: options.name, identity: options.identity, timing, renewIntervalMs,
      ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
      // Dated on the process's clock: as long ago as it was on the caller's.
      ...(seen ? { observedSince: { lease: seen.lease, at: processClock.now() - (clock.now() - seen.at) } } : {}),
    };
    this.log = (options.logger ?? silentLogger).with({ lease: `${options.namespace}/${options.name}`, identity: options.identity });
    this.status = options.metrics && leaderStatusGauge(options.metrics, options.name);
    this.status?.set(0);
    this.renewalDelay = options.metrics && renewalDelayHistogram(options.metrics);
  }

  isLeader(): boolean {
    return process.hrtime.bigint() / 1000n < Atomics.load(this.slot, 0);
  }

  fence(): void {
    if (!this.isLeader()) throw new NotLeaderError(`not the leader of Lease ${this.options.namespace}/${this.options.name}: write refused`);
  }

  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted || this.posted) return Promise.reject(new Error('leader election stopped before the lease was acquired'));
    this.posted = true;
    const done = new Promise<void>((resolve, reject) => (this.acquiring = { resolve, reject }));
    this.thread.post({ kind: 'acquire', id: this.id, access: this.access, lease: this.lease, horizon: this.horizon });
    signal?.addEventListener('abort', () => this.thread.post({ kind: 'abort', id: this.id }), { once: true });
    return done;
  }

  async release(): Promise<void> {
    Atomics.store(this.slot, 0, 0n);
    this.leading = false;
    this.status?.set(0);
    if (!this.posted || this.gone) return this.forget();
    const released = new Promise<void>((resolve) => (this.releasing = resolve));
    this.thread.post({ kind: 'release', id: this.id });
    await released;
  }

  /** A message of the thread about this Lease. */
  heard(m: FromLeaseThread): void {
    switch (m.kind) {
      case 'log': return this.log[m.level](m.msg, m.fields);
      case 'renewed': return this.renewalDelay?.observe(m.delayS);
      case 'acquired':
        this.leading = true;
        this.status?.set(1);
        this.acquiring?.resolve();
        return;
      case 'not-acquired':
        this.forget();
        this.acquiring?.reject(new Error(m.error));
        return;
      case 'lost': return this.lose(m.reason, m.cause);
      case 'released':
        this.forget();
        this.acquiring?.reject(new Error('leader election stopped before the lease was acquired'));
    }
  }

  /** The thread died: nothing it held is held any more. */
  threadStopped(why: string): void {
    Atomics.store(this.slot, 0, 0n);
    this.forget();
    this.acquiring?.reject(new Error(`the lease thread stopped: ${why}`));
    if (this.leading) {
      this.log.error('leader election lost', { reason: `the lease thread stopped: ${why}` });
      this.lose(`the lease thread stopped: ${why}`, 'renew-deadline');
    }
  }

  /** Nothing of this Lease is on the thread any more: a release waiting for it is over (a later 'released' is not routed here). */
  private forget(): void {
    this.gone = true;
    this.thread.forget(this.id);
    this.releasing?.();
  }

  private lose(reason: string, cause: Parameters<NonNullable<LeaderElectorOptions['onStoppedLeading']>>[1]): void {
    Atomics.store(this.slot, 0, 0n);
    this.forget();
    if (!this.leading) return;
    this.leading = false;
    this.status?.set(0);
    this.options.onStoppedLeading?.(reason, cause);
  }
}
