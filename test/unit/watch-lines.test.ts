// The watch stream's line splitter: lines come out whole and in order wherever the chunks are cut.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { lineSplitter } from '../../runtime/watch-lines.js';

describe('lineSplitter', () => {
  it('yields every complete non-empty line, trimmed, however the text is chunked; a partial last line waits', () => {
    fc.assert(fc.property(fc.array(fc.string().filter((s) => !s.includes('\n') && s.trim() !== '')), fc.array(fc.nat()), (lines, cuts) => {
      const text = `${lines.map((l) => `${l}\n\n`).join('')}partial`;
      const seen: string[] = [];
      const feed = lineSplitter((l) => { seen.push(l); });
      const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
      let from = 0;
      for (const c of [...at, text.length]) { feed(text.slice(from, c)); from = c; }
      expect(seen).toEqual(lines.map((l) => l.trim()));
    }));
  });

  it('stops the rest of a chunk when told to', () => {
    const seen: string[] = [];
    const feed = lineSplitter((l) => { seen.push(l); return l !== 'stop'; });
    feed('a\nstop\nb\n');
    expect(seen).toEqual(['a', 'stop']);
  });
});
