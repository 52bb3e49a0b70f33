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

async function eventuallyTrue(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !ok(); i++) await new Promise((r) => setImmediate(r));
  expect(ok()).toBe(true);
}

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

  it('engages clusters on one controller: each its own reconcile and sources; disengage lets go of its sources, aborts its reconcile in flight and tells it nothing', async () => {
    const clock = new FakeClock();
    const c = new Controller({ name: 'kind', concurrency: 2 }, { clock });
    c.start();
    const sources = { a: new Source(), b: new Source() };
    const ran: string[] = [];
    const told: string[] = [];
    let aborted: unknown;
    let release!: () => void;
    for (const name of ['a', 'b'] as const) {
      c.engage(name, {
        watches: [{ source: sources[name], keys: () => ['k'] }], initialKeys: ['k'],
        onReconciled: (key, e) => told.push(`${name}:${key}:${e ? 'error' : 'ok'}`),
        reconcile: async (key, signal) => {
          ran.push(`${name}:${key}`);
          if (name === 'b' && ran.length > 2) {
            await new Promise<void>((resolve) => { release = resolve; signal.addEventListener('abort', () => { aborted = signal.reason; resolve(); }); });
          }
        },
      });
    }
    await clock.advance(0);
    expect(ran).toEqual(['a:k', 'b:k']);
    expect(told).toEqual(['a:k:ok', 'b:k:ok']);
    expect(() => c.engage('a', { watches: [], reconcile: async () => undefined })).toThrow(/already engaged/);
    sources.b.emit('x');
    await clock.advance(0);
    expect(ran).toEqual(['a:k', 'b:k', 'b:k']); // b's second reconcile waits
    await c.disengage('b');
    expect(String(aborted)).toContain('controller kind stopped for b');
    expect(release).toBeDefined();
    expect(sources.b.listeners).toBe(0);
    expect(told).toEqual(['a:k:ok', 'b:k:ok']); // the aborted reconcile is not told
    sources.a.emit('x');
    await clock.advance(0);
    expect(ran.at(-1)).toBe('a:k');
    expect(c.queue.clusters).toBe(1);
    await c.stop();
    expect(sources.a.listeners).toBe(0);
  });

  // A wave (every guest's version at once) woke 670 guests' controllers in one turn of the event loop: a replica stalled
  // 4.4 s and missed its Lease renewals. Workers bound what is in flight, and let the event loop turn between reconciles.
  it('at most `concurrency` reconciles in flight over every cluster; reconciles that end without I/O let the event loop turn', async () => {
    const c = new Controller({ name: 'kind', concurrency: 3 });
    c.start();
    let inFlight = 0;
    let most = 0;
    const gates: (() => void)[] = [];
    for (let i = 0; i < 20; i++) {
      c.engage(`waiting-${i}`, { watches: [], initialKeys: ['k'], reconcile: async () => {
        most = Math.max(most, ++inFlight);
        await new Promise<void>((resolve) => gates.push(resolve));
        inFlight--;
      } });
    }
    await eventuallyTrue(() => gates.length === 3);
    expect(most).toBe(3);
    while (gates.length) { gates.shift()!(); await new Promise((r) => setImmediate(r)); }
    await c.idle();
    expect(most).toBe(3);
    let busy = 0;
    for (let i = 0; i < 50; i++) {
      c.engage(`busy-${i}`, { watches: [], initialKeys: ['k'], reconcile: async () => { const end = performance.now() + 1; while (performance.now() < end) { /* 1 ms of CPU */ } busy++; } });
    }
    const atTurn = await new Promise<number>((resolve) => setImmediate(() => resolve(busy)));
    expect(atTurn).toBeLessThan(50); // the event loop turned before all 50 ms of work was done
    await c.idle();
    expect(busy).toBe(50);
    await c.stop();
  });

  // A guest whose writes never answer (an admission webhook its tenant points at nothing) held a worker until the
  // request timed out: as many such guests as workers held every worker of a kind, and every honest guest waited.
  it('a reconcile still running after slowAfterMs gives its worker back: guests that never answer cannot hold every worker', async () => {
    const clock = new FakeClock();
    const registry = new Registry();
    const c = new Controller({ name: 'kind', concurrency: 2, slowAfterMs: 500 }, { clock, metrics: registry });
    c.start();
    const started: string[] = [];
    const ended: string[] = [];
    for (let i = 0; i < 5; i++) {
      c.engage(`hanging-${i}`, { watches: [], initialKeys: ['k'], reconcile: async (_k, signal) => {
        started.push(`hanging-${i}`);
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        ended.push(`hanging-${i}`);
      } });
    }
    await clock.advance(0);
    expect(started).toEqual(['hanging-0', 'hanging-1']); // two workers
    const honest: number[] = [];
    c.engage('honest', { watches: [], initialKeys: ['k'], reconcile: async () => { honest.push(clock.now()); } });
    await clock.advance(499);
    expect(honest).toEqual([]);
    await clock.advance(1); // the first two are slow: their workers go on
    expect(started).toEqual(['hanging-0', 'hanging-1', 'hanging-2', 'hanging-3']);
    await clock.advance(500);
    expect(honest).toEqual([1_000]);
    expect(started).toHaveLength(5); // each hanging key once: a key in flight is never handed out again
    expect(ended).toEqual([]);
    expect(await registry.getSingleMetricAsString('featuregates_controller_slow_reconciles')).toContain('featuregates_controller_slow_reconciles{controller="kind"} 4');
    await c.stop(); // aborts and awaits the slow ones too
    expect(ended.sort()).toEqual(['hanging-0', 'hanging-1', 'hanging-2', 'hanging-3', 'hanging-4']);
    expect(await registry.getSingleMetricAsString('featuregates_controller_slow_reconciles')).toContain('featuregates_controller_slow_reconciles{controller="kind"} 0');
  });

  it('a cluster engaged before its caches listed: nothing of it is queued until they have (its events before are not heard)', async () => {
    const clock = new FakeClock();
    const c = new Controller({ name: 'kind' }, { clock });
    c.start();
    const source = new Source();
    let listed!: () => void;
    const ran: number[] = [];
    c.engage('guest', { watches: [{ source }], initialKeys: ['k'], synced: new Promise<void>((r) => { listed = r; }), reconcile: async () => { ran.push(clock.now()); } });
    source.emit('k');
    c.enqueue('k', 'guest');
    c.lookAgain('guest');
    await clock.advance(1_000);
    expect(ran).toEqual([]);
    expect(source.listeners).toBe(0);
    listed();
    await clock.advance(0);
    expect(ran).toEqual([1_000]);
    expect(source.listeners).toBe(1);
    await c.stop();
  });

  it('lookAgain: a cluster\'s initial keys now, a failing one stays on its backoff', async () => {
    const clock = new FakeClock();
    const c = new Controller({ name: 'kind' }, { clock, rateLimiter: new ItemExponentialLimiter(1_000, 60_000) });
    c.start();
    const times: Record<string, number[]> = { ok: [], failing: [] };
    for (const name of ['ok', 'failing']) {
      c.engage(name, { watches: [], initialKeys: ['k'], reconcile: async () => { times[name]!.push(clock.now()); if (name === 'failing') throw new Error('HTTP 500'); } });
    }
    await clock.advance(10);
    c.lookAgain('ok');
    c.lookAgain('failing');
    await clock.advance(10);
    expect(times).toEqual({ ok: [0, 10], failing: [0] }); // not at once: it stays on its backoff (1 s after its failure)
    await clock.advance(2_000);
    expect(times.failing).toEqual([0, 1_000]);
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
