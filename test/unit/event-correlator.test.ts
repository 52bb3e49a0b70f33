// client-go's event correlation: identical events become count patches, similar ones are combined, and
// the spam filter caps what one source sends about one object.
import { describe, expect, it } from '@jest/globals';
import { COMBINED_PREFIX, EventCorrelator } from '../../runtime/index.js';

const ev = (message: string, reason = 'FeatureGateUpdate') => ({ source: 'fgc', object: 'Pod/ns/op', type: 'Normal', reason, message });

describe('EventCorrelator', () => {
  it('100 identical events: 1 create, 24 count patches, the rest dropped by the spam filter', () => {
    const c = new EventCorrelator();
    const actions = { create: 0, patch: 0, drop: 0 };
    let lastCount = 0;
    for (let i = 0; i < 100; i++) {
      const r = c.correlate(ev('FeatureSet="", Version="4.22.1"'), i * 100);
      actions[r.action]++;
      if (r.action === 'create') c.recordSent(r.key, 'op.abc');
      if (r.action === 'patch') { expect(r.name).toBe('op.abc'); lastCount = r.count; }
    }
    expect(actions).toEqual({ create: 1, patch: 24, drop: 75 });
    expect(lastCount).toBe(25);
  });

  it('the spam filter refills one token per 5 minutes', () => {
    const c = new EventCorrelator();
    for (let i = 0; i < 25; i++) expect(c.correlate(ev(`m${i % 3}`), 0).action).not.toBe('drop');
    expect(c.correlate(ev('m'), 1000).action).toBe('drop');
    expect(c.correlate(ev('m'), 300_000).action).not.toBe('drop');
    expect(c.correlate(ev('m'), 300_001).action).toBe('drop');
  });

  it('from the 10th distinct similar message, events are combined into one that is patched', () => {
    const c = new EventCorrelator();
    const out = [];
    for (let i = 0; i < 14; i++) {
      const r = c.correlate(ev(`message ${i}`), i);
      if (r.action === 'create') c.recordSent(r.key, `e${i}`);
      out.push(r);
    }
    expect(out.slice(0, 9).every((r) => r.action === 'create' && !r.message.startsWith(COMBINED_PREFIX))).toBe(true);
    expect(out[9]).toMatchObject({ action: 'create', message: `${COMBINED_PREFIX}message 9` });
    expect(out[10]).toMatchObject({ action: 'patch', name: 'e9', count: 2, message: `${COMBINED_PREFIX}message 10` });
    expect(out[13]).toMatchObject({ action: 'patch', name: 'e9', count: 5 });
  });

  it('other reasons and objects are correlated separately; the similarity window is 10 minutes', () => {
    const c = new EventCorrelator();
    for (let i = 0; i < 9; i++) c.correlate(ev(`a${i}`), 0);
    expect(c.correlate(ev('x', 'Other'), 0)).toMatchObject({ action: 'create', message: 'x' });
    expect(c.correlate({ ...ev('y'), object: 'Pod/ns/other' }, 0)).toMatchObject({ action: 'create', message: 'y' });
    expect(c.correlate(ev('a9'), 600_001)).toMatchObject({ action: 'create', message: 'a9' }); // window expired: not combined
  });

  it('a patch of an Event that is gone creates a new one next time', () => {
    const c = new EventCorrelator();
    const first = c.correlate(ev('m'), 0);
    c.recordSent(first.action === 'create' ? first.key : '', 'e1');
    const second = c.correlate(ev('m'), 1);
    expect(second).toMatchObject({ action: 'patch', name: 'e1' });
    c.forgetSent(second.action === 'patch' ? second.key : '');
    expect(c.correlate(ev('m'), 2)).toMatchObject({ action: 'create' });
  });
});
