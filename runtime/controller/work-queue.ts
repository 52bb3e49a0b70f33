// A rate-limiting work queue with client-go semantics, whose requests name the cluster they are for
// (multicluster-runtime's mcreconcile.Request): one queue serves a controller over every cluster engaged on it.
//  - a request waiting in the queue is there once however often it is added (dirty set); one being processed is
//    never handed out twice (processing set) and is queued again when done() if it was added meanwhile;
//  - fair across clusters by construction: each cluster has its own line, and get() takes from the clusters in
//    turn (round robin), so a cluster with a thousand keys waiting delays another cluster's next key by one;
//  - addAfter/addRateLimited delay an add; a request waits once (a later addAfter of one already waiting to be added
//    sooner is dropped, a sooner one replaces it); every delay of every cluster shares one timer (the soonest);
//  - the rate limiter (client-go's default unless given) is told (cluster, key) apart, so backoff is per request;
//  - `eventsPerCluster`: a token bucket per cluster for adds that a watch event makes (addFromEvent): a cluster whose
//    objects keep changing is looked at that often, the rest wait in its line (its own retries and resyncs do not);
//  - dropCluster() forgets everything of a cluster (its line, delays, backoff and bucket): a cluster's line lives
//    from its first add until it is dropped;
//  - `workqueue_*` metrics use client-go's names; adds are counted after de-duplication, in-flight gauges are
//    computed on scrape (no timer while idle).
import { setMaxListeners } from 'node:events';
import type { Registry } from 'prom-client';
import type { GaugeFamily } from '../metrics/metric-families.js';
import { realClock, type Clock } from '../util/clock.js';
import { counter, gauge, histogram } from '../metrics/metrics.js';
import { BucketLimiter, defaultControllerRateLimiter, type RateLimiter } from '../util/rate-limiter.js';

