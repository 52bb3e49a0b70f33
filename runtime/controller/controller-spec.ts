// What a controller is told and tells back (controller-runtime's reconcile package and builder options): the
// reconcile and its result, the sources that wake it, what one cluster engages (its work), a controller's spec and
// options, and the error that retrying cannot mend. The Controller that runs them is controller.ts.
import type { Registry } from 'prom-client';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../log/logger.js';
import type { RateLimiter } from '../util/rate-limiter.js';

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

/**
 * What one cluster engages on a controller: its reconcile and the sources that wake it (multicluster-runtime engages a cluster's sources on
 * the one controller of a kind).
 */
export interface ClusterWork {
  reconcile: Reconciler;
  watches: ControllerWatch[];
  /** Keys to enqueue when the cluster is engaged. */
  initialKeys?: string[];
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
  /**
   * Told after every reconcile how it ended (`error` undefined: it succeeded); not for a reconcile ended by
   * stop() or disengage(), or refused by the leader fence. Hosted sessions build their status line and Events from it.
   */
  onReconciled?: (key: string, error: unknown) => void;
  /** The cluster's logger (default the controller's). */
  logger?: Logger;
  /**
   * Resolves when the caches its reconcile reads have listed (controller-runtime's WaitForSync): until then nothing of
   * the cluster is queued — its sources are listened to and its initial keys queued from then on.
   */
  synced?: Promise<unknown>;
}

/** How a controller runs, whatever its clusters engage: its name, its workers, whether it needs the leader. */
export interface ControllerRunning {
  name: string;
  /** Reconciles in flight at once, over every cluster (not counting those slowAfterMs has let go). */
  concurrency?: number;
  /**
   * A reconcile still running after this long gives its worker back and goes on beside the workers (counted in
   * featuregates_controller_slow_reconciles): clusters whose requests never answer cannot hold every worker while
   * others wait. What is in flight stays bounded by the keys engaged: a key in flight is never handed out again.
   * Default: a reconcile holds its worker to the end (controller-runtime's).
   */
  slowAfterMs?: number;
  /**
   * Started only while the process leads (controller-runtime's NeedLeaderElection; default true). Hosted mode's controllers
   * say false: every replica runs them, and a guest is engaged on them for its shard's tenure.
   */
  needLeaderElection?: boolean;
}

/** A single-cluster controller: how it runs and its one cluster's work. */
export interface ControllerSpec extends ClusterWork, ControllerRunning {}

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
   * A token bucket per cluster for the keys its watch events add (work-queue.ts): how often one cluster's changes may wake the controller.
   */
  eventsPerCluster?: { perSecond: number; burst: number };
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
