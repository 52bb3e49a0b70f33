// client-go's event correlation (tools/record), re-expressed: what an Event becomes before it is sent.
//  1. Aggregation: events alike but for their message (same source, object, type, reason) are counted
//     per 10-minute window; from the 10th distinct message on, they are folded into one
//     "(combined from similar events): <latest message>" event.
//  2. De-duplication: an event identical to one already sent becomes a patch of that Event's count and
//     lastTimestamp (and message) instead of a new object.
//  3. Spam filter: a token bucket per source + involved object (burst 25, one token per 5 minutes)
//     drops what exceeds it, patches included.
// Caches are LRU-bounded (4096 keys). Pure: time comes from the caller.

export interface EventKeyParts {
  source: string;
  /** kind/namespace/name/uid/apiVersion of the involved object. */
  object: string;
  type: string;
  reason: string;
  message: string;
}

export type CorrelatedEvent =
  | { action: 'create'; message: string; key: string; count: 1 }
  | { action: 'patch'; message: string; key: string; count: number; name: string }
  | { action: 'drop' };

export const COMBINED_PREFIX = '(combined from similar events): ';

export interface CorrelatorOptions {
  maxSimilar?: number;
  similarWindowMs?: number;
  spamBurst?: number;
  spamRefillMs?: number;
  cacheSize?: number;
}

class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly size: number) {}
  get(k: string): V | undefined {
    const v = this.map.get(k);
    if (v !== undefined) { this.map.delete(k); this.map.set(k, v); }
    return v;
  }
  delete(k: string): void {
    this.map.delete(k);
  }
  set(k: string, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
    if (this.map.size > this.size) this.map.delete(this.map.keys().next().value as string);
  }
}

export class EventCorrelator {
  private readonly similar: Lru<{ messages: Set<string>; last: number }>;
  private readonly sent: Lru<{ name: string; count: number }>;
  private readonly buckets: Lru<{ tokens: number; at: number }>;
  private readonly o: Required<CorrelatorOptions>;

  constructor(options: CorrelatorOptions = {}) {
    this.o = { maxSimilar: 10, similarWindowMs: 600_000, spamBurst: 25, spamRefillMs: 300_000, cacheSize: 4096, ...options };
    this.similar = new Lru(this.o.cacheSize);
    this.sent = new Lru(this.o.cacheSize);
    this.buckets = new Lru(this.o.cacheSize);
  }

  /** What to do with this event at time `now` (ms). Call recordSent() after a create succeeds. */
  correlate(e: EventKeyParts, now: number): CorrelatedEvent {
    const aggregateKey = JSON.stringify([e.source, e.object, e.type, e.reason]);
    let group = this.similar.get(aggregateKey);
    if (!group || now - group.last > this.o.similarWindowMs) group = { messages: new Set(), last: now };
    group.messages.add(e.message);
    group.last = now;
    this.similar.set(aggregateKey, group);
    const combined = group.messages.size >= this.o.maxSimilar;
    const message = combined ? `${COMBINED_PREFIX}${e.message}` : e.message;
    const key = combined ? aggregateKey : JSON.stringify([aggregateKey, e.message]);

    if (!this.take(JSON.stringify([e.source, e.object]), now)) return { action: 'drop' };
    const prior = this.sent.get(key);
    if (prior) {
      prior.count += 1;
      this.sent.set(key, prior);
      return { action: 'patch', message, key, count: prior.count, name: prior.name };
    }
    return { action: 'create', message, key, count: 1 };
  }

  /** The Event object created for `key` (later identical events patch it). */
  recordSent(key: string, name: string, count = 1): void {
    this.sent.set(key, { name, count });
  }

  /** The Event for `key` is gone (a patch got 404): the next one creates anew. */
  forgetSent(key: string): void {
    this.sent.delete(key);
  }

  private take(key: string, now: number): boolean {
    const b = this.buckets.get(key) ?? { tokens: this.o.spamBurst, at: now };
    b.tokens = Math.min(this.o.spamBurst, b.tokens + (now - b.at) / this.o.spamRefillMs);
    b.at = now;
    const ok = b.tokens >= 1;
    if (ok) b.tokens -= 1;
    this.buckets.set(key, b);
    return ok;
  }
}
