// The keyed work queue's client-go semantics and the backoff.
import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { Backoff, WorkQueue } from '../../runtime/index.js';

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

describe('WorkQueue', () => {
  it('queues a waiting key once however often it is added', async () => {
    const seen: string[] = [];
    let release!: () => void;
    const blocked = new Promise<void>((r) => { release = r; });
    const q = new WorkQueue('t', async (k) => { seen.push(k); if (k === 'busy') await blocked; }, { concurrency: 1 });
    q.add('busy'); // occupies the only worker, so a and b wait in the queue
    for (let i = 0; i < 10; i++) { q.add('a'); q.add('b'); }
    expect(q.length).toBe(3);
    release();
    await tick(10);
    await q.idle();
    expect(seen).toEqual(['busy', 'a', 'b']);
    await q.shutDown();
  });

  it('never processes a key twice at once, and processes it again if re-added while in flight', async () => {
    let running = 0;
    let maxRunning = 0;
    let calls = 0;
    let release!: () => void;
    const q = new WorkQueue('t', async () => {
      calls++;
      running++;
      maxRunning = Math.max(maxRunning, running);
      if (calls === 1) await new Promise<void>((r) => { release = r; });
      running--;
    }, { concurrency: 4 });
    q.add('k');
    await tick(5);
    q.add('k');
    q.add('k');
    await tick(5);
    expect(calls).toBe(1);
    release();
    await tick(20);
    await q.idle();
    expect(calls).toBe(2);
    expect(maxRunning).toBe(1);
    await q.shutDown();
  });

  it('retries failures with per-key exponential backoff, forgets on success, and counts it', async () => {
    const times: number[] = [];
    const registry = new Registry();
    const q = new WorkQueue('retry', async () => {
      times.push(Date.now());
      if (times.length < 4) throw new Error('not yet');
    }, { baseDelayMs: 20, maxDelayMs: 1000, metrics: registry });
    q.add('k');
    const deadline = Date.now() + 3000;
    while (times.length < 4 && Date.now() < deadline) await tick(10);
    expect(times).toHaveLength(4);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    expect(gaps[0]).toBeGreaterThanOrEqual(18);
    expect(gaps[1]).toBeGreaterThanOrEqual(38);
    expect(gaps[2]).toBeGreaterThanOrEqual(78);
    const text = await registry.metrics();
    expect(text).toMatch(/workqueue_retries_total\{name="retry",controller="retry"\} 3/);
    expect(text).toMatch(/controller_runtime_reconcile_total\{controller="retry",result="error"\} 3/);
    expect(text).toMatch(/controller_runtime_reconcile_total\{controller="retry",result="success"\} 1/);
    await q.shutDown();
  });

  it('honours requeueAfterMs and stops cleanly', async () => {
    let n = 0;
    const q = new WorkQueue('t', async () => { n++; return { requeueAfterMs: 10 }; });
    q.add('k');
    await tick(60);
    await q.shutDown();
    const after = n;
    expect(after).toBeGreaterThanOrEqual(3);
    await tick(40);
    expect(n).toBe(after);
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
