// The work queue's client-go semantics (one queue for many clusters, as multicluster-runtime's), client-go's default
// rate limiter and the backoff (fake clock for the delays). The Controller over it: controller.test.ts.
import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { Backoff, BucketLimiter, ItemExponentialLimiter, WorkQueue, defaultControllerRateLimiter } from '../../runtime/index.js';
import { FakeClock } from '../support/fake-clock.js';

describe('WorkQueue', () => {
  it('holds a waiting key once however often it is added, and counts adds after de-duplication', async () => {
    const registry = new Registry();
    const q = new WorkQueue('q', { metrics: registry });
    for (let i = 0; i < 10; i++) { q.add('a'); q.add('b'); }
    expect(q.length).toBe(2);
    expect(await q.get()).toEqual({ cluster: '', key: 'a' });
    expect(await q.get()).toEqual({ cluster: '', key: 'b' });
    expect(await registry.metrics()).toMatch(/workqueue_adds_total\{name="q",controller="q"\} 2/);
    q.shutDown();
  });

  it('never hands out a key in flight; a key re-added while in flight comes back after done()', async () => {
    const q = new WorkQueue('q');
    q.add('k');
    expect(await q.get()).toEqual({ cluster: '', key: 'k' });
    q.add('k');
    q.add('k');
    let next: string | undefined = 'none';
    void q.get().then((r) => { next = r?.key; });
    await new Promise((r) => setImmediate(r));
    expect(next).toBe('none'); // still in flight: not handed out again
    q.done({ cluster: '', key: 'k' });
    await new Promise((r) => setImmediate(r));
    expect(next).toBe('k');
    q.shutDown();
  });

  it('get() resolves undefined after shutDown, and delayed adds are dropped', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue('q', { clock });
    q.addAfter('later', 1000);
    const waiting = q.get();
    q.shutDown();
    expect(await waiting).toBeUndefined();
    await clock.advance(2000);
    expect(q.length).toBe(0);
  });

  it('a key waits once: a later delayed add is dropped, a sooner one replaces the wait (one timer for all)', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue('q', { clock });
    q.addAfter('k', 60_000);
    for (let i = 0; i < 50; i++) q.addAfter('k', 60_000 + i); // resyncs and retries of a failing key
    expect(clock.pending).toBe(1);
    q.addAfter('k', 1_000); // sooner: replaces
    expect(clock.pending).toBe(1);
    await clock.advance(1_000);
    expect(q.length).toBe(1);
    expect(await q.get()).toEqual({ cluster: '', key: 'k' });
    q.done({ cluster: '', key: 'k' });
    await clock.advance(60_000);
    expect(q.length).toBe(0); // the replaced 60 s wait does not fire
    q.shutDown();
  });

  it('computes in-flight gauges on scrape', async () => {
    const registry = new Registry();
    const clock = new FakeClock();
    const q = new WorkQueue('inflight', { metrics: registry, clock });
    q.add('k');
    await clock.advance(2_000); // queued for 2 s
    await q.get();
    await clock.advance(30_000); // in flight for 30 s
    const text = await registry.metrics();
    expect(text).toMatch(/workqueue_longest_running_processor_seconds\{name="inflight",controller="inflight"\} 30\n/);
    expect(text).toMatch(/workqueue_unfinished_work_seconds\{name="inflight",controller="inflight"\} 30\n/);
    expect(text).toMatch(/workqueue_queue_duration_seconds_sum\{name="inflight",controller="inflight"\} 2\n/);
    q.done({ cluster: '', key: 'k' });
    expect(await registry.metrics()).toMatch(/workqueue_longest_running_processor_seconds\{name="inflight",controller="inflight"\} 0\n/);
    q.shutDown();
  });
});

