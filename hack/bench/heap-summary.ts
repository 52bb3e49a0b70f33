// What a V8 heap snapshot holds, summed: self size and count by node type and constructor name, and the strings
// held most often (the same text in many copies), optionally divided by a count of units (say the HCPs a replica
// holds) to read as "per unit".
//   npm run bench -- heap-summary FILE.heapsnapshot [--per N] [--top 30]
// (hosted-profile --heap-snapshot FILE writes one after its warm-up.)
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values: flags, positionals } = parseArgs({ allowPositionals: true, options: { per: { type: 'string', default: '1' }, top: { type: 'string', default: '30' } } });
const file = positionals[0];
if (!file) throw new Error('usage: npm run bench -- heap-summary FILE.heapsnapshot [--per N] [--top 30]');
const PER = Number(flags.per);
const TOP = Number(flags.top);

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}
const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
const fields = snap.snapshot.meta.node_fields;
const width = fields.length;
const at = (f: string) => fields.indexOf(f);
const TYPE = at('type'); const NAME = at('name'); const SIZE = at('self_size');
const types = snap.snapshot.meta.node_types[0];

const byKind = new Map<string, { n: number; bytes: number }>();
const byText = new Map<string, { n: number; bytes: number }>();
let total = 0;
for (let i = 0; i < snap.nodes.length; i += width) {
  const type = types[snap.nodes[i + TYPE]!]!;
  const name = snap.strings[snap.nodes[i + NAME]!]!;
  const bytes = snap.nodes[i + SIZE]!;
  total += bytes;
  // Strings by their text (the first 60 characters); everything else by type and constructor.
  const kind = type === 'string' || type === 'concatenated string' || type === 'sliced string' ? 'string' : `${type} ${type === 'object' || type === 'closure' || type === 'native' ? name.slice(0, 60) : ''}`.trim();
  const k = byKind.get(kind) ?? { n: 0, bytes: 0 };
  k.n++; k.bytes += bytes;
  byKind.set(kind, k);
  if (kind === 'string') {
    const text = name.slice(0, 60).replace(/\s+/g, ' ');
    const t = byText.get(text) ?? { n: 0, bytes: 0 };
    t.n++; t.bytes += bytes;
    byText.set(text, t);
  }
}
const line = ([k, v]: [string, { n: number; bytes: number }]) =>
  `  ${(v.bytes / 1024 / PER).toFixed(1).padStart(9)} KB ${(v.n / PER).toFixed(1).padStart(9)} ×  ${k}`;
const top = (m: Map<string, { n: number; bytes: number }>) => [...m].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, TOP).map(line).join('\n');
process.stdout.write(`${file}: ${(total / 2 ** 20).toFixed(1)} MB in ${snap.nodes.length / width} nodes${PER > 1 ? `; figures per unit of ${PER}` : ''}\n`);
process.stdout.write(`by type and constructor (self size):\n${top(byKind)}\n`);
process.stdout.write(`strings by text (self size):\n${top(byText)}\n`);
