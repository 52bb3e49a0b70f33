// Sharding the fleet (api-types/shard.ts): stable shard of an HCP, a balanced plan of owners that moves only
// the joining or leaving member's share, and member liveness judged on the observer's monotonic clock.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  MAX_SHARDS, MemberLiveness, fnv1a32, mix32, ownedShards, shardCap, shardCountProblem, shardOf, shardPlan, type MemberRecord,
} from '../../api-types/index.js';

const memberName = fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/);
const STABLE = [2, 3, 4, 6];
const members = fc.uniqueArray(memberName, { minLength: 1, maxLength: 8 });

describe('shardOf', () => {
  it('is FNV-1a 32 (the published test vectors), mixed by murmur3\'s finalizer, modulo the shard count', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
    expect(mix32(0)).toBe(0);
    expect(shardOf('foobar', 32)).toBe(mix32(0xbf9cf968) % 32);
    // Stable across releases: a changed hash would move every HCP to another shard at an upgrade.
    expect([0, 1, 2, 3].map((i) => shardOf(`clusters-hc-${i}/hc-${i}`, 32))).toEqual(STABLE);
  });

  it('refuses a shard count that is not a positive whole number', () => {
    expect(() => shardOf('a/b', 0)).toThrow('shards must be a positive integer, got 0');
    expect(() => shardOf('a/b', 1.5)).toThrow(RangeError);
  });

  it('says what is wrong with a shard count (the CLI and the coordinator refuse with it): whole, from 1 to MAX_SHARDS', () => {
    expect([0, 1.5, -3, 1001, Number.NaN].map(shardCountProblem)).toEqual(Array(5).fill('must be a whole number from 1 to 1000'));
    expect([1, 32, MAX_SHARDS].map(shardCountProblem)).toEqual([undefined, undefined, undefined]);
  });

  it('spreads 500 HCP keys over 32 shards with no shard above 2.5x its share', () => {
    const counts = new Array(32).fill(0) as number[];
    for (let i = 0; i < 500; i++) counts[shardOf(`clusters-hc-${i}/hc-${i}`, 32)]!++;
    expect(Math.max(...counts)).toBeLessThanOrEqual(Math.ceil((500 / 32) * 2.5));
    expect(counts.filter((c) => c === 0)).toHaveLength(0);
  });
});

