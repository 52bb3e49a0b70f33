// FairTurns on a fake clock, attacked as a tenant would: guests whose changes never stop (each asks again the moment
// its turn ran) share a replica's turns with one honest guest, whose one change must come within a round of the line.
import { describe, expect, it } from '@jest/globals';
import { BucketLimiter } from '../../runtime/rate-limiter.js';
import { FairTurns } from '../../runtime/fair-turns.js';
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
});
