// What a hosted guest's session says about it (api-types/hosted-guest-report.ts), pure: when a problem is worth a
// Warning, the order problems are told in, when the guest counts as synced, and when its record is written again.
import { describe, expect, it } from '@jest/globals';
import { guestRecord, guestSyncState, nextProblem, orderedProblems, recordIsNews, type GuestObservation, type GuestProblem } from '../../api-types/index.js';

const REPEAT = 600_000;
const problem = (followUp: GuestProblem['followUp'], message = 'the guest does not answer', reason = 'GuestUnreachable'): GuestProblem => ({ reason, message, followUp });

describe('nextProblem: when a Warning is written', () => {
  it('a retried failure: every time', () => {
    const first = nextProblem(undefined, problem('retry', 'HTTP 500'), 1_000, REPEAT);
    const again = nextProblem(first.problem, problem('retry', 'HTTP 500'), 2_000, REPEAT);
    expect([first.warn, again.warn]).toEqual([true, true]);
    expect(again.problem.warnedAt).toBe(2_000);
  });

  it('a problem that waits on its input: when it starts, when its message changes, and once per repeat period while it lasts', () => {
    const start = nextProblem(undefined, problem('notified'), 0, REPEAT);
    expect(start).toEqual({ warn: true, problem: { ...problem('notified'), warnedAt: 0 } });
    const quiet = nextProblem(start.problem, problem('notified'), REPEAT - 1, REPEAT);
    expect(quiet).toEqual({ warn: false, problem: { ...problem('notified'), warnedAt: 0 } }); // the last Warning's time is kept
    expect(nextProblem(quiet.problem, problem('notified'), REPEAT, REPEAT).warn).toBe(true);
    expect(nextProblem(quiet.problem, problem('notified', 'another message'), 10, REPEAT).warn).toBe(true);
  });

  it('a first read not answered yet: never, and it carries no Warning time', () => {
    const p = nextProblem(undefined, problem('pending'), 5, REPEAT);
    expect(p).toEqual({ warn: false, problem: problem('pending') });
    const after = nextProblem(nextProblem(undefined, problem('notified', 'x'), 0, REPEAT).problem, problem('pending', 'y'), 1, REPEAT);
    expect(after.problem.warnedAt).toBeUndefined();
  });
});

describe('orderedProblems', () => {
  it('tells problems in the given order of controllers, any other after them', () => {
    const problems = new Map<string, GuestProblem>([
      ['Unnamed', problem('retry', 'u')], ['B', problem('retry', 'b')], ['A', problem('retry', 'a')],
    ]);
    expect(orderedProblems(problems, ['A', 'B']).map((p) => p.message)).toEqual(['a', 'b', 'u']);
    expect(orderedProblems(new Map(), ['A'])).toEqual([]);
  });
});

describe('guestSyncState', () => {
  it('synced only with nothing wrong and the guest engaged; nothing to say while starting; else the first problem\'s reason', () => {
    expect(guestSyncState([], true)).toEqual({ ok: true });
    expect(guestSyncState([], false)).toBeUndefined();
    expect(guestSyncState([problem('pending', 'm', 'MissingVersion'), problem('retry', 'n', 'WriteFailed')], true)).toEqual({ ok: false, reason: 'MissingVersion' });
  });
});

describe('guestRecord and recordIsNews', () => {
  const observed: GuestObservation = { hcp: 'clusters/a', shard: 3, owner: 'replica-0', desiredVersion: '4.22.1', featureSet: 'Default', versions: ['4.22.1'] };
  const t0 = new Date('2026-12-03T10:00:00Z');
  const later = (ms: number) => new Date(t0.getTime() + ms);

  it('a synced guest: lastSync now, no lastError; Upgradeable as "True" or "<status>: <reason>"', () => {
    expect(guestRecord({ ...observed, upgradeable: { status: 'True', reason: 'AsExpected' } }, [], true, t0, undefined)).toEqual({
      hcp: 'clusters/a', shard: 3, owner: 'replica-0', desiredVersion: '4.22.1', featureSet: 'Default', versions: ['4.22.1'],
      upgradeable: 'True', lastSync: t0.toISOString(),
    });
    expect(guestRecord({ ...observed, upgradeable: { status: 'False' } }, [], true, t0, undefined).upgradeable).toBe('False: ');
  });

  it('a failing guest: keeps the last sync it had, and says each distinct problem once, in order', () => {
    const synced = guestRecord(observed, [], true, t0, undefined);
    const failing = guestRecord(observed, [problem('retry', 'a'), problem('notified', 'b'), problem('retry', 'a')], false, later(1), synced);
    expect(failing.lastSync).toBe(t0.toISOString());
    expect(failing.lastError).toBe('a; b');
    expect(guestRecord(observed, [problem('retry', 'a')], false, t0, undefined).lastSync).toBeUndefined();
  });

  it('a record is written again when it says something new, or when a synced one\'s lastSync is due', () => {
    const synced = guestRecord(observed, [], true, t0, undefined);
    expect(recordIsNews(undefined, synced, 300_000)).toBe(true);
    expect(recordIsNews(synced, guestRecord(observed, [], true, later(299_999), synced), 300_000)).toBe(false);
    expect(recordIsNews(synced, guestRecord(observed, [], true, later(300_000), synced), 300_000)).toBe(true);
    expect(recordIsNews(synced, guestRecord({ ...observed, versions: ['4.22.1', '4.21.3'] }, [], true, later(1), synced), 300_000)).toBe(true);
    const failing = guestRecord(observed, [problem('retry', 'a')], false, later(1), synced);
    expect(recordIsNews(synced, failing, 300_000)).toBe(true);
    expect(recordIsNews(failing, guestRecord(observed, [problem('retry', 'a')], false, later(900_000), failing), 300_000)).toBe(false);
  });
});
