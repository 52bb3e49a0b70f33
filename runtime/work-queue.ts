// A rate-limiting work queue with client-go semantics: a key waiting in the queue is there once however
// often it is added (dirty set); a key being processed is never handed out twice (processing set) and is
// queued again when done() if it was added meanwhile. addAfter/addRateLimited delay an add; the rate
// limiter (client-go's default) decides the delay; as client-go's delaying queue, a key waits once: a later
// addAfter of a key already waiting to be added sooner is dropped, a sooner one replaces it (one timer per
// key, however often a failing key is retried or resynced). `workqueue_*` metrics use client-go's names; adds are
// counted after de-duplication, in-flight gauges are computed on scrape (no timer while idle).
import { setMaxListeners } from 'node:events';
import type { Registry } from 'prom-client';
import type { GaugeFamily } from './metric-families.js';
import { realClock, type Clock } from './clock.js';
import { counter, gauge, histogram } from './metrics.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.js';

export const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export interface WorkQueueOptions {
  metrics?: Registry;
  rateLimiter?: RateLimiter;
  clock?: Clock;
}

// Queues reporting through each in-flight gauge, so the gauge can compute them when scraped.
const inFlightQueues = new WeakMap<GaugeFamily, Set<WorkQueue>>();

function inFlightGauge(registry: Registry, name: string, help: string, value: (q: WorkQueue, now: number) => number): Set<WorkQueue> {
  const g = gauge(registry, name, help, ['name', 'controller']);
  let set = inFlightQueues.get(g);
  if (!set) {
    const queues = new Set<WorkQueue>();
    set = queues;
    inFlightQueues.set(g, queues);
    g.collect = () => {
      for (const q of queues) g.set({ name: q.name, controller: q.name }, value(q, q.clock.now()));
    };
  }
  return set;
}

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Map<string, number>();
  private readonly addedAt = new Map<string, number>();
  private readonly waiters: ((key: string | undefined) => void)[] = [];
  private readonly delayed = new AbortController();
  /** Keys waiting for a delayed add: when (monotonic) and how to cancel that wait. */
  private readonly waiting = new Map<string, { at: number; cancel: AbortController }>();
  private readonly limiter: RateLimiter;
  /** Times the delays and the durations the metrics report (the same clock for both). */
  readonly clock: Clock;
  private shuttingDown = false;
  private readonly m;
  private readonly gaugeSets: Set<WorkQueue>[] = [];

  constructor(readonly name: string, options: WorkQueueOptions = {}) {
    this.clock = options.clock ?? realClock;
    setMaxListeners(0, this.delayed.signal);
    this.limiter = options.rateLimiter ?? defaultControllerRateLimiter(this.clock);
    const r = options.metrics;
    const l = { name, controller: name };
    this.m = r ? {
      depth: gauge(r, 'workqueue_depth', 'Current depth of workqueue', ['name', 'controller']).labels(l),
      adds: counter(r, 'workqueue_adds_total', 'Total number of adds handled by workqueue', ['name', 'controller']).labels(l),
      retries: counter(r, 'workqueue_retries_total', 'Total number of retries handled by workqueue', ['name', 'controller']).labels(l),
      queueDuration: histogram(r, 'workqueue_queue_duration_seconds', 'How long in seconds an item stays in workqueue before being requested', ['name', 'controller'], DURATION_BUCKETS).labels(l),
      workDuration: histogram(r, 'workqueue_work_duration_seconds', 'How long in seconds processing an item from workqueue takes', ['name', 'controller'], DURATION_BUCKETS).labels(l),
    } : undefined;
    if (r) {
      this.gaugeSets.push(
        inFlightGauge(r, 'workqueue_longest_running_processor_seconds', 'How many seconds has the longest running processor for workqueue been running',
          (q, now) => Math.max(0, ...[...q.processing.values()].map((s) => (now - s) / 1000))),
        inFlightGauge(r, 'workqueue_unfinished_work_seconds', 'How many seconds of work has been done that is in progress',
          (q, now) => [...q.processing.values()].reduce((a, s) => a + (now - s) / 1000, 0)),
      );
      for (const s of this.gaugeSets) s.add(this);
      this.m?.depth.set(0);
    }
  }

  /** Queue `key` unless it is already waiting; a key in flight is queued again when it is done. */
  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.m?.adds.inc();
    this.dirty.add(key);
    this.addedAt.set(key, this.clock.now());
    if (this.processing.has(key)) return;
    this.push(key);
  }

  /** add(key) after `delayMs` (at once when ≤ 0). */
  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const at = this.clock.now() + delayMs;
    const prior = this.waiting.get(key);
    if (prior && prior.at <= at) return;
    prior?.cancel.abort();
    const entry = { at, cancel: new AbortController() };
    this.waiting.set(key, entry);
    void this.clock.sleep(delayMs, entry.cancel.signal).then(() => {
      if (entry.cancel.signal.aborted) return;
      this.waiting.delete(key);
      if (!this.delayed.signal.aborted) this.add(key);
    });
  }

  /** add(key) after the rate limiter's delay for it. */
  addRateLimited(key: string): void {
    if (this.shuttingDown) return;
    this.m?.retries.inc();
    this.addAfter(key, this.limiter.when(key));
  }

  /** The key succeeded: reset its failures. */
  forget(key: string): void {
    this.limiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.limiter.numRequeues(key);
  }

  /** The next key to process (marked as processing), or undefined once shut down. */
  get(): Promise<string | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) return Promise.resolve(this.take(key));
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Processing of `key` ended; it is queued again if it was added meanwhile. */
  done(key: string): void {
    const start = this.processing.get(key);
    if (start !== undefined) this.m?.workDuration.observe((this.clock.now() - start) / 1000);
    this.processing.delete(key);
    if (this.dirty.has(key) && !this.shuttingDown) this.push(key);
  }

  /** Keys waiting or in flight. */
  get length(): number {
    let n = this.dirty.size;
    for (const k of this.processing.keys()) if (!this.dirty.has(k)) n++;
    return n;
  }

  get inFlight(): number {
    return this.processing.size;
  }

  shutDown(): void {
    this.shuttingDown = true;
    this.delayed.abort();
    for (const w of this.waiting.values()) w.cancel.abort();
    this.waiting.clear();
    this.queue.length = 0;
    for (const w of this.waiters.splice(0)) w(undefined);
    for (const s of this.gaugeSets) s.delete(this);
    this.m?.depth.set(0);
  }

  private push(key: string): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      waiter(this.take(key));
      return;
    }
    this.queue.push(key);
    this.m?.depth.inc();
  }

  private take(key: string): string {
    this.m?.depth.set(this.queue.length);
    this.dirty.delete(key);
    const now = this.clock.now();
    this.m?.queueDuration.observe((now - (this.addedAt.get(key) ?? now)) / 1000);
    this.addedAt.delete(key);
    this.processing.set(key, now);
    return key;
  }
}
