// Sharding the fleet (api-types/shard.ts): stable shard of an HCP, rendezvous ownership that moves only
// the joining or leaving member's share, and member liveness judged on the observer's monotonic clock.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { MAX_SHARDS, MemberLiveness, fnv1a32, mix32, ownedShards, shardCountProblem, shardOf, shardOwner, type MemberRecord } from '../../api-types/index.js';

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

describe('shardOwner (rendezvous hashing)', () => {
  it('every shard has exactly one owner among the members, whatever their order', () => {
    fc.assert(fc.property(members, fc.integer({ min: 1, max: 64 }), (ms, shards) => {
      const reversed = [...ms].reverse();
      const total = ms.reduce((n, m) => n + ownedShards(m, ms, shards).length, 0);
      expect(total).toBe(shards);
      for (let s = 0; s < shards; s++) {
        expect(ms).toContain(shardOwner(s, ms));
        expect(shardOwner(s, reversed)).toBe(shardOwner(s, ms));
      }
    }));
  });

  it('a joining member takes shards only for itself; a leaving one gives up only its own', () => {
    fc.assert(fc.property(members, memberName, (ms, joiner) => {
      fc.pre(!ms.includes(joiner));
      const after = [...ms, joiner];
      for (let s = 0; s < 32; s++) {
        const was = shardOwner(s, ms);
        const now = shardOwner(s, after);
        if (now !== was) expect(now).toBe(joiner);
        // Leaving is the same move backwards.
        if (was !== now) expect(shardOwner(s, after.filter((m) => m !== joiner))).toBe(was);
      }
    }));
  });

  it('has no owner without members', () => {
    expect(shardOwner(3, [])).toBeUndefined();
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
