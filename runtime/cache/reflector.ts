// A reflector: list + watch of one resource (optionally one named object) into an in-memory store,
// after client-go's reflector, with the recovery choices this project needs (docs/reliability.md):
//  - it never stops for good: any failure restarts list + watch after a jittered exponential backoff
//    (800 ms doubling, capped at 1.6 s, each delay drawn from [d/2, d] — client-go caps at 30 s, which is
//    what let recovery after an API-server restart take 20–30 s); the backoff starts over only when a watch
//    has run its course — lived HEALTHY_WATCH_MS, not ended by `maxEventRate` or a foreign object (not at a
//    list: a server that answers lists and refuses or never answers watches would be relisted at the first
//    step forever; nor at a watch's acceptance: a server that accepts each watch and ends it at once would
//    be watched again at the first step forever), so healthy running never leaves a grown delay behind. The cost of the
//    short cap: while the API server is down each reflector tries about once every 1.2 s (a refused
//    connection is cheap; the operator runs 3 reflectors, an SDK accessor 2);
//  - a relist reports every object to the listeners (client-go's Replace delivers an update for each),
//    so work that failed during an outage is retried at once when the API server is back;
//  - watches are bounded and resumed from the last resourceVersion: the server ends each after 5–10 minutes,
//    client-go's range, over either protocol. A silently dropped path is the connection's to notice — HTTP/2's
//    pings (http2-session.ts) within 45 s; on HTTP/1.1 (a server without h2, DISABLE_HTTP2, hosted guests) the
//    pooled sockets' TCP keep-alive, which Node sets to 30 s idle then ten probes a second apart, within 40 s. A
//    server or middlebox that stops sending is the inactivity timer's: on HTTP/1.1, where no ping asks the other
//    end, 150 s without a byte (kube-apiserver v1.36.3's watch cache sent a watch its first bookmark ~120 s after
//    it started, then one a minute), on HTTP/2 the watch's timeout + 15 s. "410 Gone" relists at once; a periodic relist (10 min) is the
//    safety
//    net;
//  - every list and the start of every watch are bounded by the request timeout;
//  - every answer is checked against the question (api-types/object-identity.ts): a listed or watched object of
//    another kind, name or namespace than the one asked for, or without its identity fields, fails the list or
//    watch as a decode error of the whole answer would — it is never stored and no listener hears of it — so the
//    store holds at most what was asked for (with `name`: one object per namespace, one in all for
//    cluster-scoped resources). A watch event of an unknown type fails the watch too;
//  - the bounds a server could reset by reconnecting live as long as the reflector: the `maxEventRate` bucket
//    is the reflector's, not one watch's, and a watch that ends early never starts the backoff over.
// Its phases are named as kube-rs's watcher names them (`phase()`): Empty (nothing listed, or a list is due
// again) → InitPage (a list, or watchList's initial events, in flight) → InitListed (the store is filled, no
// watch yet) → Watching (a watch accepted); any failure returns it to Empty or InitListed. All its timing — the
// backoff waits, the inactivity timer, the relist interval — runs on the Clock it is given (tests: a fake one).
// `synced` resolves after the first successful list. Objects are keyed as client-go's MetaNamespaceKeyFunc:
// `namespace/name` for namespaced objects, `name` for cluster-scoped ones.
// With `watchList` it lists by watching, as client-go's WatchList mode: a watch with sendInitialEvents=true delivers every
// object, then a bookmark marked k8s.io/initial-events-end, and streams on — one request, authorized as a
// `watch` (so a cluster-wide watch of one Secret name in every namespace needs `watch` on that name only).
import type { AskedFor } from '../../api-types/object-identity.js';
import { Backoff } from '../util/backoff.js';
import { BucketLimiter } from '../util/rate-limiter.js';
import { realClock, type Clock } from '../util/clock.js';
import { apiErrorMessage, isGone, statusCode } from '../rest/api-errors.js';
import { silentLogger, type Logger } from '../log/logger.js';
import type { ListerWatcher } from '../rest/resource-client.js';
import { HEALTHY_WATCH_MS, UNPINGED_SILENCE_MS, WATCH_SECONDS, type ListenerOptions, type ReflectorListener, type ReflectorOptions, type ReflectorPhase } from './reflector-options.js';
import type { WatchHandle } from '../rest/watch-stream.js';
import {
  ForeignObjectError, WatchInactive, WatchTooFast, askedFor, objectKey, readWatchEvent, refuseForeign,
  type Named, type WatchEventRules, type WatchStep,
} from './watch-event.js';

