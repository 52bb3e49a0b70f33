// A Controller runs one reconciler over a rate-limited work queue with controller-runtime's semantics:
//  - it declares the watches that trigger it (a source of object names, mapped to keys); the manager
//    only starts it;
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
//    the process's.
// Metrics: controller_runtime_reconcile_total{result}, _errors_total, _time_seconds, _active_workers,
// _max_concurrent_reconciles, plus the queue's workqueue_*.
import type { Registry } from 'prom-client';
import { NotLeaderError, apiErrorMessage, errorCause, isConflictCause } from './api-errors.js';
import type { Clock } from './clock.js';
import { silentLogger, type Logger } from './logger.js';
import { counter, gauge, histogram } from './metrics.js';
import type { RateLimiter } from './rate-limiter.js';
import { DURATION_BUCKETS, WorkQueue } from './work-queue.js';

export interface ReconcileResult {
  /** Process the key again after this delay (a periodic resync, say). 0 or absent: no timed requeue. */
  requeueAfterMs?: number;
  /** Process the key again after the rate limiter's delay. */
  requeue?: boolean;
}

/** `signal` is aborted when the controller stops: pass it to requests that should not outlive it. */
export type Reconciler = (key: string, signal: AbortSignal) => Promise<ReconcileResult | void>;

/** Something that reports the names of objects that changed (a Reflector, a condition set). */
export interface WatchSource {
  addListener(fn: (name: string) => void): () => void;
}

export interface ControllerWatch {
  source: WatchSource;
  /** The keys a change of `name` enqueues (default: the name itself). */
  keys?: (name: string) => string[];
}

export interface ControllerSpec {
  name: string;
  reconcile: Reconciler;
  watches: ControllerWatch[];
  /** Keys to enqueue when the controller starts. */
  initialKeys?: string[];
  concurrency?: number;
  /**
   * Look at a key again this long after a reconcile of it that asked for nothing itself (library-go's
   * ResyncEvery): a net under the watches, declared once instead of returned from every branch.
   */
  resyncEveryMs?: number;
  /**
   * Told how each reconcile ended, as the controller's Degraded condition wants it (library-go's
   * WithSyncDegradedOnError): the error's message, or undefined after a success or a conflict (someone wrote
   * first; the retry will tell). Not told for a reconcile that stop() ended or the leader fence refused, nor for
   * a TerminalError that is `pending` (nothing has failed, nothing has succeeded).
   */
  degradedOnError?: (message: string | undefined) => void;
}

/**
 * The spec of a controller of one object (library-go's factory for a singleton: every watched change, and the
 * start, enqueue its one key).
 */
export function singleKeyController(spec: Omit<ControllerSpec, 'watches' | 'initialKeys'> & { key: string; sources: WatchSource[] }): ControllerSpec {
  const { key, sources, ...rest } = spec;
  const toKey = () => [key];
  return { ...rest, watches: sources.map((source) => ({ source, keys: toKey })), initialKeys: [key] };
}

export interface ControllerOptions {
  metrics?: Registry;
  logger?: Logger;
  clock?: Clock;
  rateLimiter?: RateLimiter;
  /**
   * Told after every reconcile how it ended (`error` undefined: it succeeded); not for a reconcile ended by
   * stop() or refused by the leader fence. Hosted sessions build their status line and Events from it.
   */
  onReconciled?: (key: string, error: unknown) => void;
}

export interface TerminalErrorOptions {
  /** A short CamelCase cause (hosted mode's failure reasons). */
  reason?: string;
  /** Nothing has failed: a first read is not answered yet (reported, never as a Warning). */
  pending?: boolean;
  /** Look again after this long even when no watch says anything changed (a net under the watches). */
  recheckAfterMs?: number;
}

/**
 * An error that retrying cannot mend (controller-runtime's TerminalError): bad or missing input, a peer that
 * does not answer and says so through a watch, a first read not answered yet. The key is not requeued with
 * backoff; what it waits on wakes it.
 */
export class TerminalError extends Error {
  override name = 'TerminalError';
  constructor(message: string, readonly options: TerminalErrorOptions = {}) {
    super(message);
  }
}

export type ReconcileOutcome = 'success' | 'error' | 'requeue' | 'requeue_after';
const OUTCOMES: readonly ReconcileOutcome[] = ['success', 'error', 'requeue', 'requeue_after'];

export class Controller {
  readonly queue: WorkQueue;
  private readonly stopping = new AbortController();
  private readonly log: Logger;
  private readonly unsubscribe: (() => void)[] = [];
  private workers: Promise<void>[] = [];
  private started = false;
  private readonly m;
  private readonly idleWaiters: (() => void)[] = [];
  /** The last TerminalError message per key (logged when it changes). */
  private readonly terminal = new Map<string, string>();
  private readonly onReconciled: ((key: string, error: unknown) => void) | undefined;

