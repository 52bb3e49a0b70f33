// A keyed work queue with client-go semantics and p-queue as the executor: a key is queued once however
// often it is added, never processed twice at the same time, and processed again if re-added while in
// flight. Errors requeue the key with per-key exponential backoff (5 ms → 1000 s); success forgets it.
// Metrics use controller-runtime / workqueue names.
import PQueue from 'p-queue';
import type { Registry } from 'prom-client';
import { counter, gauge, histogram } from './metrics.js';
import { silentLogger, type Logger } from './logger.js';

export interface ReconcileResult {
  /** Process the key again after this delay (a periodic resync, say). */
  requeueAfterMs?: number;
}

export type Reconciler = (key: string) => Promise<ReconcileResult | void>;

export interface WorkQueueOptions {
  concurrency?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  metrics?: Registry;
  logger?: Logger;
}

const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export class WorkQueue {
  private readonly executor: PQueue;
  private readonly dirty = new Set<string>();
  private readonly processing = new Map<string, number>();
  private readonly addedAt = new Map<string, number>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly log: Logger;
  private shuttingDown = false;
  private readonly m;
  private readonly ticker: NodeJS.Timeout;

  constructor(readonly name: string, private readonly reconcile: Reconciler, private readonly options: WorkQueueOptions = {}) {
    this.executor = new PQueue({ concurrency: options.concurrency ?? 1 });
    this.log = (options.logger ?? silentLogger).with({ controller: name });
    const r = options.metrics;
    const l = { name, controller: name };
    this.m = r ? {
      depth: gauge(r, 'workqueue_depth', 'Current depth of workqueue', ['name', 'controller']).labels(l),
      adds: counter(r, 'workqueue_adds_total', 'Total number of adds handled by workqueue', ['name', 'controller']).labels(l),
      retries: counter(r, 'workqueue_retries_total', 'Total number of retries handled by workqueue', ['name', 'controller']).labels(l),
      queueDuration: histogram(r, 'workqueue_queue_duration_seconds', 'How long in seconds an item stays in workqueue before being requested', ['name', 'controller'], DURATION_BUCKETS).labels(l),
      workDuration: histogram(r, 'workqueue_work_duration_seconds', 'How long in seconds processing an item from workqueue takes', ['name', 'controller'], DURATION_BUCKETS).labels(l),
      longest: gauge(r, 'workqueue_longest_running_processor_seconds', 'How many seconds has the longest running processor for workqueue been running', ['name', 'controller']).labels(l),
      unfinished: gauge(r, 'workqueue_unfinished_work_seconds', 'How many seconds of work has been done that is in progress', ['name', 'controller']).labels(l),
      reconciles: counter(r, 'controller_runtime_reconcile_total', 'Total number of reconciliations per controller', ['controller', 'result']),
      errors: counter(r, 'controller_runtime_reconcile_errors_total', 'Total number of reconciliation errors per controller', ['controller']).labels({ controller: name }),
      time: histogram(r, 'controller_runtime_reconcile_time_seconds', 'Length of time per reconciliation per controller', ['controller'], DURATION_BUCKETS).labels({ controller: name }),
      workers: gauge(r, 'controller_runtime_max_concurrent_reconciles', 'Maximum number of concurrent reconciles per controller', ['controller']).labels({ controller: name }),
      active: gauge(r, 'controller_runtime_active_workers', 'Number of currently used workers per controller', ['controller']).labels({ controller: name }),
    } : undefined;
    if (this.m) {
      for (const result of ['success', 'error', 'requeue', 'requeue_after']) this.m.reconciles.inc({ controller: name, result }, 0);
      this.m.errors.inc(0);
      this.m.workers.set(options.concurrency ?? 1);
    }
    this.ticker = setInterval(() => this.updateInFlightMetrics(), 1000);
    this.ticker.unref();
  }

  /** Queue `key` unless it is already queued; a key in flight is processed again when it finishes. */
  add(key: string): void {
    if (this.shuttingDown) return;
    this.m?.adds.inc();
    if (this.dirty.has(key)) return;
    this.dirty.add(key);
    this.addedAt.set(key, Date.now());
    if (!this.processing.has(key)) this.schedule(key);
  }

  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const t = setTimeout(() => { this.timers.delete(t); this.add(key); }, delayMs);
    t.unref();
    this.timers.add(t);
  }

  /** Requeue after the key's next backoff delay: base × 2^failures, capped. */
  addRateLimited(key: string): void {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    const delay = Math.min(this.options.maxDelayMs ?? 1_000_000, (this.options.baseDelayMs ?? 5) * 2 ** n);
    this.m?.retries.inc();
    this.addAfter(key, delay);
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  /** Keys queued or in flight. */
  get length(): number {
    return new Set([...this.dirty, ...this.processing.keys()]).size;
  }

  /** Resolves when nothing is queued or running (timers for later adds may still be pending). */
  async idle(): Promise<void> {
    await this.executor.onIdle();
  }

  async shutDown(): Promise<void> {
    this.shuttingDown = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    clearInterval(this.ticker);
    this.executor.clear();
    await this.executor.onIdle();
  }

  private schedule(key: string): void {
    this.m?.depth.inc();
    void this.executor.add(() => this.process(key));
  }

  private async process(key: string): Promise<void> {
    this.m?.depth.dec();
    if (this.shuttingDown || !this.dirty.has(key)) return;
    this.dirty.delete(key);
    const start = Date.now();
    this.m?.queueDuration.observe((start - (this.addedAt.get(key) ?? start)) / 1000);
    this.processing.set(key, start);
    this.m?.active.inc();
    try {
      const result = await this.reconcile(key);
      this.forget(key);
      if (result?.requeueAfterMs !== undefined) {
        this.m?.reconciles.inc({ controller: this.name, result: 'requeue_after' });
        this.addAfter(key, result.requeueAfterMs);
      } else {
        this.m?.reconciles.inc({ controller: this.name, result: 'success' });
      }
    } catch (e) {
      this.m?.reconciles.inc({ controller: this.name, result: 'error' });
      this.m?.errors.inc();
      this.log.error('reconcile failed', { key, error: (e as Error).message });
      this.addRateLimited(key);
    } finally {
      const secs = (Date.now() - start) / 1000;
      this.m?.workDuration.observe(secs);
      this.m?.time.observe(secs);
      this.m?.active.dec();
      this.processing.delete(key);
      if (this.dirty.has(key) && !this.shuttingDown) this.schedule(key);
    }
  }

  private updateInFlightMetrics(): void {
    if (!this.m) return;
    const now = Date.now();
    const ages = [...this.processing.values()].map((s) => (now - s) / 1000);
    this.m.longest.set(ages.length ? Math.max(...ages) : 0);
    this.m.unfinished.set(ages.reduce((a, b) => a + b, 0));
  }
}