describe('shardPlan (balanced, moving as little as it can)', () => {
  const shardCount = fc.integer({ min: 1, max: 64 });
  const counts = (plan: (string | undefined)[]) => {
    const c = new Map<string, number>();
    for (const m of plan) if (m !== undefined) c.set(m, (c.get(m) ?? 0) + 1);
    return c;
  };
  const held = (plan: (string | undefined)[]) => new Map(plan.flatMap((m, s) => (m === undefined ? [] : [[s, m] as const])));
  /** Holders of some shards: members, strangers (not live) or nobody. */
  const withHolders = fc.tuple(members, shardCount).chain(([ms, shards]) => fc.tuple(
    fc.constant(ms), fc.constant(shards),
    fc.array(fc.option(fc.constantFrom(...ms, 'gone-replica'), { nil: undefined }), { minLength: shards, maxLength: shards })
      .map((hs) => new Map(hs.flatMap((h, s) => (h === undefined ? [] : [[s, h] as const])))),
  ));

  it('gives every shard one owner among the members, none more than ceil(shards / members), whatever their order', () => {
    fc.assert(fc.property(members, shardCount, (ms, shards) => {
      const plan = shardPlan(shards, ms);
      expect(plan).toHaveLength(shards);
      for (const owner of plan) expect(ms).toContain(owner);
      for (const n of counts(plan).values()) expect(n).toBeLessThanOrEqual(shardCap(shards, ms.length));
      expect(shardPlan(shards, [...ms].reverse())).toEqual(plan);
      expect(ms.flatMap((m) => ownedShards(m, ms, shards)).sort((a, b) => a - b)).toEqual([...Array(shards).keys()]);
    }));
  });

  it('balances 32 shards over the fleet\'s three replicas as 11 / 11 / 10 (rendezvous alone gave 11 / 13 / 8)', () => {
    const plan = shardPlan(32, ['replica-0', 'replica-1', 'replica-2']);
    expect([...counts(plan).values()].sort()).toEqual([10, 11, 11]);
  });

  it('keeps every shard with its live holder while that holder is within its cap, from any holders', () => {
    fc.assert(fc.property(withHolders, ([ms, shards, holders]) => {
      const plan = shardPlan(shards, ms, holders);
      const cap = shardCap(shards, ms.length);
      for (const m of ms) {
        const mine = [...holders].filter(([, h]) => h === m).map(([s]) => s);
        const kept = mine.filter((s) => plan[s] === m);
        expect(kept).toHaveLength(Math.min(mine.length, cap));
      }
      for (const n of counts(plan).values()) expect(n).toBeLessThanOrEqual(cap);
      for (const owner of plan) expect(ms).toContain(owner);
    }));
  });

  it('is a fixed point of its own claims: holders that are part of the plan (kept ones and any new ones) give the same plan', () => {
    fc.assert(fc.property(withHolders, fc.array(fc.boolean(), { minLength: 64, maxLength: 64 }), ([ms, shards, holders], claimed) => {
      const plan = shardPlan(shards, ms, holders);
      // Some of the plan's shards claimed already, the kept ones still held: another replica's view mid-way.
      const partial = new Map([...held(plan)].filter(([s, m]) => claimed[s] || holders.get(s) === m));
      expect(shardPlan(shards, ms, partial)).toEqual(plan);
    }));
  });

  it('a leaving member gives up only its own shards; a joining one moves only the shards over the new cap', () => {
    fc.assert(fc.property(members, memberName, shardCount, (ms, joiner, shards) => {
      fc.pre(!ms.includes(joiner));
      const before = shardPlan(shards, ms);
      const joined = shardPlan(shards, [...ms, joiner], held(before));
      const cap = shardCap(shards, ms.length + 1);
      const over = [...counts(before).values()].reduce((n, c) => n + Math.max(0, c - cap), 0);
      expect(joined.filter((m, s) => m !== before[s])).toHaveLength(over);
      const left = shardPlan(shards, ms, new Map([...held(joined)].filter(([, m]) => m !== joiner)));
      for (let s = 0; s < shards; s++) if (joined[s] !== joiner) expect(left[s]).toBe(joined[s]);
    }));
  });

  it('has no owner without members', () => {
    expect(shardPlan(3, [])).toEqual([undefined, undefined, undefined]);
  });
});

describe('MemberLiveness', () => {
  const rec = (holder: string, version: string, leaseDurationMs = 15_000): MemberRecord => ({ holder, version, leaseDurationMs });

  it('a member is live while its record keeps changing, dead once it has not changed for its lease duration', () => {
    const l = new MemberLiveness();
    expect(l.observe(new Map([['m-a', rec('a', '1')], ['m-b', rec('b', '1')]]), 0)).toEqual(['a', 'b']);
    expect(l.observe(new Map([['m-a', rec('a', '2')], ['m-b', rec('b', '1')]]), 10_000)).toEqual(['a', 'b']);
    // b's record was first seen at 0 and never changed: dead at 15 s; a changed at 10 s: live until 25 s.
    expect(l.observe(new Map([['m-a', rec('a', '2')], ['m-b', rec('b', '1')]]), 15_000)).toEqual(['a']);
    expect(l.live(24_999)).toEqual(['a']);
    expect(l.live(25_000)).toEqual([]);
  });

  it('a released record (empty holder) is gone at once, and a deleted one is forgotten', () => {
    const l = new MemberLiveness();
    l.observe(new Map([['m-a', rec('a', '1')], ['m-b', rec('b', '1')]]), 0);
    expect(l.observe(new Map([['m-a', rec('', '2')], ['m-b', rec('b', '1')]]), 1_000)).toEqual(['b']);
    expect(l.observe(new Map([['m-a', rec('a', '3')]]), 2_000)).toEqual(['a']);
  });

  it('judges by its own observations, not by timestamps in the record: a new observer waits a full lease duration', () => {
    const l = new MemberLiveness();
    // A record renewed long ago (as far as its writer knows) is still live for a lease duration after we first see it.
    expect(l.observe(new Map([['m-x', rec('x', 'stale')]]), 1_000_000)).toEqual(['x']);
    expect(l.live(1_000_000 + 14_999)).toEqual(['x']);
  });
});
