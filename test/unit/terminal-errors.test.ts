// The Controller's TerminalError (controller-runtime's terminal error: waited on, not retried with backoff)
// and PacedWatch (a peer's events through one token bucket, then a replica's shared turns), on the fake clock.
import { describe, expect, it } from '@jest/globals';
import { BucketLimiter, Controller, FairTurns, PacedWatch, TerminalError, type WatchSource } from '../../runtime/index.js';
import { FakeClock } from '../support/fake-clock.js';

class Source implements WatchSource {
  private fns = new Set<(n: string) => void>();
  addListener(fn: (n: string) => void) { this.fns.add(fn); return () => this.fns.delete(fn); }
  emit(n: string) { for (const f of [...this.fns]) f(n); }
  get listeners() { return this.fns.size; }
}

describe('Controller with a TerminalError', () => {
  const run = (fail: () => unknown) => {
    const clock = new FakeClock();
    const source = new Source();
    const times: number[] = [];
    const told: unknown[] = [];
    const c = new Controller({
      name: 'ctl', watches: [{ source, keys: () => ['k'] }], initialKeys: ['k'],
      reconcile: async () => { times.push(clock.now()); const e = fail(); if (e) throw e; },
    }, { clock, onReconciled: (_k, e) => told.push(e) });
    c.start();
    return { c, clock, source, times, told };
  };

  it('is not retried with backoff: the key waits for a watched change', async () => {
    const { c, clock, source, times, told } = run(() => new TerminalError('the Secret has no key "kubeconfig"', { reason: 'MissingKubeconfig' }));
    await clock.advance(10 * 60_000);
    expect(times).toEqual([0]);
    expect((told[0] as TerminalError).options.reason).toBe('MissingKubeconfig');
    source.emit('secret');
    await clock.advance(1);
    expect(times).toEqual([0, 10 * 60_000]);
    await c.stop();
  });

  it('wrapped by a reconciler (as a cause) it is still terminal; recheckAfterMs looks again', async () => {
    const { c, clock, times } = run(() => new Error('updating FeatureGate status: …', { cause: new TerminalError('guest down', { recheckAfterMs: 1_000 }) }));
    await clock.advance(2_500);
    expect(times).toEqual([0, 1_000, 2_000]);
    await c.stop();
  });

  // As controller-runtime's: a terminal error neither retries nor forgets the key's failures — only a success does.
  // A hosted guest whose reads flap (a watch it never answers) made every write attempt fail, then be fenced
  // (terminal) while its reads failed: forgetting there reset the write's backoff to 5 ms at each flap.
  it('does not forget the key\'s failures: the next failure goes on with the backoff where it was', async () => {
    const errors = [new Error('HTTP 500'), new Error('HTTP 500'), new TerminalError('guest down'), new Error('HTTP 500'), undefined];
    const { c, clock, source, times } = run(() => errors.shift());
    await clock.advance(100);
    expect(times).toEqual([0, 5, 15]); // 5 ms, 10 ms; then terminal: waits
    source.emit('guest answers');
    await clock.advance(1);
    expect(times).toEqual([0, 5, 15, 100]); // fails again: its third failure, 20 ms
    await clock.advance(18);
    expect(times).toEqual([0, 5, 15, 100]);
    await clock.advance(1);
    expect(times).toEqual([0, 5, 15, 100, 120]);
    await c.stop();
  });

  it('any other error is retried with backoff, and the hook hears success as undefined', async () => {
    let n = 0;
    const { c, clock, times, told } = run(() => (n++ < 2 ? new Error('HTTP 500') : undefined));
    await clock.advance(1_000);
    expect(times).toEqual([0, 5, 15]);
    expect(told.map((e) => (e ? (e as Error).message : 'ok'))).toEqual(['HTTP 500', 'HTTP 500', 'ok']);
    await c.stop();
  });
});

describe('PacedWatch', () => {
  it('delivers a burst at once, then at the bucket\'s pace, each waiting name once; nothing after stop()', async () => {
    const clock = new FakeClock();
    const pacer = new PacedWatch(new BucketLimiter(2, 3, clock), clock);
    const inner = new Source();
    const heard: [number, string][] = [];
    const off = pacer.source(inner).addListener((n) => heard.push([clock.now(), n]));
    for (let i = 0; i < 10; i++) inner.emit(i % 2 ? 'cv' : 'fg');
    expect(heard).toEqual([[0, 'fg'], [0, 'cv'], [0, 'fg']]); // the burst of 3
    await clock.advance(499);
    expect(heard.length).toBe(3);
    await clock.advance(1);
    expect(heard.slice(3)).toEqual([[500, 'cv'], [500, 'fg']]); // the other seven events: two names, one delivery
    for (let i = 0; i < 10; i++) inner.emit('cv');
    await clock.advance(10_000);
    expect(heard.slice(5)).toEqual([[1_000, 'cv']]);
    for (let i = 0; i < 5; i++) inner.emit('fg'); // a burst (the bucket is full again) and a delivery scheduled
    expect(heard.length).toBe(9);
    pacer.stop();
    await clock.advance(10_000);
    expect(heard.length).toBe(9);
    off();
    expect(inner.listeners).toBe(0);
  });

  it('with settled work, a delivery holds its place among shared turns until its work is done, or its pacer stops', async () => {
    const clock = new FakeClock();
    const turns = new FairTurns(new BucketLimiter(1000, 1000, clock), clock, { maxInFlight: 1, holdMs: 60_000 });
    const work = [0, 1, 2].map(() => { let done!: () => void; const p = new Promise<void>((r) => { done = r; }); return { p, done }; });
    const pacers = work.map((w) => new PacedWatch(new BucketLimiter(10, 10, clock), clock, turns, () => w.p));
    const inners = pacers.map(() => new Source());
    const heard: number[] = [];
    pacers.forEach((p, i) => p.source(inners[i]!).addListener(() => heard.push(i)));
    for (const inner of inners) inner.emit('version');
    await clock.advance(0);
    expect(heard).toEqual([0]); // one place: the second waits for the first's work
    work[0]!.done();
    await clock.advance(0);
    expect(heard).toEqual([0, 1]);
    pacers[1]!.stop(); // a guest let go with its work unsettled gives its place back
    await clock.advance(0);
    expect(heard).toEqual([0, 1, 2]);
    work[2]!.done();
    await clock.advance(0);
    expect(turns.inFlight).toBe(0);
  });
});