export const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** One unit of work: a key of one cluster ('' for the single-cluster operator's one cluster). */
export interface Request {
  cluster: string;
  key: string;
}

export interface WorkQueueOptions {
  metrics?: Registry;
  rateLimiter?: RateLimiter;
  clock?: Clock;
  /** A token bucket per cluster for the adds watch events make (addFromEvent). */
  eventsPerCluster?: { perSecond: number; burst: number };
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

/** What the queue holds of one cluster. */
class ClusterLine {
  readonly ready: string[] = [];
  readonly dirty = new Set<string>();
  readonly processing = new Map<string, number>();
  readonly addedAt = new Map<string, number>();
  /** Keys waiting for a delayed add, and when (the queue's clock). */
  readonly waiting = new Map<string, number>();
  /** Keys the rate limiter counts failures of (forgotten with the cluster). */
  readonly backoff = new Set<string>();
  /** Keys whose add from an event waits for the cluster's bucket: their next event takes no token. */
  readonly eventWait = new Set<string>();
  inTurn = false;
  constructor(readonly cluster: string, readonly events: BucketLimiter | undefined) {}
}

interface Delayed { at: number; line: ClusterLine; key: string }

export class WorkQueue {
  private readonly lines = new Map<string, ClusterLine>();
  /** Clusters with keys ready, in the order they are served. */
  private turns: ClusterLine[] = [];
  private turnAt = 0;
  private readyCount = 0;
  private readonly waiters: ((r: Request | undefined) => void)[] = [];
  /** Every delayed add of every cluster, soonest first (a binary heap; replaced entries are skipped when due). */
  private readonly delays: Delayed[] = [];
  private timer: { at: number; cancel: AbortController } | undefined;
  private readonly limiter: RateLimiter;
  /** Times the delays and the durations the metrics report (the same clock for both). */
  readonly clock: Clock;
  private shuttingDown = false;
  private readonly m;
  private readonly gaugeSets: Set<WorkQueue>[] = [];

  constructor(readonly name: string, private readonly options: WorkQueueOptions = {}) {
    this.clock = options.clock ?? realClock;
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
          (q, now) => Math.max(0, ...q.starts().map((s) => (now - s) / 1000))),
        inFlightGauge(r, 'workqueue_unfinished_work_seconds', 'How many seconds of work has been done that is in progress',
          (q, now) => q.starts().reduce((a, s) => a + (now - s) / 1000, 0)),
      );
      for (const s of this.gaugeSets) s.add(this);
      this.m?.depth.set(0);
    }
  }

  /** Queue the key unless it is already waiting; a key in flight is queued again when it is done. */
  add(key: string, cluster = ''): void {
    if (this.shuttingDown) return;
    const line = this.line(cluster);
    if (line.dirty.has(key)) return;
    this.m?.adds.inc();
    line.dirty.add(key);
    line.addedAt.set(key, this.clock.now());
    if (line.processing.has(key)) return;
    this.push(line, key);
  }

  /** add() after `delayMs` (at once when ≤ 0). */
  addAfter(key: string, delayMs: number, cluster = ''): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) return this.add(key, cluster);
    const line = this.line(cluster);
    const at = this.clock.now() + delayMs;
    const prior = line.waiting.get(key);
    if (prior !== undefined && prior <= at) return;
    line.waiting.set(key, at);
    this.schedule({ at, line, key });
  }

  /** add() after the rate limiter's delay for this request. */
  addRateLimited(key: string, cluster = ''): void {
    if (this.shuttingDown) return;
    this.m?.retries.inc();
    const line = this.line(cluster);
    line.backoff.add(key);
    this.addAfter(key, this.limiter.when(id(cluster, key)), cluster);
  }

  /**
   * A watch event asks for the key: at once while the cluster's bucket (eventsPerCluster) has a token, else when it
   * has one — and events for a key already waiting for a token take none (a stream of changes cannot run a debt).
   */
  addFromEvent(key: string, cluster = ''): void {
    if (this.shuttingDown) return;
    const line = this.line(cluster);
    if (!line.events) return this.add(key, cluster);
    if (line.dirty.has(key) || line.eventWait.has(key)) return;
    const delay = line.events.when();
    if (delay <= 0) return this.add(key, cluster);
    line.eventWait.add(key);
    this.addAfter(key, delay, cluster);
  }

  /** The request succeeded: reset its failures. */
  forget(key: string, cluster = ''): void {
    this.limiter.forget(id(cluster, key));
    this.lines.get(cluster)?.backoff.delete(key);
  }

  numRequeues(key: string, cluster = ''): number {
    return this.limiter.numRequeues(id(cluster, key));
  }

  /** A failing key stays on its backoff (addRateLimited), any other is added now: "look again" without resetting a retry's wait. */
  lookAgain(key: string, cluster = ''): void {
    if (this.numRequeues(key, cluster) > 0) this.addRateLimited(key, cluster);
    else this.add(key, cluster);
  }

  /** Everything of the cluster is forgotten: its waiting keys, delays, backoff and bucket (keys in flight finish). */
  dropCluster(cluster: string): void {
    const line = this.lines.get(cluster);
    if (!line) return;
    this.lines.delete(cluster);
    this.readyCount -= line.ready.length;
    this.m?.depth.set(this.readyCount);
    for (const key of line.backoff) this.limiter.forget(id(cluster, key));
  }

  /** The next request to process (marked as processing), or undefined once shut down. */
  get(): Promise<Request | undefined> {
    const next = this.next();
    if (next) return Promise.resolve(next);
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Processing of the request ended; it is queued again if it was added meanwhile. */
  done({ cluster, key }: Request): void {
    const line = this.lines.get(cluster);
    const start = line?.processing.get(key);
    if (start !== undefined) this.m?.workDuration.observe((this.clock.now() - start) / 1000);
    if (!line) return;
    line.processing.delete(key);
    if (line.dirty.has(key) && !this.shuttingDown) this.push(line, key);
  }

  /** Requests waiting or in flight. */
  get length(): number {
    let n = 0;
    for (const cluster of this.lines.keys()) n += this.lengthOf(cluster);
    return n;
  }

  /** The cluster's requests waiting or in flight. */
  lengthOf(cluster: string): number {
    const line = this.lines.get(cluster);
    if (!line) return 0;
    let n = line.dirty.size;
    for (const k of line.processing.keys()) if (!line.dirty.has(k)) n++;
    return n;
  }

  get inFlight(): number {
    let n = 0;
    for (const line of this.lines.values()) n += line.processing.size;
    return n;
  }

  /** Clusters the queue holds anything of (waiting, delayed, in flight or backing off). */
  get clusters(): number {
    return this.lines.size;
  }

  shutDown(): void {
    this.shuttingDown = true;
    this.timer?.cancel.abort();
    this.timer = undefined;
    this.delays.length = 0;
    for (const line of this.lines.values()) { line.ready.length = 0; line.waiting.clear(); }
    this.turns = [];
    this.turnAt = 0;
    this.readyCount = 0;
    for (const w of this.waiters.splice(0)) w(undefined);
    for (const s of this.gaugeSets) s.delete(this);
    this.m?.depth.set(0);
  }

  private line(cluster: string): ClusterLine {
    let line = this.lines.get(cluster);
    if (!line) {
      const e = this.options.eventsPerCluster;
      line = new ClusterLine(cluster, e ? new BucketLimiter(e.perSecond, e.burst, this.clock) : undefined);
      this.lines.set(cluster, line);
    }
    return line;
  }

  private starts(): number[] {
    const out: number[] = [];
    for (const line of this.lines.values()) out.push(...line.processing.values());
    return out;
  }

  private push(line: ClusterLine, key: string): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      waiter(this.take(line, key));
      return;
    }
    line.ready.push(key);
    this.readyCount++;
    this.m?.depth.set(this.readyCount);
    if (!line.inTurn) {
      line.inTurn = true;
      this.turns.push(line);
    }
  }

  /** The first key of the next cluster in turn. */
  private next(): Request | undefined {
    while (this.turnAt < this.turns.length) {
      const line = this.turns[this.turnAt++]!;
      line.inTurn = false;
      if (this.lines.get(line.cluster) !== line || line.ready.length === 0) continue;
      const key = line.ready.shift()!;
      this.readyCount--;
      this.m?.depth.set(this.readyCount);
      if (line.ready.length > 0) {
        line.inTurn = true;
        this.turns.push(line);
      }
      this.compactTurns();
      return this.take(line, key);
    }
    this.turns = [];
    this.turnAt = 0;
    return undefined;
  }

  private compactTurns(): void {
    if (this.turnAt > 1024 && this.turnAt * 2 > this.turns.length) {
      this.turns = this.turns.slice(this.turnAt);
      this.turnAt = 0;
    }
  }

  private take(line: ClusterLine, key: string): Request {
    line.dirty.delete(key);
    const now = this.clock.now();
    this.m?.queueDuration.observe((now - (line.addedAt.get(key) ?? now)) / 1000);
    line.addedAt.delete(key);
    line.processing.set(key, now);
    return { cluster: line.cluster, key };
  }

  // The delays: one heap, one timer for the soonest.

  private schedule(d: Delayed): void {
    const h = this.delays;
    h.push(d);
    for (let i = h.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (h[parent]!.at <= h[i]!.at) break;
      [h[parent], h[i]] = [h[i]!, h[parent]!];
      i = parent;
    }
    this.arm();
  }

  private popDelay(): Delayed | undefined {
    const h = this.delays;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && h[l]!.at < h[m]!.at) m = l;
        if (r < h.length && h[r]!.at < h[m]!.at) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i]!, h[m]!];
        i = m;
      }
    }
    return top;
  }

  private arm(): void {
    const soonest = this.delays[0];
    if (!soonest || this.shuttingDown) return;
    if (this.timer && this.timer.at <= soonest.at) return;
    this.timer?.cancel.abort();
    const timer = { at: soonest.at, cancel: new AbortController() };
    setMaxListeners(0, timer.cancel.signal);
    this.timer = timer;
    void this.clock.sleep(soonest.at - this.clock.now(), timer.cancel.signal).then(() => {
      if (timer.cancel.signal.aborted) return;
      this.timer = undefined;
      this.fire();
    });
  }

  /** Every delay that is due is added (a delay replaced by a sooner one, or of a dropped cluster, is skipped). */
  private fire(): void {
    const now = this.clock.now();
    while (this.delays.length > 0 && this.delays[0]!.at <= now) {
      const { at, line, key } = this.popDelay()!;
      if (this.lines.get(line.cluster) !== line || line.waiting.get(key) !== at) continue;
      line.waiting.delete(key);
      line.eventWait.delete(key);
      this.add(key, line.cluster);
    }
    this.arm();
  }
}

function id(cluster: string, key: string): string {
  return cluster === '' ? key : `${cluster}\u0000${key}`;
}
