// A reflector: list + watch of one resource (optionally one named object) into an in-memory store.
// Unlike @kubernetes/client-node 1.4's informer it never stops for good: any error restarts it with
// jittered exponential backoff (1 s → 30 s, reset after a healthy watch); every watch is bounded
// (server-side timeoutSeconds randomised in 5–10 min, plus a client-side inactivity timer for half-open
// connections); a periodic relist is the safety net; 410 Gone relists at once. `synced` resolves after
// the first successful list.
import { Watch } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import { Backoff } from './backoff.js';
import { apiErrorMessage, isGone, statusCode } from './api-errors.js';
import { silentLogger, type Logger } from './logger.js';
import { countedRequest } from './metrics.js';
import type { ResourceClient } from './resource-client.js';

type Named = { metadata: { name?: string; resourceVersion?: string } };

export interface ReflectorOptions {
  /** Watch only this object (fieldSelector metadata.name=<name>). */
  name?: string;
  logger?: Logger;
  metrics?: Registry;
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  /** Relist at least this often (jittered +0–10 %). Default 10 minutes. */
  relistIntervalMs?: number;
  /** Server-side watch timeout range in seconds. Default [300, 600]. */
  watchTimeoutSeconds?: [number, number];
  /** Abort a watch that delivers nothing (not even a bookmark) for this long. Default: its timeout + 30 s. */
  inactivityMs?: number;
}

export type ReflectorListener = (name: string) => void;

class WatchEnded extends Error {
  constructor(readonly reason: 'closed' | 'inactive') {
    super(`watch ${reason}`);
  }
}

export class Reflector<T extends Named> {
  private readonly store = new Map<string, T>();
  private readonly listeners = new Set<ReflectorListener>();
  private readonly log: Logger;
  private readonly backoff: Backoff;
  private stopped = true;
  private running: Promise<void> | undefined;
  private abortWatch: (() => void) | undefined;
  private wake: (() => void) | undefined;
  private lastResourceVersion = '';
  private lastListAt = 0;
  private resolveSynced!: () => void;
  private syncedFlag = false;
  /** Resolves once the first list has filled the store. */
  readonly synced: Promise<void>;

  constructor(private readonly client: ResourceClient<T>, private readonly options: ReflectorOptions = {}) {
    this.log = (options.logger ?? silentLogger).with({ reflector: client.resource.plural, ...(options.name ? { name: options.name } : {}) });
    this.backoff = new Backoff(options.backoffInitialMs ?? 1000, options.backoffMaxMs ?? 30_000);
    this.synced = new Promise((resolve) => { this.resolveSynced = resolve; });
  }

  hasSynced(): boolean {
    return this.syncedFlag;
  }

  get(name: string): T | undefined {
    return this.store.get(name);
  }

  list(): T[] {
    return [...this.store.values()];
  }

  /** Called with the object name after every change to the store (add, update, delete). */
  addListener(fn: ReflectorListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.running = this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abortWatch?.();
    this.wake?.();
    await this.running;
  }

