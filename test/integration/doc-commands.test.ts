// The commands README.md and docs/ show exist as shown (issue 69: synopses had drifted from `--help`): every
// backticked `featuregates <command> …` names a real command, and each `--flag` it shows is one that command's own
// `--help` lists; every `npm run <script>` is a script of package.json, and every `npm run bench -- <name>` a benchmark
// of hack/bench/. docs/benchmarks.md is a dated record of runs and keeps the commands as they were then.
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCLI } from '../support/cli.js';
import { readerDocs } from '../support/repo-files.js';

/** Every backticked span of the docs that starts with `prefix`, with where it is. */
function spans(prefix: string): { where: string; text: string }[] {
  return readerDocs().flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/`([^`\n]+)`/g)]
    .map((m) => m[1]!).filter((t) => t.startsWith(prefix)).map((text) => ({ where: file, text })));
}

/** The command words of a `featuregates …` span ("hosted status", "verify"), or undefined for a placeholder. */
function commandOf(text: string, commands: ReadonlySet<string>): string | undefined {
  const words = text.split(/\s+/).slice(1);
  const first = words[0] ?? '';
  if (!/^[a-z][a-z-]*$/.test(first)) return undefined; // a placeholder, an option, or output quoted in prose ("featuregates status: …")
  return commands.has(`${first} ${words[1] ?? ''}`) ? `${first} ${words[1]}` : first;
}

/** What a shown `featuregates …` span gets wrong against its command's --help ('' when the command has none). */
function wrongFlags(where: string, text: string, commands: ReadonlySet<string>, help: (command: string) => string): string[] {
  const command = commandOf(text, commands);
  if (command === undefined) return [];
  const h = help(command);
  if (!h) return [`${where}: \`${text}\`: no command "${command}" (its --help failed)`];
  return (text.match(/(?<![\w-])--[a-z][a-z0-9-]*/g) ?? []).filter((flag) => !h.includes(flag))
    .map((flag) => `${where}: \`${text}\`: ${command} --help has no ${flag}`);
}

describe('the commands README.md and docs/ show', () => {
  const helps = new Map<string, string>();
  const help = (command: string): string => {
    if (!helps.has(command)) {
      const r = runCLI([...command.split(' '), '--help']);
      helps.set(command, r.code === 0 ? r.stdout : '');
    }
    return helps.get(command)!;
  };

  it('featuregates: each command exists and each flag shown is in its --help', () => {
    const top = runCLI(['--help']).stdout;
    const commands = new Set([...top.matchAll(/^ {2}(\S+(?: (?!-)\S+)?)/gm)].map((m) => m[1]!));
    for (const sub of ['hosted status', 'simulate upgrade', 'gen gate-names']) commands.add(sub);
    const shown = spans('featuregates ');
    expect(shown.length).toBeGreaterThan(40); // the docs were read
    // A synopsis that drifted is caught: a flag the command does not take, a command that does not exist.
    expect(wrongFlags('x.md', 'featuregates status [--kubeconfig P] [--no-such-flag]', commands, help)).toEqual(['x.md: `featuregates status [--kubeconfig P] [--no-such-flag]`: status --help has no --no-such-flag']);
    expect(wrongFlags('x.md', 'featuregates statuz', commands, help)).toEqual(['x.md: `featuregates statuz`: no command "statuz" (its --help failed)']);
    const wrong = shown.flatMap(({ where, text }) => wrongFlags(where, text, commands, help));
    expect(wrong).toEqual([]);
  }, 120_000);

  it('npm run: each script is in package.json, each benchmark in hack/bench/', () => {
    const scripts = Object.keys((JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts);
    expect(wrongScript('x.md', 'npm run bench -- no-such-bench', scripts)).toEqual(['x.md: `npm run bench -- no-such-bench`: no benchmark hack/bench/no-such-bench.ts']);
    expect(wrongScript('x.md', 'npm run tset', scripts)).toEqual(['x.md: `npm run tset`: no script "tset"']);
    expect(spans('npm run ').flatMap(({ where, text }) => wrongScript(where, text, scripts))).toEqual([]);
  });
});

/** What a shown `npm run …` span gets wrong: a script package.json lacks, a benchmark hack/bench/ lacks. */
function wrongScript(where: string, text: string, scripts: readonly string[]): string[] {
  const [script, , name] = text.split(/\s+/).slice(2);
  if (!script || !/^[a-z][a-z:-]*$/.test(script)) return []; // a placeholder (`npm run …`)
  if (!scripts.includes(script)) return [`${where}: \`${text}\`: no script "${script}"`];
  if (script !== 'bench' || !name || name.startsWith('<')) return [];
  const file = name.startsWith('../') ? join('hack', `${name.slice(3)}.ts`) : join('hack', 'bench', `${name}.ts`);
  return existsSync(file) ? [] : [`${where}: \`${text}\`: no benchmark ${file}`];
}