export class Reflector<T extends Named> {
  private readonly store = new Map<string, T>();
  private readonly listeners = new Map<ReflectorListener, ListenerOptions>();
  private readonly log: Logger;
  private readonly backoff: Backoff;
  private stopped = true;
  private running: Promise<void> | undefined;
  private abortWatch: (() => void) | undefined;
  /** Ends the backoff wait in progress (stop(), retryNow()). */
  private wake: AbortController | undefined;
  private readonly clock: Clock;
  private phaseNow: ReflectorPhase = 'Empty';
  /** Aborted by stop(): ends a list in flight at once. */
  private stopping: AbortController | undefined;
  private lastResourceVersion = '';
  private lastListAt = 0;
  private lastErrorText: string | undefined;
  /** The maxEventRate bucket: the reflector's own, so a server that ends each watch early does not refill it. */
  private readonly changes: BucketLimiter | undefined;
  /** What every list and watch asked for: an answer is checked against it. */
  private readonly asked: AskedFor;
  private readonly askedName: string;
  private resolveSynced!: () => void;
  private syncedFlag = false;
  /** Resolves once the first list has filled the store. */
  readonly synced: Promise<void>;

  constructor(private readonly client: ListerWatcher<T>, private readonly options: ReflectorOptions = {}) {
    this.log = (options.logger ?? silentLogger).with({
      reflector: client.resource.plural,
      ...(options.name ? { name: options.name } : {}),
    });
    this.backoff = new Backoff(options.backoffInitialMs ?? 800, options.backoffMaxMs ?? 1_600);
    this.clock = options.clock ?? realClock;
    this.synced = new Promise((resolve) => { this.resolveSynced = resolve; });
    const bound = options.maxEventRate;
    this.changes = bound ? new BucketLimiter(bound.perSecond, bound.burst, this.clock) : undefined;
    this.asked = askedFor(client.resource, client.namespace, options.name);
    this.askedName = options.name ? `${client.resource.plural}/${options.name}` : client.resource.plural;
  }

  /** Throws ForeignObjectError when `raw` is not an object this reflector asked for. */
  private checkAnswer(raw: unknown, where: string): void {
    refuseForeign(raw, this.asked, `the ${where} of ${this.askedName}`);
  }

  hasSynced(): boolean {
    return this.syncedFlag;
  }

  /** What it is doing now (kube-rs watcher's states). */
  phase(): ReflectorPhase {
    return this.phaseNow;
  }

  /** The last list/watch failure, until the next successful list (for status lines). */
  lastError(): string | undefined {
    return this.lastErrorText;
  }

  get(name: string): T | undefined {
    return this.store.get(name);
  }

  list(): T[] {
    return [...this.store.values()];
  }

  /**
   * Called with the object name after every change to the store (add, update, delete) and, unless
   * `changesOnly`, for every object on a relist.
   */
  addListener(fn: ReflectorListener, options: ListenerOptions = {}): () => void {
    this.listeners.set(fn, options);
    return () => this.listeners.delete(fn);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.stopping = new AbortController();
    this.running = this.loop();
  }

  /** Cuts a backoff wait short (something says the server is worth another try at once). */
  retryNow(): void {
    if (this.stopped || !this.wake) return;
    this.backoff.reset();
    this.wake.abort();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping?.abort(new Error('reflector stopped'));
    this.abortWatch?.();
    this.wake?.abort();
    await this.running;
  }

  private emit(name: string, changed = true): void {
    for (const [fn, o] of this.listeners) {
      if (!changed && o.changesOnly) continue;
      try {
        fn(name);
      } catch (e) {
        this.log.error('reflector listener failed', { error: e });
      }
    }
  }

  /**
   * A listing succeeded: a failure, if there was one, is over. The backoff starts over only when a watch is
   * accepted: a server that answers lists and refuses watches is retried at a growing pace, as client-go's is.
   */
  private listed(): void {
    const wasFailing = this.lastErrorText !== undefined;
    this.lastErrorText = undefined;
    if (wasFailing) this.options.onRecovered?.();
  }

  private async sleep(ms: number): Promise<void> {
    const wake = new AbortController();
    this.wake = wake;
    await this.clock.sleep(ms, wake.signal);
    if (this.wake === wake) this.wake = undefined;
  }

  private fieldSelector(): string | undefined {
    return this.options.name ? `metadata.name=${this.options.name}` : undefined;
  }

  private async relist(): Promise<void> {
    this.phaseNow = 'InitPage';
    const { items, resourceVersion } = await this.client.list(this.fieldSelector(), this.options.labelSelector, this.stopping?.signal);
    if (this.stopped) return;
    for (const item of items) this.checkAnswer(item, 'list');
    this.replace(items, resourceVersion);
  }

