// The watch stream's line splitter: lines come out whole and in order wherever the chunks are cut (bytes of one
// UTF-8 character included), and a line longer than the bound ends the stream instead of growing the buffer.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { lineSplitter } from '../../runtime/rest/watch-lines.js';

const never = () => { throw new Error('no line is too long here'); };

describe('lineSplitter', () => {
  it('yields every complete non-empty line, trimmed, however the bytes are chunked; a partial last line waits', () => {
    fc.assert(fc.property(fc.array(fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\n') && s.trim() !== '')), fc.array(fc.nat()), (lines, cuts) => {
      const bytes = Buffer.from(`${lines.map((l) => `${l}\n\n`).join('')}partial`, 'utf8');
      const seen: string[] = [];
      const feed = lineSplitter(1 << 20, never, (l) => { seen.push(l); });
      const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
      let from = 0;
      for (const c of [...at, bytes.length]) { feed(bytes.subarray(from, c)); from = c; }
      expect(seen).toEqual(lines.map((l) => l.trim()));
    }));
  });

  it('with prefixes, yields exactly the lines that start with one (after spaces, tabs, CRs), however chunked, and decodes no other', () => {
    const word = fc.stringMatching(/^[ \tab_{é\r]{0,12}$/);
    fc.assert(fc.property(fc.array(word), fc.array(fc.nat()), (lines, cuts) => {
      const prefixes = ['ab_', 'é{'];
      const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8');
      const seen: string[] = [];
      const feed = lineSplitter(1 << 20, never, (l) => { seen.push(l); }, prefixes);
      const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
      let from = 0;
      for (const c of [...at, bytes.length]) { feed(bytes.subarray(from, c)); from = c; }
      const expected = lines.filter((l) => prefixes.some((p) => l.replace(/^[ \t\r]*/, '').startsWith(p))).map((l) => l.trim()).filter(Boolean);
      expect(seen).toEqual(expected);
    }));
    // The bound still holds for a dropped line.
    let tooLong = 0;
    const feed = lineSplitter(10, () => { tooLong++; }, never, ['kube']);
    feed(`other ${'x'.repeat(20)}\n`);
    expect(tooLong).toBe(1);
  });

  it('stops the stream when told to', () => {
    const seen: string[] = [];
    const feed = lineSplitter(100, never, (l) => { seen.push(l); return l !== 'stop'; });
    feed('a\nstop\nb\n');
    feed('c\n');
    expect(seen).toEqual(['a', 'stop']);
  });

  it('a line over the bound is reported once and nothing more is read, whether it arrives in one chunk or many', () => {
    for (const chunkSize of [1, 7, 64, 1000]) {
      const seen: string[] = [];
      let tooLong = 0;
      const feed = lineSplitter(50, () => { tooLong++; }, (l) => { seen.push(l); });
      const text = Buffer.from(`ok\n${'x'.repeat(51)}\nlater\n`);
      for (let i = 0; i < text.length; i += chunkSize) feed(text.subarray(i, i + chunkSize));
      expect(seen).toEqual(['ok']);
      expect(tooLong).toBe(1);
    }
  });

  it('a line of exactly the bound passes', () => {
    const seen: string[] = [];
    const feed = lineSplitter(50, never, (l) => { seen.push(l); });
    feed(`${'y'.repeat(25)}`);
    feed(`${'y'.repeat(25)}\n`);
    expect(seen).toEqual(['y'.repeat(50)]);
  });

  it('a newline-free stream of 8 MiB in 16 KiB chunks holds at most the bound (it stops at the bound, not at the end)', () => {
    let fedAfterStop = 0;
    let stopped = false;
    const feed = lineSplitter(3 * 1024 * 1024, () => { stopped = true; }, never);
    const chunk = Buffer.alloc(16 * 1024, 0x61);
    for (let i = 0; i < 512; i++) {
      if (stopped) fedAfterStop++;
      feed(chunk);
    }
    expect(stopped).toBe(true);
    expect(fedAfterStop).toBe(512 - 193); // the 193rd chunk passes 3 MiB (192 × 16 KiB is exactly 3 MiB)
  });
});
