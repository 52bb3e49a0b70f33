// client-go's default controller rate limiter: the larger of a per-item exponential delay (5 ms doubling
// per failure, capped at 1000 s) and an overall token bucket (10 per second, burst 100) shared by every
// item. `forget` resets an item's failures after a success.
import { realClock, type Clock } from './clock.js';

export interface RateLimiter {
  /** The delay before `key` may be retried; counts a failure. */
  when(key: string): number;
  forget(key: string): void;
  numRequeues(key: string): number;
}

export class ItemExponentialLimiter implements RateLimiter {
  private readonly failures = new Map<string, number>();

  constructor(private readonly baseMs = 5, private readonly maxMs = 1_000_000) {}

  when(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    return Math.min(this.maxMs, this.baseMs * 2 ** Math.min(n, 60));
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/** A token bucket: each when() reserves the next token and returns how long until it is available. */
export class BucketLimiter implements RateLimiter {
  private tokens: number;
  private last: number;

  constructor(private readonly qps = 10, private readonly burst = 100, private readonly clock: Clock = realClock) {
    this.tokens = burst;
    this.last = clock.now();
  }

  when(): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  forget(): void { /* not per item */ }

  numRequeues(): number {
    return 0;
  }
}

/** The maximum delay of several limiters (client-go's MaxOfRateLimiter). */
export class MaxOfLimiter implements RateLimiter {
  private readonly limiters: RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.limiters = limiters;
  }

  when(key: string): number {
    return Math.max(...this.limiters.map((l) => l.when(key)));
  }

  forget(key: string): void {
    for (const l of this.limiters) l.forget(key);
  }

  numRequeues(key: string): number {
    return Math.max(...this.limiters.map((l) => l.numRequeues(key)));
  }
}

export function defaultControllerRateLimiter(clock: Clock = realClock): RateLimiter {
  return new MaxOfLimiter(new ItemExponentialLimiter(5, 1_000_000), new BucketLimiter(10, 100, clock));
}