  /** The store becomes `items` (a full listing at `resourceVersion`); every object is reported, saying whether it changed. */
  private replace(items: readonly T[], resourceVersion: string): void {
    const seen = new Set<string>();
    const names: [string, boolean][] = [];
    for (const item of items) {
      const name = objectKey(item);
      seen.add(name);
      names.push([
        name,
        this.store.get(name)?.metadata.resourceVersion !== item.metadata.resourceVersion || item.metadata.resourceVersion === undefined,
      ]);
      this.store.set(name, item);
    }
    for (const name of [...this.store.keys()]) {
      if (!seen.has(name)) {
        this.store.delete(name);
        names.push([name, true]);
      }
    }
    this.lastResourceVersion = resourceVersion;
    this.lastListAt = this.clock.now();
    this.phaseNow = 'InitListed';
    if (!this.syncedFlag) {
      this.syncedFlag = true;
      this.resolveSynced();
    }
    for (const [name, changed] of names) this.emit(name, changed);
  }

  private async loop(): Promise<void> {
    let needList = true;
    let failures = 0;
    while (!this.stopped) {
      try {
        if (needList && this.options.watchList) {
          // Listed by the watch itself (its initial events); a watch that ends before they are all in fails below.
          this.phaseNow = 'InitPage';
          const end = await this.watchOnce(true);
          needList = end === 'unlisted';
          if (needList) this.phaseNow = 'Empty';
          if (end !== 'ran' && !this.stopped) await this.sleep(this.backoff.next());
          continue;
        }
        if (needList) {
          await this.relist();
          needList = false;
          this.listed();
          if (failures > 0) this.log.info('list/watch recovered', { after: failures });
          failures = 0;
        }
        const end = await this.watchOnce();
        if (end !== 'ran' && !this.stopped) await this.sleep(this.backoff.next()); // ended early: do not spin
      } catch (e) {
        if (this.stopped) break;
        needList = true;
        this.phaseNow = 'Empty';
        if (e instanceof WatchInactive) {
          this.log.warn('watch went silent, relisting', { error: e.message });
          continue;
        }
        if (isGone(e)) {
          this.log.info('resource version too old, relisting');
          continue;
        }
        failures++;
        const wasHealthy = this.lastErrorText === undefined;
        this.lastErrorText = apiErrorMessage(e);
        if (wasHealthy) this.options.onFailing?.(this.lastErrorText);
        const delay = this.backoff.next();
        // The first failure and every 10th after it are warnings; the rest would only repeat them.
        const fields = { error: apiErrorMessage(e), code: statusCode(e), retryInMs: Math.round(delay), failures };
        if (failures % 10 === 1) this.log.warn('list/watch failed, retrying', fields);
        else this.log.debug('list/watch failed, retrying', fields);
        await this.sleep(delay);
        continue;
      }
      if (this.phaseNow === 'Watching') this.phaseNow = 'InitListed'; // the watch ended; the store stays
      const interval = this.options.relistIntervalMs ?? 10 * 60_000;
      if (this.clock.now() - this.lastListAt > interval * (1 + Math.random() * 0.1)) {
        needList = true;
        this.phaseNow = 'Empty';
      }
    }
  }

  /** How a watch event is read: against what was asked, decoded, and (outside an initial listing) at most at maxEventRate. */
  private watchEventRules(listing: () => boolean): WatchEventRules<T> {
    const bound = this.options.maxEventRate;
    const changes = this.changes;
    return {
      plural: this.client.resource.plural,
      checkAnswer: (raw) => this.checkAnswer(raw, 'watch'),
      decode: (raw) => this.client.resource.decode(raw),
      tooFast: (name) => (changes && !listing() && changes.when() > 0
        ? new WatchTooFast(`${this.client.resource.plural}/${name} changed more than ${bound!.burst} times at over ${bound!.perSecond} a second; watched again after a backoff`)
        : undefined),
    };
  }

  /** One watch event read: into the store (listeners told), or into the initial listing until its end replaces the store. */
  private applyWatchStep(step: Exclude<WatchStep<T>, { kind: 'end' }>, w: { listing?: Map<string, T> }): void {
    if (step.resourceVersion) this.lastResourceVersion = step.resourceVersion;
    switch (step.kind) {
      case 'bookmark':
        if (w.listing && step.initialEventsEnd) {
          const items = [...w.listing.values()];
          w.listing = undefined;
          this.replace(items, this.lastResourceVersion);
          this.listed();
          this.phaseNow = 'Watching'; // the same watch streams on
        }
        return;
      case 'delete':
        if (w.listing) w.listing.delete(step.name);
        else {
          this.store.delete(step.name);
          this.emit(step.name);
        }
        return;
      case 'set':
        if (w.listing) w.listing.set(step.name, step.object);
        else {
          this.store.set(step.name, step.object);
          this.emit(step.name);
        }
        return;
      case 'malformed':
        // Keep the last good copy; the object is reported, not silently dropped.
        this.log.error(`malformed ${this.client.resource.plural} ignored`, { object: step.name, error: step.error.message });
    }
  }

