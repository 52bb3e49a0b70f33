// Benchmark: where what one SDK accessor retains in a component goes, part by part (issue 70).
//   npm run bench -- sdk-accessor-parts      (ROUNDS=3; ~1 min)
// Each measure is its own process (sdk-accessor-part.ts) that loads @kubernetes/client-node and a KubeConfig and holds a client-node watch,
// as a component does; then, after full collections before and after (so the figures are what is retained, not
// garbage): "sdk" — importing the SDK; "accessor" — one accessor as createFeatureGateAccess makes it (one HTTP/2
// connection carries both watches); "http1" — the same two caches over HTTP/1.1 (two connections, one per watch:
// what riding on client-node's own HTTP stack would open, since client-node 2.x makes a new undici Agent, and so a
// new connection, for every request it sends). Min / median / max over the rounds.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startComponentPlane } from './component-process.js';
import { spread } from './stats.js';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
interface Delta { rssMB: number; heapMB: number; externalMB: number }

const plane = await startComponentPlane();
try {
  const measure = (p: string) => JSON.parse(execFileSync(process.execPath, ['--expose-gc', join(dirname(fileURLToPath(import.meta.url)), 'sdk-accessor-part.js'), plane.kubeconfigPath, p], { encoding: 'utf8' })) as Delta;
  const parts = { sdk: 'importing the SDK (its modules)', accessor: 'one running accessor, HTTP/2 (as shipped)', http1: 'the same two caches over HTTP/1.1, two connections' };
  const results = Object.fromEntries(Object.keys(parts).map((p) => [p, [] as Delta[]]));
  for (let r = 0; r < ROUNDS; r++) for (const p of Object.keys(parts)) results[p]!.push(measure(p));
  const mb = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(2)} MB`;
  console.log(`node ${process.version}, ${ROUNDS} rounds, retained after full collections, beside a client-node watch (min / median / max)`);
  console.log('| part | RSS | V8 heap used | external |\n| --- | --- | --- | --- |');
  for (const [p, label] of Object.entries(parts)) {
    const d = results[p]!;
    console.log(`| ${label} | ${spread(d.map((x) => x.rssMB), mb)} | ${spread(d.map((x) => x.heapMB), mb)} | ${spread(d.map((x) => x.externalMB), mb)} |`);
  }
} finally {
  await plane.stop();
}
