// The runnable groups a long-running process stops in one place: the reverse of the declared order, one group's
// members together, nothing started once stopping, a failed stop logged while the rest still stop.
import { describe, expect, it } from '@jest/globals';
import { RunnableGroups, createLogger } from '../../runtime/index.js';

function recorder() {
  const events: string[] = [];
  const runnable = (name: string, stop: () => Promise<void> | void = () => undefined) => ({
    start: () => { events.push(`start ${name}`); },
    stop: async () => { events.push(`stop ${name}`); await stop(); events.push(`stopped ${name}`); },
  });
  return { events, runnable };
}

describe('RunnableGroups', () => {
  it('starts a runnable when added and stops the groups in reverse order, each group\'s members together', async () => {
    const { events, runnable } = recorder();
    const groups = new RunnableGroups(['serving', 'caches', 'controllers'] as const);
    groups.add('serving', runnable('endpoint'));
    groups.add('caches', runnable('a'));
    groups.add('caches', runnable('b', () => new Promise((r) => setTimeout(r, 20))));
    groups.add('controllers', runnable('ctl'));
    expect(events).toEqual(['start endpoint', 'start a', 'start b', 'start ctl']);
    events.length = 0;
    await groups.stopAndWait();
    expect(events).toEqual(['stop ctl', 'stopped ctl', 'stop a', 'stop b', 'stopped a', 'stopped b', 'stop endpoint', 'stopped endpoint']);
  });

  it('once stopping, takes nothing more and starts nothing; a second stop waits for the same one', async () => {
    const { events, runnable } = recorder();
    const groups = new RunnableGroups(['caches', 'controllers'] as const);
    const first = groups.stopAndWait();
    expect(groups.add('controllers', runnable('late'))).toBe(false);
    expect(groups.stopAndWait()).toBe(first);
    await first;
    expect(events).toEqual([]);
  });

  it('a group stopped on its own takes no more, while the others run on until the whole stop', async () => {
    const { events, runnable } = recorder();
    const groups = new RunnableGroups(['caches', 'controllers'] as const);
    groups.add('caches', runnable('cache'));
    groups.add('controllers', runnable('ctl'));
    await groups.stopGroup('controllers');
    expect(groups.add('controllers', runnable('after-lost-lease'))).toBe(false);
    expect(groups.add('caches', runnable('cache-2'))).toBe(true);
    await groups.stopAndWait();
    expect(events.filter((e) => e.startsWith('stop '))).toEqual(['stop ctl', 'stop cache', 'stop cache-2']);
  });

  it('a runnable that fails to stop is logged, and every other one still stops', async () => {
    const { events, runnable } = recorder();
    const lines: string[] = [];
    const groups = new RunnableGroups(['caches', 'controllers'] as const, createLogger({ write: (l) => lines.push(l), format: 'json' }));
    groups.add('caches', runnable('cache'));
    groups.add('controllers', runnable('broken', () => { throw new Error('socket already closed'); }));
    groups.add('controllers', runnable('ctl'));
    await groups.stopAndWait();
    expect(events.filter((e) => e.startsWith('stopped '))).toEqual(['stopped ctl', 'stopped cache']);
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([expect.objectContaining({ msg: 'a runnable failed to stop', group: 'controllers', error: 'socket already closed' })]);
  });
});