  /**
   * One watch from the last resource version; resolves 'ran' if it ran its course (lived HEALTHY_WATCH_MS),
   * 'early' if the server ended it sooner, and throws on error. With `initial` (watchList mode) it starts with
   * every object and replaces the store when the server says the initial events are over; it resolves
   * 'unlisted' if the stream ended before that.
   */
  private async watchOnce(initial = false): Promise<'ran' | 'early' | 'unlisted'> {
    /** watchList mode: the initial events gathered until the server says they are over. */
    const w: { listing?: Map<string, T> } = initial ? { listing: new Map() } : {};
    const [lo, hi] = this.options.watchTimeoutSeconds ?? WATCH_SECONDS;
    const timeoutSeconds = Math.floor(lo + Math.random() * (hi - lo + 1));
    const untilTimedOut = (timeoutSeconds + 15) * 1000;
    // Until the watch's connection is known to be pinged (HTTP/2), the shorter silence of an unpinged one: the
    // bound only grows when the watch is accepted, so the timer never sleeps past it.
    let inactivityMs = this.options.inactivityMs ?? Math.min(untilTimedOut, UNPINGED_SILENCE_MS);
    const started = this.clock.now();
    let acceptedAt: number | undefined;
    let handle: WatchHandle | undefined;
    const ended = new Promise<void>((resolve, reject) => {
      let settled = false;
      let lastEventAt = started;
      const waits = new AbortController(); // ends a Retry-After wait before the watch is sent again, and the inactivity timer
      const finish = (err?: Error) => {
        if (settled) return;
        settled = true;
        // A watch that ran its course (lived long enough, not cut for its pace or its answers) starts the backoff over.
        const ranItsCourse = acceptedAt !== undefined && this.clock.now() - acceptedAt >= HEALTHY_WATCH_MS;
        if (ranItsCourse && !(err instanceof WatchTooFast) && !(err instanceof ForeignObjectError)) this.backoff.reset();
        waits.abort();
        this.abortWatch = undefined;
        handle?.abort();
        if (err && !this.stopped) reject(err);
        else resolve();
      };
      // The inactivity timer: an event only notes its time (no timer per event); the timer sleeps until the
      // last event is inactivityMs old, then ends the watch.
      void (async () => {
        for (let due = inactivityMs; !waits.signal.aborted; due = lastEventAt + inactivityMs - this.clock.now()) {
          if (due <= 0) return finish(new WatchInactive(inactivityMs));
          await this.clock.sleep(due, waits.signal);
        }
      })();
      this.abortWatch = () => finish();
      const rules = this.watchEventRules(() => w.listing !== undefined);
      const onEvent = (type: string, raw: unknown) => {
        if (settled) return;
        lastEventAt = this.clock.now();
        const step = readWatchEvent(type, raw, rules);
        if (step.kind === 'end') return finish(step.error);
        this.applyWatchStep(step, w);
      };
      this.client.watch({
        query: {
          ...(initial ? { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' } : { resourceVersion: this.lastResourceVersion }),
          allowWatchBookmarks: true, timeoutSeconds, fieldSelector: this.fieldSelector(), labelSelector: this.options.labelSelector,
        },
        signal: waits.signal,
        ...(this.options.metrics ? { metrics: this.options.metrics } : {}),
        onEvent,
        onEnd: (err) => finish(err),
      }).then((h) => {
        handle = h;
        acceptedAt = this.clock.now();
        if (h.pinged && this.options.inactivityMs === undefined) inactivityMs = untilTimedOut;
        if (settled) h.abort();
        else if (!initial) this.phaseNow = 'Watching';
      }, (e: Error) => finish(e));
    });
    await ended;
    if (w.listing) return 'unlisted'; // ended before the initial events were all in: list again
    // Ran its course: lived long enough. A watch ended early is watched again after the backoff, however many
    // events it carried (a server that sends one and ends each watch would otherwise be watched again at once).
    return acceptedAt !== undefined && this.clock.now() - acceptedAt >= HEALTHY_WATCH_MS ? 'ran' : 'early';
  }
}
