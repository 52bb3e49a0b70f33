// The chaos suite: `npm run chaos [-- [--short] [scenario ...]]` (`-- --list`: the scenarios' names). Each scenario starts its own local
// control plane and operator processes, is bounded in time, prints its figures against their goals, and
// the run exits non-zero when any goal is missed. Results are recorded in docs/reliability.md.
import { SCENARIOS } from './scenarios.js';
import type { ScenarioResult } from './lib.js';

const args = process.argv.slice(2);
if (args.includes('--list') || args.includes('--help')) {
  process.stdout.write('usage: npm run chaos [-- [--short] [scenario ...]]   (no scenario: all of them, in this order)\n' +
    `scenarios:\n${SCENARIOS.map((s) => `  ${s.name}\n`).join('')}`);
  process.exit(0);
}
const options = args.filter((a) => a.startsWith('--') && a !== '--short');
if (options.length) {
  process.stderr.write(`unknown option ${options.join(', ')}; the options are --short and --list\n`);
  process.exit(2);
}
const short = args.includes('--short');
const names = args.filter((a) => !a.startsWith('--'));
const unknown = names.filter((n) => !SCENARIOS.some((s) => s.name === n));
if (unknown.length) {
  process.stderr.write(`unknown scenario ${unknown.join(', ')}; one of: ${SCENARIOS.map((s) => s.name).join(', ')}\n`);
  process.exit(2);
}
const chosen = SCENARIOS.filter((s) => names.length === 0 || names.includes(s.name));
const results: ScenarioResult[] = [];
let failed = 0;
for (const s of chosen) {
  const t0 = performance.now();
  process.stderr.write(`[chaos] ${s.name}${short ? ' (short)' : ''} …\n`);
  try {
    const r = await s.run(short);
    results.push(r);
    process.stderr.write(`[chaos] ${s.name} done in ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
  } catch (e) {
    results.push({ name: s.name, figures: [{ label: 'scenario completed', value: (e as Error).message.slice(0, 200), goal: 'completes', pass: false }] });
  }
}
const lines = [`Chaos run ${new Date().toISOString()} (node ${process.version}${short ? ', short' : ''})`, ''];
for (const r of results) {
  lines.push(`### ${r.name}`, '', '| figure | value | goal | |', '| --- | --- | --- | --- |');
  for (const f of r.figures) {
    lines.push(`| ${f.label} | ${f.value} | ${f.goal} | ${f.pass ? 'met' : '**missed**'} |`);
    if (!f.pass) failed++;
  }
  lines.push('');
}
process.stdout.write(`${lines.join('\n')}\n`);
process.exit(failed ? 1 : 0);
