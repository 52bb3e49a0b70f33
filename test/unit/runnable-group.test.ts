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