// Requests that name their cluster (multicluster-runtime's shape: one queue per controller for every cluster).
describe('WorkQueue over many clusters', () => {
  const drain = async (q: WorkQueue, n: number) => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const r = (await q.get())!;
      out.push(`${r.cluster}:${r.key}`);
      q.done(r);
    }
    return out;
  };

  it('serves the clusters in turn: a cluster with 1,000 keys waiting delays another cluster\'s key by one', async () => {
    const q = new WorkQueue('q');
    for (let i = 0; i < 1000; i++) q.add(`k${i}`, 'noisy');
    q.add('status', 'quiet-1');
    q.add('status', 'quiet-2');
    expect(await drain(q, 5)).toEqual(['noisy:k0', 'quiet-1:status', 'quiet-2:status', 'noisy:k1', 'noisy:k2']);
    expect(q.length).toBe(997);
    q.shutDown();
  });

  it('the same key of two clusters is two requests, each with its own backoff', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue('q', { clock, rateLimiter: new ItemExponentialLimiter(5, 60_000) });
    q.addRateLimited('status', 'a');
    q.addRateLimited('status', 'a');
    q.addRateLimited('status', 'b');
    expect([q.numRequeues('status', 'a'), q.numRequeues('status', 'b'), q.numRequeues('status', 'c')]).toEqual([2, 1, 0]);
    await clock.advance(5);
    expect(await drain(q, 2)).toEqual(['a:status', 'b:status']); // a's second add asked 10 ms; its first wait (5 ms) was sooner
    q.shutDown();
  });

  it('every delay of every cluster shares one timer', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue('q', { clock });
    for (let i = 0; i < 500; i++) q.addAfter('status', 600_000 + i, `guest-${i}`);
    expect(clock.pending).toBe(1);
    q.addAfter('status', 1_000, 'guest-x'); // sooner than all: the one timer moves
    expect(clock.pending).toBe(1);
    await clock.advance(1_000);
    expect(await drain(q, 1)).toEqual(['guest-x:status']);
    await clock.advance(600_000 + 499);
    expect(q.length).toBe(500);
    q.shutDown();
  });

  it('dropCluster forgets its waiting keys, its delays and its backoff; the others go on', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue('q', { clock, rateLimiter: new ItemExponentialLimiter(5, 60_000) });
    q.add('a', 'gone');
    q.addAfter('b', 100, 'gone');
    q.addRateLimited('c', 'gone');
    q.add('a', 'kept');
    q.dropCluster('gone');
    expect(q.numRequeues('c', 'gone')).toBe(0);
    expect(q.clusters).toBe(1);
    await clock.advance(1_000);
    expect(await drain(q, 1)).toEqual(['kept:a']);
    expect(q.length).toBe(0);
    q.shutDown();
  });

  // A guest whose objects keep changing (a tenant's hostile API server) is looked at no more than its bucket allows.
  it('events of one cluster: a burst at once, then at the bucket\'s pace, each waiting key once, no debt; others unaffected', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue('q', { clock, eventsPerCluster: { perSecond: 2, burst: 3 } });
    const handed: string[] = [];
    const serve = async () => { while (q.length > 0 && q.inFlight === 0 && handed.length < 100) { const r = (await q.get())!; handed.push(`${clock.now()} ${r.cluster}:${r.key}`); q.done(r); } };
    for (let i = 0; i < 3; i++) { q.addFromEvent('status', 'noisy'); await serve(); } // the burst: 3 looks at once
    for (let i = 0; i < 50; i++) q.addFromEvent('status', 'noisy'); // 50 more events: one look, when a token comes
    q.addFromEvent('status', 'honest');
    await serve();
    expect(handed).toEqual(['0 noisy:status', '0 noisy:status', '0 noisy:status', '0 honest:status']);
    await clock.advance(499);
    await serve();
    expect(handed).toHaveLength(4);
    await clock.advance(1);
    await serve();
    expect(handed.slice(4)).toEqual(['500 noisy:status']);
    await clock.advance(10_000);
    await serve();
    expect(handed).toHaveLength(5); // the 50 events cost one token, not 50
    q.shutDown();
  });
});

describe('rate limiters', () => {
  it('per item: 5 ms doubling to 1000 s; forget resets', () => {
    const l = new ItemExponentialLimiter();
    expect([0, 1, 2, 3].map(() => l.when('a'))).toEqual([5, 10, 20, 40]);
    expect(l.when('b')).toBe(5);
    for (let i = 0; i < 40; i++) l.when('a');
    expect(l.when('a')).toBe(1_000_000);
    expect(l.numRequeues('a')).toBe(45);
    l.forget('a');
    expect(l.when('a')).toBe(5);
  });

  it('overall bucket: 100 at once, then 10 per second', async () => {
    const clock = new FakeClock();
    const b = new BucketLimiter(10, 100, clock);
    const delays = Array.from({ length: 102 }, () => b.when());
    expect(delays.slice(0, 100).every((d) => d === 0)).toBe(true);
    expect(delays[100]).toBeCloseTo(100);
    expect(delays[101]).toBeCloseTo(200);
    await clock.advance(10_000);
    expect(b.when()).toBe(0);
  });

  it('the default is the max of both', () => {
    const clock = new FakeClock();
    const l = defaultControllerRateLimiter(clock);
    expect(l.when('x')).toBe(5);
    expect(l.when('x')).toBe(10);
    for (let i = 0; i < 200; i++) l.when(`k${i}`); // drain the bucket
    expect(l.when('y')).toBeGreaterThan(5); // the bucket, not the item's 5 ms, decides
  });
});

describe('Backoff', () => {
  it('doubles up to the cap, jittered in [d/2, d], and resets', () => {
    const b = new Backoff(1000, 30_000, () => 1);
    expect([1, 2, 3, 4, 5, 6, 7].map(() => b.next())).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
    b.reset();
    expect(b.next()).toBe(1000);
    expect(new Backoff(1000, 30_000, () => 0).next()).toBe(500);
  });
});
