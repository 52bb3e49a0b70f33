// Writes of many writers of one process to one API server, paced together: a token bucket (so many per second
// after a burst) and a bound on how many are in flight at once. Hosted mode gives one to every session of a replica
// for what they write to the management cluster (Events, the feature-gate ConfigMap): a fleet-wide change — every
// guest's status updated within seconds — would otherwise send one write per guest at once, and the management API
// server, queueing them, answered the replica's own Lease renewals too late (the 2,010-HCP benchmark: every replica
// lost its shards and its membership ten seconds into such a wave). Writes that keep the replica alive (Leases)
// never pass through it. What other components read (the feature-gate ConfigMap) goes ahead of Events: a fleet's
// start is some three writes a guest, two of them Events, and in arrival order the last HCP's ConfigMap came a minute
// after its guest's status (670 hollow guests: 88.7 s against 22.3 s).
import { realClock, type Clock } from '../runtime/util/clock.js';
import { BucketLimiter } from '../runtime/util/rate-limiter.js';

export interface WritePace {
  perSecond: number;
  burst: number;
  maxInFlight: number;
}

/** 'state': what other components read (served first); 'notice': what people read (Events). */
export type WriteLane = 'state' | 'notice';

export class WritePacer {
  private readonly bucket: BucketLimiter;
  private inFlight = 0;
  /** Writers waiting for a slot, in arrival order within each lane. */
  private readonly waiting: Record<WriteLane, (() => void)[]> = { state: [], notice: [] };

  constructor(private readonly pace: WritePace, private readonly clock: Clock = realClock) {
    this.bucket = new BucketLimiter(pace.perSecond, pace.burst, clock);
  }

  /**
   * Runs `write` when a slot is free and its token has come, a 'state' write before every 'notice' still waiting for
   * its slot; `signal` gives up the wait (the write then never runs).
   */
  async run<T>(write: () => Promise<T>, signal?: AbortSignal, lane: WriteLane = 'notice'): Promise<T> {
    await this.slot(lane, signal);
    try {
      const wait = this.bucket.when();
      if (wait > 0) await this.clock.sleep(wait, signal);
      signal?.throwIfAborted();
      return await write();
    } finally {
      this.free();
    }
  }

  private async slot(lane: WriteLane, signal?: AbortSignal): Promise<void> {
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
        const i = this.waiting[lane].indexOf(turn);
        if (i >= 0) this.waiting[lane].splice(i, 1);
        reject(signal!.reason);
      };
      this.waiting[lane].push(turn);
      signal?.addEventListener('abort', giveUp, { once: true });
    });
    // The slot was handed over by free(): inFlight already counts it.
  }

  private free(): void {
    const next = this.waiting.state.shift() ?? this.waiting.notice.shift();
    if (next) next(); // the slot passes on as it is
    else this.inFlight--;
  }
}
