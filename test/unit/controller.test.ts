// The Controller over the work queue: controller-runtime's result handling (errors and conflicts through the rate
// limiter, requeues), clusters engaged and disengaged on one controller, its workers and the leader fence (fake clock
// for the delays).
import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { Controller, ItemExponentialLimiter, NotLeaderError, type ReconcileResult, type WatchSource } from '../../runtime/index.js';
import { FakeClock } from '../support/fake-clock.js';

const conflict = () => Object.assign(new Error('conflict'), { code: 409 });

class Source implements WatchSource {
  private fns = new Set<(n: string) => void>();
  addListener(fn: (n: string) => void) { this.fns.add(fn); return () => this.fns.delete(fn); }
  emit(n: string) { for (const f of this.fns) f(n); }
  get listeners() { return this.fns.size; }
}

async function eventuallyTrue(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !ok(); i++) await new Promise((r) => setImmediate(r));
  expect(ok()).toBe(true);
}

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
