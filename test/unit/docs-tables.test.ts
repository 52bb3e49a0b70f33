// Markdown tables in the docs stay whole: a row may only follow a header, its separator or another row (a
// paragraph inside a table, as docs/standalone.md once had, turns the rows after it into plain text).
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const files = ['README.md', ...readdirSync('docs').filter((f) => f.endsWith('.md')).map((f) => join('docs', f))];

function strayRows(text: string): string[] {
  const lines = text.split('\n');
  const out: string[] = [];
  let fenced = false;
  lines.forEach((line, i) => {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced || !line.startsWith('|')) return;
    const prev = lines[i - 1] ?? '';
    const next = lines[i + 1] ?? '';
    const startsTable = /^\|[\s:|-]+\|$/.test(next.trim()) && next.includes('---');
    if (!prev.startsWith('|') && !startsTable) out.push(`line ${i + 1}: ${line.slice(0, 80)}`);
  });
  return out;
}

describe('docs tables', () => {
  it.each(files)('%s: every table row belongs to a table', (f) => {
    expect(strayRows(readFileSync(f, 'utf8'))).toEqual([]);
  });

  it('finds a row cut off from its table', () => {
    expect(strayRows('| a | b |\n| --- | --- |\n| 1 | 2 |\n\nA paragraph.\n| 3 | 4 |\n')).toEqual(['line 6: | 3 | 4 |']);
  });
});
