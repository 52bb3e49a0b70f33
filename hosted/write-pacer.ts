// Writes of many writers of one process to one API server, paced together: a token bucket (so many per second
// after a burst) and a bound on how many are in flight at once. Hosted mode gives one to every session of a replica
// for what they write to the management cluster (Events, the feature-gate ConfigMap): a fleet-wide change — every
// guest's status updated within seconds — would otherwise send one write per guest at once, and the management API
// server, queueing them, answered the replica's own Lease renewals too late (the 2,010-HCP benchmark: every replica
// lost its shards and its membership ten seconds into such a wave). Writes that keep the replica alive (Leases)
// never pass through it.
import { realClock, type Clock } from '../runtime/util/clock.js';
import { BucketLimiter } from '../runtime/util/rate-limiter.js';

export interface WritePace {
  perSecond: number;
  burst: number;
  maxInFlight: number;
}

export class WritePacer {
  private readonly bucket: BucketLimiter;
  private inFlight = 0;
  /** Writers waiting for a slot, in arrival order. */
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly pace: WritePace, private readonly clock: Clock = realClock) {
    this.bucket = new BucketLimiter(pace.perSecond, pace.burst, clock);
  }

  /** Runs `write` when a slot is free and its token has come; `signal` gives up the wait (the write then never runs). */
  async run<T>(write: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.slot(signal);
    try {
      const wait = this.bucket.when();
      if (wait > 0) await this.clock.sleep(wait, signal);
      signal?.throwIfAborted();
      return await write();
    } finally {
      this.free();
    }
  }

  private async slot(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.inFlight < this.pace.maxInFlight) {
      this.inFlight++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const turn = () => {
        signal?.removeEventListener('abort', giveUp);
        resolve();
      };
      const giveUp = () => {
        const i = this.waiting.indexOf(turn);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal!.reason);
      };
      this.waiting.push(turn);
      signal?.addEventListener('abort', giveUp, { once: true });
    });
    // The slot was handed over by free(): inFlight already counts it.
  }

  private free(): void {
    const next = this.waiting.shift();
    if (next) next(); // the slot passes on as it is
    else this.inFlight--;
  }
}
