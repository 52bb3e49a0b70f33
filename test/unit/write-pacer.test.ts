// WritePacer: the writes of many writers of one process share a token bucket and a bound on what is in flight, on a
// fake clock (hosted mode: every session's Events and ConfigMaps to the one management API server).
import { describe, expect, it } from '@jest/globals';
import { WritePacer } from '../../hosted/write-pacer.js';
import { FakeClock } from '../support/fake-clock.js';

/** Lets the promise chains run (no time passes). */
const settle = async () => { for (let i = 0; i < 20; i++) await Promise.resolve(); };

/** A pacer of one slot whose first write ('event 1') holds it until `release`. */
function heldPacer(ran: string[]) {
  const clock = new FakeClock();
  const pacer = new WritePacer({ perSecond: 1000, burst: 1000, maxInFlight: 1 }, clock);
  let release!: () => void;
  const first = pacer.run(() => new Promise<void>((resolve) => { ran.push('event 1'); release = resolve; }));
  return { pacer, first, release: () => release() };
}

describe('WritePacer', () => {
  it('lets a burst go at once, then one write per 1/rate seconds, with never more than maxInFlight in flight', async () => {
    const clock = new FakeClock();
    const pacer = new WritePacer({ perSecond: 10, burst: 3, maxInFlight: 2 }, clock);
    let inFlight = 0;
    let peak = 0;
    const started: number[] = [];
    const finish: (() => void)[] = [];
    const write = () => new Promise<void>((resolve) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      started.push(clock.now());
      finish.push(() => { inFlight--; resolve(); });
    });
    const all = Promise.all([...Array(8).keys()].map(() => pacer.run(write)));
    await settle();
    expect(started).toHaveLength(2); // two in flight; the third waits for a slot though it has a token
    finish.shift()!();
    finish.shift()!();
    await settle();
    expect(started).toHaveLength(3); // the burst's last token; the fourth waits 100 ms for its own
    finish.shift()!();
    await settle();
    expect(started).toHaveLength(3);
    for (let i = 0; i < 5; i++) {
      await clock.advance(100);
      await settle();
      expect(started).toHaveLength(4 + i);
      finish.shift()!();
      await settle();
    }
    await all;
    expect(peak).toBe(2);
    expect(started.slice(3)).toEqual([100, 200, 300, 400, 500].map((t) => started[0]! + t));
  });

  it('a write that fails frees its slot and passes its error on', async () => {
    const clock = new FakeClock();
    const pacer = new WritePacer({ perSecond: 10, burst: 10, maxInFlight: 1 }, clock);
    await expect(pacer.run(async () => { throw new Error('refused'); })).rejects.toThrow('refused');
    await expect(pacer.run(async () => 'sent')).resolves.toBe('sent');
  });

  it('a write given up before its turn is never run, and frees nothing it did not hold', async () => {
    const clock = new FakeClock();
    const pacer = new WritePacer({ perSecond: 1, burst: 1, maxInFlight: 1 }, clock);
    const ran: string[] = [];
    let release!: () => void;
    const first = pacer.run(() => new Promise<void>((resolve) => { ran.push('first'); release = resolve; }));
    const abort = new AbortController();
    const second = pacer.run(async () => { ran.push('second'); }, abort.signal);
    const third = pacer.run(async () => { ran.push('third'); });
    await settle();
    abort.abort(new Error('session stopped'));
    await expect(second).rejects.toThrow('session stopped');
    release();
    await first;
    await clock.advance(1_000);
    await third;
    expect(ran).toEqual(['first', 'third']);
  });

  it('a state write (the ConfigMap) goes ahead of every Event still waiting for its slot, and Events keep their order', async () => {
    const ran: string[] = [];
    const { pacer, first, release } = heldPacer(ran);
    const queued = [
      pacer.run(async () => { ran.push('event 2'); }),
      pacer.run(async () => { ran.push('event 3'); }),
      pacer.run(async () => { ran.push('configmap a'); }, undefined, 'state'),
      pacer.run(async () => { ran.push('event 4'); }, undefined, 'notice'),
      pacer.run(async () => { ran.push('configmap b'); }, undefined, 'state'),
    ];
    await settle();
    expect(ran).toEqual(['event 1']);
    release();
    await Promise.all([first, ...queued]);
    expect(ran).toEqual(['event 1', 'configmap a', 'configmap b', 'event 2', 'event 3', 'event 4']);
  });

  it('a state write given up before its turn leaves the Events behind it their turns', async () => {
    const ran: string[] = [];
    const { pacer, first, release } = heldPacer(ran);
    const event = pacer.run(async () => { ran.push('event 2'); });
    const abort = new AbortController();
    const state = pacer.run(async () => { ran.push('configmap'); }, abort.signal, 'state');
    await settle();
    abort.abort(new Error('session stopped'));
    await expect(state).rejects.toThrow('session stopped');
    release();
    await Promise.all([first, event]);
    expect(ran).toEqual(['event 1', 'event 2']);
  });
});
