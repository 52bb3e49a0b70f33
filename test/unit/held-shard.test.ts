// HeldShard's fence across a lapse (hosted/shards.ts: a shard whose renewal came late keeps its guests and is claimed
// again): a write refused meanwhile is remembered, so the coordinator makes the shard's sessions look again when the
// shard is held again (a refused write is dropped by its controller, not retried).
import { describe, expect, it } from '@jest/globals';
import { HeldShard } from '../../hosted/held-shard.js';
import { NotLeaderError } from '../../runtime/index.js';

/** A Lease fence that holds while `held.now` is true. */
function leaseFence(held: { now: boolean }): () => void {
  return () => {
    if (!held.now) throw new NotLeaderError('not the leader of Lease ns/featuregates-hosted-shard-03: write refused');
  };
}

describe('HeldShard fence', () => {
  it('passes while the Lease is held, refuses after, and goes on under the fence of the shard held again', () => {
    const first = { now: true };
    const h = new HeldShard(3, leaseFence(first));
    expect(() => h.fence()).not.toThrow();
    first.now = false;
    expect(() => h.fence()).toThrow(NotLeaderError);
    const again = { now: true };
    expect(h.resume(leaseFence(again))).toBe(true); // a write was refused meanwhile: the sessions look again
    expect(() => h.fence()).not.toThrow(); // the old Lease's fence is not consulted any more
    again.now = false;
    expect(() => h.fence()).toThrow(NotLeaderError);
  });

  it('a lapse in which nothing was written needs no second look', () => {
    const first = { now: true };
    const h = new HeldShard(3, leaseFence(first));
    h.fence();
    first.now = false; // lapsed, but no write came
    expect(h.resume(leaseFence({ now: true }))).toBe(false);
    // What was refused is told once: the next resume starts from nothing refused.
    const third = { now: false };
    expect(() => h.fence()).not.toThrow();
    expect(h.resume(leaseFence(third))).toBe(false);
    expect(() => h.fence()).toThrow(NotLeaderError);
    expect(h.resume(leaseFence({ now: true }))).toBe(true);
    expect(h.resume(leaseFence({ now: true }))).toBe(false);
  });
});
