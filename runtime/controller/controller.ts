// A Controller runs reconcilers over a rate-limited work queue with controller-runtime's semantics, one
// controller of a kind for every cluster engaged on it (multicluster-runtime's shape):
//  - a cluster engaged brings its reconcile, the watches that trigger it (a source of object names, mapped to
//    keys), its initial keys and when its caches have listed; its requests carry its name (work-queue.ts), and
//    disengage() lets go of its sources, drops its waiting requests and ends its reconciles in flight. A
//    single-cluster controller is built from a whole spec and engages its one cluster ('') when started;
//  - result handling: an error → addRateLimited (counted, logged); a 409 Conflict → addRateLimited,
//    result "requeue" (someone wrote first: the cache will catch up); `requeue: true` → addRateLimited;
//    `requeueAfterMs > 0` → forget + addAfter; otherwise forget. There is no "requeue now" path, so a stale
//    cache cannot turn into a storm of writes;
//  - a write refused by the leader fence (NotLeaderError) is dropped: the process is stepping down;
//  - a TerminalError (controller-runtime's terminal error: bad or missing input, or a first read not answered
//    yet) is not retried with backoff: the key waits for a watched change, or its own recheck delay; it is
//    logged when its message changes, not at every attempt; like controller-runtime's, it does not forget the
//    key's earlier failures (only a success does), so the next failure goes on with the backoff where it was;
//  - declared in the spec, not written in each reconciler (library-go's factory): `resyncEveryMs` looks at a key
//    again after a reconcile that asked for nothing itself; `degradedOnError` is told each reconcile's error (or
//    undefined) for the controller's Degraded condition; a 409 anywhere in an error's cause chain is a conflict;
//    `singleKeyController` builds the spec of a controller of one object;
//  - stop() aborts the signal each reconcile is given (clients built with it end their requests in flight at
//    once), then waits for the reconciles in flight; an exception a reconcile throws is that key's error, never
//    the process's;
//  - `concurrency` workers over every cluster; a worker lets the event loop turn after 10 ms of reconciles that
//    did not wait on I/O (a wave of hundreds of clusters' cheap reconciles would otherwise hold it); with
//    `slowAfterMs`, a reconcile that runs longer gives its worker back and ends beside the workers (a cluster that
//    never answers holds no worker past it).
// Metrics: controller_runtime_reconcile_total{result}, _errors_total, _time_seconds, _active_workers,
// _max_concurrent_reconciles, featuregates_controller_slow_reconciles, plus the queue's workqueue_*.
import { NotLeaderError, apiErrorMessage, errorCause, isConflictCause } from '../rest/api-errors.js';
import { silentLogger, type Logger } from '../log/logger.js';
import { counter, gauge, histogram } from '../metrics/metrics.js';
import { DURATION_BUCKETS, WorkQueue, type Request } from './work-queue.js';
import { TerminalError, type ClusterWork, type ControllerOptions, type ControllerRunning, type ControllerSpec } from './controller-spec.js';

export type ReconcileOutcome = 'success' | 'error' | 'requeue' | 'requeue_after';
const OUTCOMES: readonly ReconcileOutcome[] = ['success', 'error', 'requeue', 'requeue_after'];

/** One cluster engaged on a controller. */
class Engaged {
  readonly stopping = new AbortController();
  readonly unsubscribe: (() => void)[] = [];
  /** The last TerminalError message per key (logged when it changes). */
  readonly terminal = new Map<string, string>();
  readonly inFlight = new Set<Promise<void>>();
  /** Its caches have listed: its requests may be queued. */
  synced = false;
  constructor(readonly work: ClusterWork, readonly log: Logger) {}
}

/** How long the workers of every controller may hold the event loop before they let it turn (a Lease renewal waits no longer). */
const SLICE_MS = 10;
let sliceStart = performance.now();

/**
 * One controller of a kind (multicluster-runtime's shape): one queue whose requests name their cluster, one set of
 * workers, one set of metrics; each cluster engaged brings its reconcile and its sources. The single-cluster operator's
 * controllers are built from a whole spec and engage their one cluster ('') at start().
 */
export class Controller {
  readonly queue: WorkQueue;
  private readonly log: Logger;
  private readonly engaged = new Map<string, Engaged>();
  private workers: Promise<void>[] = [];
  private started = false;
  private stopped = false;
  private readonly m;
  private readonly idleWaiters: (() => void)[] = [];
  /** With slowAfterMs: the reconciles holding a worker now, and whether one loop is looking at them. */
  private readonly holding = new Set<{ since: number; letGo: () => void }>();
  private holdingWatched = false;

