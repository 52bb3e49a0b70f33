// The work queue's client-go semantics, client-go's default rate limiter, and the Controller's
// controller-runtime result handling (fake clock for the delays).
import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import {
  Backoff, BucketLimiter, Controller, ItemExponentialLimiter, NotLeaderError, WorkQueue, defaultControllerRateLimiter,
  type ReconcileResult, type WatchSource,
} from '../../runtime/index.js';
import { FakeClock } from '../support/fake-clock.js';

const conflict = () => Object.assign(new Error('conflict'), { code: 409 });

class Source implements WatchSource {
  private fns = new Set<(n: string) => void>();
  addListener(fn: (n: string) => void) { this.fns.add(fn); return () => this.fns.delete(fn); }
  emit(n: string) { for (const f of this.fns) f(n); }
  get listeners() { return this.fns.size; }
}

describe('WorkQueue', () => {
  it('holds a waiting key once however often it is added, and counts adds after de-duplication', async () => {
    const registry = new Registry();
    const q = new WorkQueue('q', { metrics: registry });
    for (let i = 0; i < 10; i++) { q.add('a'); q.add('b'); }
    expect(q.length).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
    expect(await registry.metrics()).toMatch(/workqueue_adds_total\{name="q",controller="q"\} 2/);
    q.shutDown();
  });

  it('never hands out a key in flight; a key re-added while in flight comes back after done()', async () => {
    const q = new WorkQueue('q');
    q.add('k');
    expect(await q.get()).toBe('k');
    q.add('k');
    q.add('k');
    let next: string | undefined = 'none';
    void q.get().then((k) => { next = k; });
    await new Promise((r) => setImmediate(r));
    expect(next).toBe('none'); // still in flight: not handed out again
    q.done('k');
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

  it('a key waits once: a later delayed add is dropped, a sooner one replaces the wait (one timer per key)', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue('q', { clock });
    q.addAfter('k', 60_000);
    for (let i = 0; i < 50; i++) q.addAfter('k', 60_000 + i); // resyncs and retries of a failing key
    expect(clock.pending).toBe(1);
    q.addAfter('k', 1_000); // sooner: replaces
    expect(clock.pending).toBe(1);
    await clock.advance(1_000);
    expect(q.length).toBe(1);
    expect(await q.get()).toBe('k');
    q.done('k');
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
    q.done('k');
    expect(await registry.metrics()).toMatch(/workqueue_longest_running_processor_seconds\{name="inflight",controller="inflight"\} 0\n/);
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

describe('Controller', () => {
  const run = async (results: (() => ReconcileResult | void)[], clock = new FakeClock()) => {
    const registry = new Registry();
    const times: number[] = [];
    let i = 0;
    const source = new Source();
    const c = new Controller({
      name: 'ctl',
      reconcile: async () => { times.push(clock.now()); const r = results[Math.min(i++, results.length - 1)]!; return r(); },
      watches: [{ source, keys: () => ['k'] }],
    }, { metrics: registry, clock });
    c.start();
    source.emit('anything');
    return { c, clock, times, registry, source };
  };

  it('maps watch events to keys and stops listening on stop()', async () => {
    const { c, source, times } = await run([() => ({})]);
    await c.idle();
    expect(times).toEqual([0]);
    expect(source.listeners).toBe(1);
    await c.stop();
    expect(source.listeners).toBe(0);
  });

  it('retries errors and conflicts through the rate limiter (5, 10, 20 ms …), never at once', async () => {
    const { c, clock, times, registry } = await run([
      () => { throw new Error('boom'); }, () => { throw conflict(); }, () => { throw conflict(); }, () => ({}),
    ]);
    await clock.advance(0);
    expect(times).toEqual([0]);
    await clock.advance(4);
    expect(times).toEqual([0]); // not before the 5 ms
    await clock.advance(1000);
    expect(times).toEqual([0, 5, 15, 35]);
    const text = await registry.metrics();
    expect(text).toMatch(/controller_runtime_reconcile_total\{controller="ctl",result="error"\} 1/);
    expect(text).toMatch(/controller_runtime_reconcile_total\{controller="ctl",result="requeue"\} 2/);
    expect(text).toMatch(/controller_runtime_reconcile_total\{controller="ctl",result="success"\} 1/);
    expect(text).toMatch(/controller_runtime_reconcile_errors_total\{controller="ctl"\} 1/);
    expect(text).toMatch(/workqueue_retries_total\{name="ctl",controller="ctl"\} 3/);
    await c.stop();
  });

  it('a success forgets the failures; requeueAfterMs requeues after that time; 0 does not loop', async () => {
    const { c, clock, times } = await run([
      () => { throw new Error('x'); }, () => ({ requeueAfterMs: 100 }), () => { throw new Error('y'); }, () => ({ requeueAfterMs: 0 }),
    ]);
    await clock.advance(1000);
    // 0: error → +5; 5: requeueAfter 100 → 105: error, failures forgotten so +5 again → 110: done.
    expect(times).toEqual([0, 5, 105, 110]);
    await clock.advance(10_000);
    expect(times).toHaveLength(4);
    await c.stop();
  });

  it('requeue: true goes through the rate limiter', async () => {
    const { c, clock, times } = await run([() => ({ requeue: true }), () => ({ requeue: true }), () => ({})]);
    await clock.advance(1000);
    expect(times).toEqual([0, 5, 15]);
    await c.stop();
  });

  it('drops a key whose write the leader fence refused', async () => {
    const { c, clock, times } = await run([() => { throw new NotLeaderError('no'); }]);
    await clock.advance(10_000);
    expect(times).toEqual([0]);
    await c.stop();
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
