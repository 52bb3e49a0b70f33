// Untrusted text made fit to show: never longer than the bound plus its marker, never a control character,
// and unchanged when it was already fine.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { MAX_UNTRUSTED_MESSAGE_CHARS, boundedText } from '../../api-types/index.js';

// eslint-disable-next-line no-control-regex
const UNSHOWABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

describe('boundedText', () => {
  it('is at most max characters plus the marker, with no control or bidi-override character', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 3000 }), fc.integer({ min: 1, max: 2000 }), (s, max) => {
      const out = boundedText(s, max);
      expect(out.length).toBeLessThanOrEqual(max + `… [${s.length} more characters]`.length);
      expect(out).not.toMatch(UNSHOWABLE);
    }));
  });

  it('leaves showable text within the bound as it is', () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }).filter((s) => !CONTROL.test(s)), (s) => {
      expect(boundedText(s, 200)).toBe(s);
    }));
  });

  it('says how much it cut', () => {
    expect(boundedText('abcdef', 4)).toBe('abcd… [2 more characters]');
    expect(boundedText('a\x1b[2Jb\nc')).toBe('a [2Jb c');
    expect(boundedText('x'.repeat(MAX_UNTRUSTED_MESSAGE_CHARS + 5))).toBe(`${'x'.repeat(MAX_UNTRUSTED_MESSAGE_CHARS)}… [5 more characters]`);
  });
});