  constructor(
    readonly spec: ControllerSpec | ControllerRunning,
    options: ControllerOptions = {},
  ) {
    this.queue = new WorkQueue(spec.name, {
      ...(options.metrics ? { metrics: options.metrics } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.rateLimiter ? { rateLimiter: options.rateLimiter } : {}),
      ...(options.eventsPerCluster ? { eventsPerCluster: options.eventsPerCluster } : {}),
    });
    this.log = (options.logger ?? silentLogger).with({ controller: spec.name });
    const r = options.metrics;
    const name = spec.name;
    const reconciles =
      r && counter(r, 'controller_runtime_reconcile_total', 'Total number of reconciliations per controller', ['controller', 'result']);
    this.m =
      r && reconciles
        ? {
            reconciles: Object.fromEntries(OUTCOMES.map((result) => [result, reconciles.labels({ controller: name, result })])) as Record<
              ReconcileOutcome,
              { inc(by?: number): void }
            >,
            errors: counter(r, 'controller_runtime_reconcile_errors_total', 'Total number of reconciliation errors per controller', [
              'controller',
            ]).labels({ controller: name }),
            time: histogram(
              r,
              'controller_runtime_reconcile_time_seconds',
              'Length of time per reconciliation per controller',
              ['controller'],
              DURATION_BUCKETS,
            ).labels({ controller: name }),
            workers: gauge(r, 'controller_runtime_max_concurrent_reconciles', 'Maximum number of concurrent reconciles per controller', [
              'controller',
            ]).labels({ controller: name }),
            active: gauge(r, 'controller_runtime_active_workers', 'Number of currently used workers per controller', ['controller']).labels(
              { controller: name },
            ),
            slow: gauge(
              r,
              'featuregates_controller_slow_reconciles',
              "Reconciles running past the controller's slow threshold, no longer holding a worker",
              ['controller'],
            ).labels({ controller: name }),
          }
        : undefined;
    if (this.m) {
      for (const result of OUTCOMES) this.m.reconciles[result].inc(0);
      this.m.errors.inc(0);
      this.m.workers.set(spec.concurrency ?? 1);
      this.m.slow.set(0);
    }
  }

  get name(): string {
    return this.spec.name;
  }

  /** It writes: started only while its process leads, unless its spec says otherwise (controller-runtime's default). */
  get needLeaderElection(): boolean {
    return this.spec.needLeaderElection ?? true;
  }

  /** Starts the workers; a controller built from a whole spec engages its one cluster (''). */
  start(): void {
    if (this.started) return;
    this.started = true;
    if ('reconcile' in this.spec) this.engage('', this.spec);
    for (let i = 0; i < (this.spec.concurrency ?? 1); i++) this.workers.push(this.work());
  }

  /** The cluster's sources wake this controller and its initial keys are queued; its requests run its reconcile. */
  engage(cluster: string, work: ClusterWork): void {
    if (this.stopped) return;
    if (this.engaged.has(cluster)) throw new Error(`controller ${this.spec.name}: cluster ${JSON.stringify(cluster)} is already engaged`);
    const e = new Engaged(work, work.logger ? work.logger.with({ controller: this.spec.name }) : this.log);
    this.engaged.set(cluster, e);
    const start = () => {
      if (this.engaged.get(cluster) !== e) return; // disengaged before its caches listed
      e.synced = true;
      for (const w of work.watches) {
        e.unsubscribe.push(
          w.source.addListener((n) => {
            for (const k of w.keys ? w.keys(n) : [n]) this.queue.addFromEvent(k, cluster);
          }),
        );
      }
      for (const k of work.initialKeys ?? []) this.queue.add(k, cluster);
    };
    if (work.synced) void work.synced.then(start, () => undefined);
    else start();
  }

  /**
   * The cluster's sources are let go, its waiting requests dropped, the requests of its reconciles in flight aborted;
   * resolves when they have ended. Nothing it reconciled is told after.
   */
  async disengage(cluster: string): Promise<void> {
    const e = this.engaged.get(cluster);
    if (!e) return;
    this.engaged.delete(cluster);
    for (const u of e.unsubscribe.splice(0)) u();
    e.stopping.abort(new Error(`controller ${this.spec.name} stopped${cluster ? ` for ${cluster}` : ''}`));
    this.queue.dropCluster(cluster);
    await Promise.all([...e.inFlight]);
  }

  isEngaged(cluster: string): boolean {
    return this.engaged.has(cluster);
  }

  enqueue(key: string, cluster = ''): void {
    if (this.engaged.get(cluster)?.synced) this.queue.add(key, cluster);
  }

  /**
   * The cluster's initial keys are looked at again now, except those backing off (a peer flapping between failing and answering cannot
   * reset a backoff).
   */
  lookAgain(cluster = ''): void {
    const e = this.engaged.get(cluster);
    if (!e?.synced) return;
    for (const k of e.work.initialKeys ?? []) this.queue.lookAgain(k, cluster);
  }