describe('RunnableGroups: runnables that need the leader', () => {
  const deferred = () => {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => { resolve = r; });
    return { promise, resolve };
  };
  const turn = () => new Promise((r) => setImmediate(r));

  it('with leader election, one that needs the leader waits for lead() and for every cache to list; the others start when added', async () => {
    const { events, runnable } = recorder();
    const groups = new RunnableGroups(['serving', 'caches', 'controllers'] as const, undefined, { leaderElection: true });
    const listedA = deferred();
    const listedB = deferred();
    groups.add('serving', runnable('endpoint'));
    groups.add('caches', { ...runnable('a'), synced: listedA.promise });
    groups.add('caches', { ...runnable('b'), synced: listedB.promise });
    groups.add('controllers', { ...runnable('status'), needLeaderElection: true });
    groups.add('controllers', { ...runnable('upgradeable'), needLeaderElection: true });
    groups.add('controllers', runnable('not-elected'));
    expect(events).toEqual(['start endpoint', 'start a', 'start b', 'start not-elected']);
    listedA.resolve();
    listedB.resolve();
    await turn();
    expect(events).toEqual(['start endpoint', 'start a', 'start b', 'start not-elected']); // the caches listed, the Lease not won
    const led = groups.lead();
    await led;
    expect(events.slice(4)).toEqual(['start status', 'start upgradeable']);
    groups.add('controllers', { ...runnable('late'), needLeaderElection: true });
    expect(events.slice(6)).toEqual(['start late']); // leading and listed: at once
    await groups.stopAndWait();
  });

  it('leading before the caches list, the waiting ones start after the last cache, a cache added meanwhile included, in the order added', async () => {
    const { events, runnable } = recorder();
    const lines: string[] = [];
    const groups = new RunnableGroups(['caches', 'controllers'] as const, createLogger({ write: (l) => lines.push(l), format: 'json' }), { leaderElection: true });
    const first = deferred();
    const second = deferred();
    groups.add('caches', { ...runnable('first'), synced: first.promise });
    groups.add('controllers', { ...runnable('one'), needLeaderElection: true });
    const led = groups.lead();
    first.resolve();
    groups.add('caches', { ...runnable('second'), synced: second.promise });
    groups.add('controllers', { ...runnable('two'), needLeaderElection: true });
    await turn();
    expect(events).toEqual(['start first', 'start second']);
    second.resolve();
    await led;
    expect(events).toEqual(['start first', 'start second', 'start one', 'start two']);
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['caches synced']);
    await groups.stopAndWait();
  });

  it('without leader election, it starts once the caches have listed, and at once when they have', async () => {
    const { events, runnable } = recorder();
    const groups = new RunnableGroups(['caches', 'controllers'] as const);
    const listed = deferred();
    groups.add('caches', { ...runnable('cache'), synced: listed.promise });
    groups.add('controllers', { ...runnable('ctl'), needLeaderElection: true });
    expect(events).toEqual(['start cache']);
    listed.resolve();
    await turn();
    expect(events).toEqual(['start cache', 'start ctl']);
    groups.add('controllers', { ...runnable('next'), needLeaderElection: true });
    expect(events).toEqual(['start cache', 'start ctl', 'start next']);
    await groups.stopAndWait();
  });

  it('one still waiting when the process stops, or when its group is stopped (the Lease lost), is let go unstarted and unstopped', async () => {
    const { events, runnable } = recorder();
    const groups = new RunnableGroups(['caches', 'controllers', 'reporting'] as const, undefined, { leaderElection: true });
    const listed = deferred();
    groups.add('caches', { ...runnable('cache'), synced: listed.promise });
    groups.add('controllers', { ...runnable('ctl'), needLeaderElection: true });
    groups.add('reporting', { ...runnable('report'), needLeaderElection: true });
    const led = groups.lead();
    await groups.stopGroup('controllers');
    listed.resolve();
    await led;
    expect(events).toEqual(['start cache', 'start report']);
    const stopping = groups.stopAndWait();
    expect(groups.add('reporting', { ...runnable('after'), needLeaderElection: true })).toBe(false);
    await stopping;
    expect(events).toEqual(['start cache', 'start report', 'stop report', 'stopped report', 'stop cache', 'stopped cache']);

    const other = new RunnableGroups(['caches', 'controllers'] as const, undefined, { leaderElection: true });
    const never = deferred();
    other.add('caches', { ...runnable('cache-2'), synced: never.promise });
    other.add('controllers', { ...runnable('ctl-2'), needLeaderElection: true });
    const led2 = other.lead();
    await other.stopAndWait();
    never.resolve();
    await led2;
    expect(events.filter((e) => e.endsWith('ctl-2'))).toEqual([]);
  });

  it('a cache that fails to list is logged and the runnables that need the leader are not started', async () => {
    const { events, runnable } = recorder();
    const lines: string[] = [];
    const groups = new RunnableGroups(['caches', 'controllers'] as const, createLogger({ write: (l) => lines.push(l), format: 'json' }));
    groups.add('caches', { ...runnable('cache'), synced: Promise.reject(new Error('forbidden')) });
    groups.add('controllers', { ...runnable('ctl'), needLeaderElection: true });
    await groups.lead();
    expect(events).toEqual(['start cache']);
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([expect.objectContaining({ msg: expect.stringContaining('a cache failed to list'), error: 'forbidden' })]);
    await groups.stopAndWait();
  });
});
