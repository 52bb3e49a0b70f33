// What one watch event means for a reflector: the rules are tenant input's first judge (a guest's API server sends
// these events), so each way an event can end a watch is asserted, and nothing past a refusal is decoded.
import { describe, expect, it } from '@jest/globals';
import { ForeignObjectError, WatchTooFast, readWatchEvent, type WatchEventRules } from '../../runtime/cache/watch-event.js';

type Widget = { metadata: { name: string; resourceVersion?: string }; size: number };

function rules(over: Partial<WatchEventRules<Widget>> = {}): WatchEventRules<Widget> & { decoded: number } {
  const r = {
    decoded: 0,
    plural: 'widgets',
    checkAnswer: (raw: unknown) => {
      if ((raw as { kind?: string }).kind !== 'Widget') throw new ForeignObjectError('not a Widget');
    },
    decode: (raw: unknown) => {
      r.decoded++;
      const o = raw as { metadata: { name: string; resourceVersion?: string }; size?: unknown };
      if (typeof o.size !== 'number') throw new Error('.size: not a number');
      return { metadata: o.metadata, size: o.size };
    },
    tooFast: () => undefined,
    ...over,
  };
  return r;
}

const widget = (name: string, rv: string, size: unknown = 1) => ({ kind: 'Widget', metadata: { name, resourceVersion: rv }, size });

describe('readWatchEvent', () => {
  it('a bookmark moves the resource version and says when the initial events end', () => {
    expect(readWatchEvent('BOOKMARK', { metadata: { resourceVersion: '7' } }, rules())).toEqual({ kind: 'bookmark', resourceVersion: '7', initialEventsEnd: false });
    expect(readWatchEvent('BOOKMARK', { metadata: { resourceVersion: '8', annotations: { 'k8s.io/initial-events-end': 'true' } } }, rules()))
      .toEqual({ kind: 'bookmark', resourceVersion: '8', initialEventsEnd: true });
    expect(readWatchEvent('BOOKMARK', null, rules())).toEqual({ kind: 'bookmark', resourceVersion: undefined, initialEventsEnd: false });
  });

  it('an ERROR ends the watch with its code and a bounded, cleaned message', () => {
    const step = readWatchEvent('ERROR', { code: 410, message: `\x1b[2J${'x'.repeat(10_000)}` }, rules());
    expect(step.kind).toBe('end');
    const error = (step as { error: Error & { statusCode?: number } }).error;
    expect(error.statusCode).toBe(410);
    expect(error.message).not.toContain('\x1b');
    expect(error.message.length).toBeLessThan(1_100);
  });

  it('an event of unknown type and an object not asked for end the watch before anything is decoded', () => {
    const r = rules();
    const unknown = readWatchEvent('SURPRISE', widget('a', '1'), r);
    expect(unknown).toEqual({ kind: 'end', error: expect.any(ForeignObjectError) });
    expect((unknown as { error: Error }).error.message).toContain('unknown type "SURPRISE"');
    expect(readWatchEvent('ADDED', { kind: 'Gadget', metadata: { name: 'a', resourceVersion: '2' } }, r)).toEqual({ kind: 'end', error: expect.any(ForeignObjectError) });
    expect(r.decoded).toBe(0);
  });

  it('a change past the rate bound ends the watch undecoded, and keeps the resource version where it was', () => {
    const r = rules({ tooFast: (name) => new WatchTooFast(`${name} too fast`) });
    expect(readWatchEvent('MODIFIED', widget('a', '3'), r)).toEqual({ kind: 'end', error: expect.any(WatchTooFast) });
    expect(r.decoded).toBe(0);
  });

  it('adds and changes are set, deletes delete, each with its resource version; a malformed object is reported, not stored', () => {
    expect(readWatchEvent('ADDED', widget('a', '4', 2), rules())).toEqual({ kind: 'set', name: 'a', object: { metadata: { name: 'a', resourceVersion: '4' }, size: 2 }, resourceVersion: '4' });
    expect(readWatchEvent('DELETED', widget('a', '5'), rules())).toEqual({ kind: 'delete', name: 'a', resourceVersion: '5' });
    expect(readWatchEvent('MODIFIED', widget('a', '6', 'big'), rules())).toEqual({ kind: 'malformed', name: 'a', error: expect.objectContaining({ message: '.size: not a number' }), resourceVersion: '6' });
  });
});