  /** Resolves when no key is waiting or in flight (delayed adds may still be pending). */
  idle(): Promise<void> {
    if (this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops taking work, aborts the requests of the reconciles in flight, and resolves when they have ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    const all = [...this.engaged.keys()];
    this.queue.shutDown();
    await Promise.all([...all.map((c) => this.disengage(c)), ...this.workers]);
  }

  private async work(): Promise<void> {
    const slowAfterMs = this.spec.slowAfterMs;
    for (;;) {
      const request = await this.queue.get();
      if (request === undefined) return;
      const finished = this.run(request);
      if (slowAfterMs === undefined) await finished;
      else await this.untilFinishedOrSlow(finished, slowAfterMs);
      // Reconciles that end without waiting on I/O would otherwise run back to back in one turn of the event loop.
      if (performance.now() - sliceStart > SLICE_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
  }

  /** One request, from its reconcile to the queue told it is done. */
  private async run(request: Request): Promise<void> {
    const e = this.engaged.get(request.cluster);
    if (e) {
      const p = this.process(e, request);
      e.inFlight.add(p);
      await p;
      e.inFlight.delete(p);
    }
    this.queue.done(request);
    // (length walks every cluster's line: asked only when someone waits for idle.)
    if (this.idleWaiters.length > 0 && this.queue.length === 0) for (const w of this.idleWaiters.splice(0)) w();
  }

  /** Resolves when the reconcile has finished, or when it has run `ms` (it goes on without its worker). */
  private async untilFinishedOrSlow(finished: Promise<void>, ms: number): Promise<void> {
    let letGo!: () => void;
    const slow = new Promise<true>((resolve) => {
      letGo = () => resolve(true);
    });
    const held = { since: this.queue.clock.now(), letGo };
    this.holding.add(held);
    this.watchHolding(ms);
    const wasSlow = await Promise.race([finished, slow]);
    this.holding.delete(held);
    if (wasSlow !== true) return;
    this.m?.slow.inc();
    void finished.then(() => this.m?.slow.dec());
  }

  /**
   * One look every quarter of `ms` while any reconcile holds a worker (none when idle), instead of a timer per
   * reconcile: a reconcile that has run `ms` is let go (between `ms` and 1.25 `ms` after it started).
   */
  private watchHolding(ms: number): void {
    if (this.holdingWatched) return;
    this.holdingWatched = true;
    void (async () => {
      while (this.holding.size > 0) {
        await this.queue.clock.sleep(ms / 4);
        const now = this.queue.clock.now();
        for (const h of this.holding) if (now - h.since >= ms) h.letGo();
      }
      this.holdingWatched = false;
    })();
  }

  /** Runs one reconcile and applies controller-runtime's result handling. */
  private async process(e: Engaged, { cluster, key }: Request): Promise<void> {
    const q = this.queue;
    const { work, log } = e;
    const start = q.clock.now();
    this.m?.active.inc();
    let outcome: ReconcileOutcome;
    let failure: unknown;
    let conflict = false;
    let told = true;
    try {
      const result = (await work.reconcile(key, e.stopping.signal)) ?? {};
      e.terminal.delete(key);
      const after = result.requeueAfterMs ?? (result.requeue ? undefined : work.resyncEveryMs);
      if (after !== undefined && after > 0) {
        q.forget(key, cluster);
        q.addAfter(key, after, cluster);
        outcome = 'requeue_after';
      } else if (result.requeue) {
        q.addRateLimited(key, cluster);
        outcome = 'requeue';
      } else {
        q.forget(key, cluster);
        outcome = 'success';
      }
    } catch (err) {
      failure = err;
      conflict = isConflictCause(err);
      const terminal = errorCause(err, TerminalError);
      if (e.stopping.signal.aborted) {
        log.info('reconcile ended: the controller is stopping', { key, error: apiErrorMessage(err) });
        outcome = 'error';
        told = false;
      } else if (errorCause(err, NotLeaderError)) {
        log.info('write refused: not the leader', { key });
        q.forget(key, cluster);
        outcome = 'error';
        told = false;
      } else if (terminal) {
        // Not forgotten: as controller-runtime, only a success forgets a key's failures (a key whose input flaps
        // between terminal and failing cannot reset its backoff).
        const { reason, pending, recheckAfterMs } = terminal.options;
        if (recheckAfterMs !== undefined && recheckAfterMs > 0) q.addAfter(key, recheckAfterMs, cluster);
        if (e.terminal.get(key) !== terminal.message)
          log.info('waiting', { key, ...(reason ? { reason } : {}), message: terminal.message });
        e.terminal.set(key, terminal.message);
        if (!pending) this.m?.errors.inc();
        outcome = pending ? 'requeue_after' : 'error';
      } else if (conflict) {
        log.info('conflict: the object changed since it was read; retrying with backoff', { key, retries: q.numRequeues(key, cluster) });
        q.addRateLimited(key, cluster);
        outcome = 'requeue';
      } else {
        this.m?.errors.inc();
        log.error('Reconciler error', { key, error: apiErrorMessage(err) });
        q.addRateLimited(key, cluster);
        outcome = 'error';
      }
    } finally {
      this.m?.time.observe((q.clock.now() - start) / 1000);
      this.m?.active.dec();
    }
    this.m?.reconciles[outcome].inc();
    if (told && this.engaged.get(cluster) === e) {
      work.onReconciled?.(key, failure);
      if (!errorCause(failure, TerminalError)?.options.pending) {
        work.degradedOnError?.(failure === undefined || conflict ? undefined : ((failure as Error)?.message ?? String(failure)));
      }
    }
  }
}
