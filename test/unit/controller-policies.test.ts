// What a controller spec declares instead of writing it in every reconciler (library-go's factory: ResyncEvery,
// WithSyncDegradedOnError; controller-runtime's conflict handling), run by the real Controller on a fake clock.
import { describe, expect, it } from '@jest/globals';
import { NotLeaderError, TerminalError, singleKeyController, type ReconcileResult, type WatchSource } from '../../runtime/index.js';
import { runOnFakeClock } from '../support/controller-run.js';

class Source implements WatchSource {
  private fns = new Set<(n: string) => void>();
  addListener(fn: (n: string) => void) { this.fns.add(fn); return () => this.fns.delete(fn); }
  emit(n: string) { for (const f of [...this.fns]) f(n); }
}

const conflict = () => Object.assign(new Error('the object has been modified'), { code: 409 });

describe('declared controller policies', () => {
  it('resyncEveryMs looks again after a reconcile that asked for nothing, and never overrides one that asked', async () => {
    const results: (ReconcileResult | undefined)[] = [undefined, {}, { requeueAfterMs: 7 }, { requeue: true }];
    const spec = singleKeyController({ name: 'ctl', key: 'k', sources: [], resyncEveryMs: 1_000, reconcile: async () => results.shift() });
    const { controller, clock, times } = await runOnFakeClock(spec);
    await clock.advance(1_000); // undefined → resync
    await clock.advance(1_000); // {} → resync
    await clock.advance(7); // its own 7 ms
    await clock.advance(5); // requeue: the rate limiter's first step (5 ms), not the resync
    expect(times).toEqual([0, 1_000, 2_000, 2_007, 2_012]);
    await controller.stop();
  });

  it('degradedOnError is told each failure\'s message, undefined after a success or a conflict (wrapped or not)', async () => {
    const told: (string | undefined)[] = [];
    const outcomes: (() => unknown)[] = [
      () => new Error('payload broken'), () => undefined, () => conflict(), () => new Error('updating status: HTTP 409', { cause: conflict() }),
    ];
    const spec = singleKeyController({
      name: 'ctl', key: 'k', sources: [], resyncEveryMs: 1_000, degradedOnError: (m) => told.push(m),
      reconcile: async () => { const e = outcomes.shift()?.(); if (e) throw e; return {}; },
    });
    const { controller, clock } = await runOnFakeClock(spec);
    await clock.advance(5); // the retry after the failure
    await clock.advance(1_000); // the resync after the success: a conflict
    await clock.advance(10); // its retry: the wrapped conflict
    expect(told).toEqual(['payload broken', undefined, undefined, undefined]);
    await controller.stop();
  });

  it('degradedOnError is not told of a write the leader fence refused, of a pending TerminalError, nor of a reconcile stop() ended', async () => {
    const told: (string | undefined)[] = [];
    const source = new Source();
    let release: () => void = () => undefined;
    const outcomes: (() => Promise<unknown>)[] = [
      async () => new Error('write refused', { cause: new NotLeaderError('not the leader') }),
      async () => new TerminalError('the guest has not answered yet', { pending: true }),
      () => new Promise<unknown>((resolve) => { release = () => resolve(new Error('aborted: controller stopping')); }),
    ];
    const spec = singleKeyController({
      name: 'ctl', key: 'k', sources: [source], degradedOnError: (m) => told.push(m),
      reconcile: async () => { const e = await outcomes.shift()?.(); if (e) throw e; return {}; },
    });
    const { controller, clock, times } = await runOnFakeClock(spec);
    source.emit('x');
    await clock.advance(0);
    source.emit('x');
    await clock.advance(0);
    expect(times).toEqual([0, 0, 0]);
    const stopped = controller.stop();
    release();
    await stopped;
    expect(told).toEqual([]);
  });

  it('singleKeyController: the start and a change of any of its sources enqueue its one key', async () => {
    const keys: string[] = [];
    const a = new Source();
    const b = new Source();
    const spec = singleKeyController({ name: 'ctl', key: 'cluster', sources: [a, b], reconcile: async (k) => { keys.push(k); return {}; } });
    expect(spec.initialKeys).toEqual(['cluster']);
    const { controller, clock } = await runOnFakeClock(spec);
    a.emit('something-else');
    await clock.advance(0);
    b.emit('another');
    await clock.advance(0);
    expect(keys).toEqual(['cluster', 'cluster', 'cluster']);
    await controller.stop();
  });
});