  constructor(readonly spec: ControllerSpec, options: ControllerOptions = {}) {
    this.onReconciled = options.onReconciled;
    this.queue = new WorkQueue(spec.name, {
      ...(options.metrics ? { metrics: options.metrics } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.rateLimiter ? { rateLimiter: options.rateLimiter } : {}),
    });
    this.log = (options.logger ?? silentLogger).with({ controller: spec.name });
    const r = options.metrics;
    const name = spec.name;
    const reconciles = r && counter(r, 'controller_runtime_reconcile_total', 'Total number of reconciliations per controller', ['controller', 'result']);
    this.m = r && reconciles ? {
      reconciles: Object.fromEntries(OUTCOMES.map((result) => [result, reconciles.labels({ controller: name, result })])) as Record<ReconcileOutcome, { inc(by?: number): void }>,
      errors: counter(r, 'controller_runtime_reconcile_errors_total', 'Total number of reconciliation errors per controller', ['controller']).labels({ controller: name }),
      time: histogram(r, 'controller_runtime_reconcile_time_seconds', 'Length of time per reconciliation per controller', ['controller'], DURATION_BUCKETS).labels({ controller: name }),
      workers: gauge(r, 'controller_runtime_max_concurrent_reconciles', 'Maximum number of concurrent reconciles per controller', ['controller']).labels({ controller: name }),
      active: gauge(r, 'controller_runtime_active_workers', 'Number of currently used workers per controller', ['controller']).labels({ controller: name }),
    } : undefined;
    if (this.m) {
      for (const result of OUTCOMES) this.m.reconciles[result].inc(0);
      this.m.errors.inc(0);
      this.m.workers.set(spec.concurrency ?? 1);
    }
  }

  get name(): string {
    return this.spec.name;
  }

  /** Subscribes to the watches, enqueues the initial keys and starts the workers. */
  start(): void {
    if (this.started) return;
    this.started = true;
    for (const w of this.spec.watches) {
      this.unsubscribe.push(w.source.addListener((n) => { for (const k of w.keys ? w.keys(n) : [n]) this.queue.add(k); }));
    }
    for (const k of this.spec.initialKeys ?? []) this.queue.add(k);
    for (let i = 0; i < (this.spec.concurrency ?? 1); i++) this.workers.push(this.work());
  }

  enqueue(key: string): void {
    this.queue.add(key);
  }

  /** Resolves when no key is waiting or in flight (delayed adds may still be pending). */
  idle(): Promise<void> {
    if (this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops taking work, aborts the requests of the reconciles in flight, and resolves when they have ended. */
  async stop(): Promise<void> {
    for (const u of this.unsubscribe.splice(0)) u();
    this.queue.shutDown();
    this.stopping.abort(new Error(`controller ${this.spec.name} stopped`));
    await Promise.all(this.workers);
  }

  private async work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      await this.process(key);
      this.queue.done(key);
      if (this.queue.length === 0) for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  /** Runs one reconcile and applies controller-runtime's result handling. */
  private async process(key: string): Promise<ReconcileOutcome> {
    const start = this.queue.clock.now();
    this.m?.active.inc();
    let outcome: ReconcileOutcome;
    let failure: unknown;
    let conflict = false;
    let told = true;
    try {
      const result = (await this.spec.reconcile(key, this.stopping.signal)) ?? {};
      this.terminal.delete(key);
      const after = result.requeueAfterMs ?? (result.requeue ? undefined : this.spec.resyncEveryMs);
      if (after !== undefined && after > 0) {
        this.queue.forget(key);
        this.queue.addAfter(key, after);
        outcome = 'requeue_after';
      } else if (result.requeue) {
        this.queue.addRateLimited(key);
        outcome = 'requeue';
      } else {
        this.queue.forget(key);
        outcome = 'success';
      }
    } catch (e) {
      failure = e;
      conflict = isConflictCause(e);
      const terminal = errorCause(e, TerminalError);
      if (this.stopping.signal.aborted) {
        this.log.info('reconcile ended: the controller is stopping', { key, error: apiErrorMessage(e) });
        outcome = 'error';
        told = false;
      } else if (errorCause(e, NotLeaderError)) {
        this.log.info('write refused: not the leader', { key });
        this.queue.forget(key);
        outcome = 'error';
        told = false;
      } else if (terminal) {
        // Not forgotten: as controller-runtime, only a success forgets a key's failures (a key whose input flaps
        // between terminal and failing cannot reset its backoff).
        const { reason, pending, recheckAfterMs } = terminal.options;
        if (recheckAfterMs !== undefined && recheckAfterMs > 0) this.queue.addAfter(key, recheckAfterMs);
        if (this.terminal.get(key) !== terminal.message) this.log.info('waiting', { key, ...(reason ? { reason } : {}), message: terminal.message });
        this.terminal.set(key, terminal.message);
        if (!pending) this.m?.errors.inc();
        outcome = pending ? 'requeue_after' : 'error';
      } else if (conflict) {
        this.log.info('conflict: the object changed since it was read; retrying with backoff', { key, retries: this.queue.numRequeues(key) });
        this.queue.addRateLimited(key);
        outcome = 'requeue';
      } else {
        this.m?.errors.inc();
        this.log.error('Reconciler error', { key, error: apiErrorMessage(e) });
        this.queue.addRateLimited(key);
        outcome = 'error';
      }
    } finally {
      this.m?.time.observe((this.queue.clock.now() - start) / 1000);
      this.m?.active.dec();
    }
    this.m?.reconciles[outcome].inc();
    if (told) {
      this.onReconciled?.(key, failure);
      if (!errorCause(failure, TerminalError)?.options.pending) {
        this.spec.degradedOnError?.(failure === undefined || conflict ? undefined : (failure as Error)?.message ?? String(failure));
      }
    }
    return outcome;
  }
}
