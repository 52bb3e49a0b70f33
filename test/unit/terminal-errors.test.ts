// The Controller's TerminalError (controller-runtime's terminal error: waited on, not retried with backoff), on the
// fake clock. (How a peer's events are paced is the work queue's: work-queue.test.ts.)
import { describe, expect, it } from '@jest/globals';
import { Controller, TerminalError, type WatchSource } from '../../runtime/index.js';
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
      onReconciled: (_k, e) => told.push(e),
    }, { clock });
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
