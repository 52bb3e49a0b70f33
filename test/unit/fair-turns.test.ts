// FairTurns on a fake clock, attacked as a tenant would: guests whose changes never stop (each asks again the moment
// its turn ran) share a replica's turns with one honest guest, whose one change must come within a round of the line.
import { describe, expect, it } from '@jest/globals';
import { BucketLimiter } from '../../runtime/util/rate-limiter.js';
import { FairTurns } from '../../hosted/fair-turns.js';
import { FakeClock } from '../support/fake-clock.js';

describe('FairTurns', () => {
  it('a burst at once, then one turn per 1/rate seconds, in the order asked', async () => {
    const clock = new FakeClock();
    const turns = new FairTurns(new BucketLimiter(10, 2, clock), clock);
    const ran: string[] = [];
    for (const n of ['a', 'b', 'c', 'd']) turns.ask(() => ran.push(n));
    await clock.advance(0);
    expect(ran).toEqual(['a', 'b']);
    await clock.advance(100);
    expect(ran).toEqual(['a', 'b', 'c']);
    await clock.advance(100);
    expect(ran).toEqual(['a', 'b', 'c', 'd']);
  });

  it('20 guests that never stop asking cannot keep an honest guest waiting longer than one round of the line', async () => {
    const clock = new FakeClock();
    const turns = new FairTurns(new BucketLimiter(25, 10, clock), clock);
    let hostileTurns = 0;
    const hostile = () => turns.ask(() => { hostileTurns++; hostile(); });
    for (let i = 0; i < 20; i++) hostile();
    await clock.advance(60_000); // a minute of it: the bucket's pace, no debt built up
    expect(hostileTurns).toBeGreaterThanOrEqual(10 + 25 * 60 - 1);
    expect(turns.waiting).toBe(20);
    let honestAt: number | undefined;
    const askedAt = clock.now();
    turns.ask(() => { honestAt = clock.now(); });
    for (let i = 0; i < 21 && honestAt === undefined; i++) await clock.advance(40);
    expect(honestAt).toBeDefined();
    expect(honestAt! - askedAt).toBeLessThanOrEqual(21 * 40);
  });

  it('with places, a turn holds one until the work it started has settled: at most maxInFlight at once, the next as one ends', async () => {
    const clock = new FakeClock();
    const turns = new FairTurns(new BucketLimiter(1000, 1000, clock), clock, { maxInFlight: 2, holdMs: 2_000 });
    const settle = new Map<string, () => void>();
    const ran: string[] = [];
    for (const n of ['a', 'b', 'c', 'd']) turns.ask(() => { ran.push(n); return new Promise<void>((resolve) => settle.set(n, resolve)); });
    await clock.advance(0);
    expect(ran).toEqual(['a', 'b']);
    await clock.advance(500);
    expect(ran).toEqual(['a', 'b']); // the bucket has tokens; the places are taken
    settle.get('b')!();
    await clock.advance(0);
    expect(ran).toEqual(['a', 'b', 'c']);
    expect(turns.inFlight).toBe(2);
    settle.get('a')!();
    settle.get('c')!();
    await clock.advance(0);
    expect(ran).toEqual(['a', 'b', 'c', 'd']);
    settle.get('d')!();
    await clock.advance(0);
    expect(turns.inFlight).toBe(0);
    expect(clock.pending).toBe(0); // no hold timer outlives its turn
  });

  it('a turn whose work never settles gives its place back after holdMs; one that throws gives it back at once', async () => {
    const clock = new FakeClock();
    const turns = new FairTurns(new BucketLimiter(1000, 1000, clock), clock, { maxInFlight: 1, holdMs: 2_000 });
    const ran: string[] = [];
    turns.ask(() => { ran.push('never'); return new Promise<void>(() => undefined); });
    turns.ask(() => { ran.push('throws'); return Promise.reject(new Error('boom')); });
    turns.ask(() => { ran.push('last'); });
    await clock.advance(1_999);
    expect(ran).toEqual(['never']);
    await clock.advance(1);
    expect(ran).toEqual(['never', 'throws', 'last']);
  });

  it('16 places held by guests whose work never settles: an honest guest still gets its turn within a round of holds', async () => {
    // A tenant's guest can accept a write and never answer: its turn holds a place until holdMs. 40 such guests asking
    // again the moment their turn ran, 16 places: the honest guest waits at most ceil(40 / 16) holds.
    const clock = new FakeClock();
    const turns = new FairTurns(new BucketLimiter(100, 10, clock), clock, { maxInFlight: 16, holdMs: 2_000 });
    const hostile = () => turns.ask(() => { hostile(); return new Promise<void>(() => undefined); });
    for (let i = 0; i < 40; i++) hostile();
    await clock.advance(30_000);
    let honestAt: number | undefined;
    const askedAt = clock.now();
    turns.ask(() => { honestAt = clock.now(); });
    for (let i = 0; i < 100 && honestAt === undefined; i++) await clock.advance(100);
    expect(honestAt).toBeDefined();
    expect(honestAt! - askedAt).toBeLessThanOrEqual(Math.ceil(41 / 16) * 2_000 + 500);
  });
});
