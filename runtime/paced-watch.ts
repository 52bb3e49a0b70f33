// Watch sources whose events are paced by one token bucket: a peer whose API server streams changes cannot
// set the pace of the controllers that watch it. Names reported while a delivery is scheduled join it (each
// name once), so nothing is lost, only batched: a controller's queue would merge them anyway. With `turns`, a
// delivery its own bucket allows then waits for its turn among every pacer sharing them (fair-turns.ts), and with
// `settled` holds its place there until the work it woke is done.
import { realClock, type Clock } from './clock.js';
import type { FairTurns } from './fair-turns.js';
import type { WatchSource } from './controller.js';

export class PacedWatch {
  private readonly pending = new Map<PacedSource, Set<string>>();
  private scheduled = false;
  private readonly stopping = new AbortController();

  private readonly whenStopped = new Promise<void>((resolve) => this.stopping.signal.addEventListener('abort', () => resolve(), { once: true }));

  /**
   * `bucket.when()` says how long the next delivery must wait (a BucketLimiter: per second, burst). `settled` (with
   * `turns`): resolves once the work a delivery woke is done — its turn holds a place until then (or this pacer stops).
   */
  constructor(private readonly bucket: { when(): number }, private readonly clock: Clock = realClock, private readonly turns?: FairTurns,
    private readonly settled?: () => Promise<unknown>) {}

  /** `source`, its events delivered through this pacer. */
  source(source: WatchSource): WatchSource {
    return new PacedSource(source, this);
  }

  /** Nothing more is delivered. */
  stop(): void {
    this.stopping.abort();
    this.pending.clear();
  }

  /** @internal A paced source heard `name`. */
  heard(from: PacedSource, name: string): void {
    if (this.stopping.signal.aborted) return;
    let names = this.pending.get(from);
    if (!names) this.pending.set(from, (names = new Set()));
    names.add(name);
    if (this.scheduled) return;
    const delay = this.bucket.when();
    if (delay <= 0 && !this.turns) return this.deliver();
    this.scheduled = true;
    const turn = () => {
      this.scheduled = false;
      if (this.stopping.signal.aborted) return undefined;
      this.deliver();
      return this.turns && this.settled ? Promise.race([this.settled(), this.whenStopped]) : undefined;
    };
    const take = () => {
      if (this.turns && !this.stopping.signal.aborted) this.turns.ask(turn);
      else turn();
    };
    if (delay <= 0) return take();
    void this.clock.sleep(delay, this.stopping.signal).then(take);
  }

  private deliver(): void {
    const batch = [...this.pending];
    this.pending.clear();
    for (const [source, names] of batch) for (const name of names) source.tell(name);
  }
}

class PacedSource implements WatchSource {
  private readonly listeners = new Set<(name: string) => void>();
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly inner: WatchSource, private readonly pacer: PacedWatch) {}

  addListener(fn: (name: string) => void): () => void {
    this.listeners.add(fn);
    this.unsubscribe ??= this.inner.addListener((name) => this.pacer.heard(this, name));
    return () => {
      this.listeners.delete(fn);
      if (this.listeners.size === 0) {
        this.unsubscribe?.();
        this.unsubscribe = undefined;
      }
    };
  }

  tell(name: string): void {
    for (const fn of [...this.listeners]) fn(name);
  }
}
