// A fake monotonic clock: sleeps resolve only when the test advances time past them, in order.
import type { Clock } from '../../runtime/util/clock.js';

export class FakeClock implements Clock {
  private t = 0;
  private sleepers: { at: number; resolve: () => void }[] = [];

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const onAbort = () => { this.sleepers = this.sleepers.filter((s) => s !== entry); resolve(); };
      const entry = { at: this.t + Math.max(0, ms), resolve: () => { signal?.removeEventListener('abort', onAbort); resolve(); } };
      this.sleepers.push(entry);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Number of pending sleeps. */
  get pending(): number {
    return this.sleepers.length;
  }

  /** Moves time forward by `ms`, waking sleepers in time order and letting their promise chains run. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await flush();
      this.sleepers.sort((a, b) => a.at - b.at);
      const next = this.sleepers[0];
      if (!next || next.at > end) break;
      this.sleepers.shift();
      this.t = Math.max(this.t, next.at);
      next.resolve();
    }
    this.t = end;
    await flush();
  }

  /** Jumps time without waking anyone until the next advance (a process paused by SIGSTOP). */
  jump(ms: number): void {
    this.t += ms;
  }
}

async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((r) => setImmediate(r));
}
