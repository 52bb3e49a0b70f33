// docs/cli.md and docs/gate-rules.md show real output: every `$ featuregates …` in their console blocks that reads only payload
// folders or flags (explain, diff, preview, manifests, preflight) is run from the release series fixture, and what it prints must be what
// the block shows — line for line, where a line holding only `…` stands for lines left out — and `$ echo $?`
// its exit code. Blocks that read a live cluster (`--kubeconfig`, `npx …` against `npm start`) are examples.
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI } from '../support/cli.js';
import { tempDirs } from '../support/temp.js';

const tempDir = tempDirs();
const RELEASES = join(process.cwd(), 'test', 'fixtures', 'openshift-api', 'payload-featuregates', 'releases');

interface Step { command: string; expected: string[] }

/** The `$ ` commands of the console blocks, each with the lines it shows until the next command. */
function steps(markdown: string): Step[][] {
  return [...markdown.matchAll(/^```console\n([\s\S]*?)^```$/gm)].map((m) => {
    const out: Step[] = [];
    for (const line of m[1]!.replace(/\n$/, '').split('\n')) {
      if (line.startsWith('$ ')) out.push({ command: line.slice(2), expected: [] });
      else out.at(-1)?.expected.push(line);
    }
    for (const step of out) while (step.expected.at(-1) === '') step.expected.pop(); // a blank line between commands
    return out;
  });
}

/** `expected` with `…` lines matching any run of lines (none included). */
function matches(expected: string[], actual: string[]): boolean {
  const [head, ...rest] = expected;
  if (head === undefined) return actual.length === 0;
  if (head === '…') return actual.some((_, i) => matches(rest, actual.slice(i))) || matches(rest, []);
  return actual[0] === head && matches(rest, actual.slice(1));
}

const offline = (c: string) => /^featuregates (explain|diff|preview|manifests|preflight) /.test(c) && !c.includes('--kubeconfig');

describe.each(['docs/cli.md', 'docs/gate-rules.md'])('%s output', (doc) => {
  const blocks = steps(readFileSync(doc, 'utf8')).filter((b) => b.some((s) => offline(s.command)));

  it('has payload-folder examples of its commands', () => {
    const commands = blocks.flat().map((s) => s.command.split(' ')[1]);
    for (const c of doc === 'docs/cli.md' ? ['explain', 'diff', 'preview', 'manifests'] : ['preflight']) expect(commands).toContain(c);
  });

  it.each(blocks.map((b, i) => [i + 1, b] as const))('block %d prints what it shows', (_n, block) => {
    const cwd = tempDir('fgc-doc-cli-');
    for (const r of ['release-4.20', 'release-4.21', 'release-4.22', 'release-4.23', 'release-5.1']) symlinkSync(join(RELEASES, r), join(cwd, r));
    symlinkSync(join(RELEASES, '..', '..', 'payload-manifests-gated'), join(cwd, 'payload-manifests-gated'));
    let last: number | null = null;
    for (const step of block) {
      const cat = /^cat (\S+)$/.exec(step.command);
      if (cat) {
        writeFileSync(join(cwd, cat[1]!), `${step.expected.join('\n')}\n`);
        continue;
      }
      if (step.command === 'echo $?') {
        expect(`${step.command} → ${last}`).toBe(`${step.command} → ${step.expected[0]}`);
        continue;
      }
      if (!offline(step.command)) throw new Error(`${doc}: a block mixes payload commands with ${JSON.stringify(step.command)}`);
      const r = spawnSync(process.execPath, [CLI, ...step.command.split(' ').slice(1)], { cwd, encoding: 'utf8' });
      last = r.status;
      const actual = `${r.stdout}${r.stderr}`.replace(/\n$/, '').split('\n');
      if (!matches(step.expected, actual)) {
        // Shown whole, so the block can be brought up to date from the failure.
        expect(`$ ${step.command}\n${actual.join('\n')}`).toBe(`$ ${step.command}\n${step.expected.join('\n')}`);
      }
    }
  });
});