  private emit(name: string): void {
    for (const fn of this.listeners) {
      try {
        fn(name);
      } catch (e) {
        this.log.error('reflector listener failed', { error: e });
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => { this.wake = undefined; resolve(); }, ms);
      this.wake = () => { clearTimeout(t); this.wake = undefined; resolve(); };
    });
  }

  private fieldSelector(): string | undefined {
    return this.options.name ? `metadata.name=${this.options.name}` : undefined;
  }

  private async relist(): Promise<void> {
    const { items, resourceVersion } = await this.client.list(this.fieldSelector());
    const seen = new Set<string>();
    const changed: string[] = [];
    for (const item of items) {
      const name = item.metadata.name ?? '';
      seen.add(name);
      if (this.store.get(name)?.metadata.resourceVersion !== item.metadata.resourceVersion) changed.push(name);
      this.store.set(name, item);
    }
    for (const name of [...this.store.keys()]) {
      if (!seen.has(name)) {
        this.store.delete(name);
        changed.push(name);
      }
    }
    this.lastResourceVersion = resourceVersion;
    this.lastListAt = Date.now();
    if (!this.syncedFlag) {
      this.syncedFlag = true;
      this.resolveSynced();
    }
    for (const name of changed) this.emit(name);
  }

  private async loop(): Promise<void> {
    let needList = true;
    while (!this.stopped) {
      try {
        if (needList) {
          await this.relist();
          needList = false;
        }
        const healthy = await this.watchOnce();
        if (healthy) this.backoff.reset();
        else if (!this.stopped) await this.sleep(this.backoff.next()); // closed at once: do not spin
      } catch (e) {
        if (this.stopped) break;
        needList = true;
        if (e instanceof WatchEnded) {
          this.log.info('watch inactive, relisting');
          continue;
        }
        if (isGone(e)) {
          this.log.info('resource version too old, relisting');
          continue;
        }
        const delay = this.backoff.next();
        this.log.warn('list/watch failed, retrying', { error: apiErrorMessage(e), code: statusCode(e), retryInMs: Math.round(delay) });
        await this.sleep(delay);
        continue;
      }
      const interval = this.options.relistIntervalMs ?? 10 * 60_000;
      if (Date.now() - this.lastListAt > interval * (1 + Math.random() * 0.1)) needList = true;
    }
  }

  /** One watch from the last resource version; resolves true if it was healthy, throws on error. */
  private watchOnce(): Promise<boolean> {
    const [lo, hi] = this.options.watchTimeoutSeconds ?? [300, 600];
    const timeoutSeconds = Math.floor(lo + Math.random() * (hi - lo + 1));
    const inactivityMs = this.options.inactivityMs ?? (timeoutSeconds + 30) * 1000;
    const started = Date.now();
    let events = 0;
    return new Promise<boolean>((resolve, reject) => {
      let settled = false;
      let controller: AbortController | undefined;
      let inactive = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (err: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.abortWatch = undefined;
        controller?.abort();
        if (inactive) reject(new WatchEnded('inactive'));
        else if (err && !this.stopped) reject(err);
        else resolve(events > 0 || Date.now() - started > 2000);
      };
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => { inactive = true; finish(null); }, inactivityMs);
      };
      this.abortWatch = () => finish(null);
      arm();
      const params: Record<string, string | number | boolean | undefined> = {
        resourceVersion: this.lastResourceVersion, allowWatchBookmarks: true, timeoutSeconds,
        fieldSelector: this.fieldSelector(),
      };
      const onEvent = (type: string, raw: unknown) => {
        if (settled) return;
        arm();
        events++;
        const obj = raw as { metadata?: { name?: string; resourceVersion?: string }; code?: number; message?: string };
        if (type === 'BOOKMARK') {
          if (obj.metadata?.resourceVersion) this.lastResourceVersion = obj.metadata.resourceVersion;
          return;
        }
        if (type === 'ERROR') {
          const err = Object.assign(new Error(`watch error: ${obj.message ?? 'unknown'}`), { statusCode: obj.code });
          finish(err);
          return;
        }
        const name = obj.metadata?.name ?? '';
        if (obj.metadata?.resourceVersion) this.lastResourceVersion = obj.metadata.resourceVersion;
        if (type === 'DELETED') {
          this.store.delete(name);
          this.emit(name);
          return;
        }
        try {
          this.store.set(name, this.client.resource.decode(raw));
          this.emit(name);
        } catch (e) {
          // Keep the last good copy; the object is reported, not silently dropped.
          this.log.error(`malformed ${this.client.resource.plural}/${name} ignored`, { error: (e as Error).message });
        }
      };
      countedRequest(this.options.metrics, 'WATCH', this.client.resource.plural,
        () => new Watch(this.client.kubeConfig).watch(this.client.path, params, onEvent, (err) => finish(err)))
        .then((c) => {
          controller = c;
          if (settled) c.abort();
        })
        .catch((e: unknown) => finish(e));
    });
  }
}
