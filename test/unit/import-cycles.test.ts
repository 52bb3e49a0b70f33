// No import cycle among the repository's own TypeScript files, type-only imports included. Lint's no-cycle
// (eslint-plugin-import-x) skips an `import type` by design, and two such cycles lived under it: the transport and
// its watch stream over WatchHandle, the gate rules and their generated data over KubernetesGateRules. Each import is
// read by TypeScript's own pre-processor (imports, re-exports, `import type`); a cycle is a strongly connected set of
// files, named in the failure.
import { describe, expect, it } from '@jest/globals';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { typeScriptFiles } from '../support/repo-files.js';
import { tempDirs } from '../support/temp.js';

const tempDir = tempDirs();
const SKIPPED = new Set(['node_modules', '.cache', 'dist', '.git', 'coverage']);

/** Each .ts file under `root` → the files of the repository it imports (relative specifiers only). */
function importGraph(root: string): Map<string, string[]> {
  const files = typeScriptFiles(root, (_path, name) => SKIPPED.has(name));
  const known = new Set(files);
  return new Map(files.map((file) => [file, ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles
    .map((i) => i.fileName).filter((s) => s.startsWith('.'))
    .map((s) => resolve(dirname(file), s).replace(/\.js$/, '.ts')).filter((f) => known.has(f))]));
}

/** The sets of files that import each other, directly or around (Tarjan's strongly connected components of more than one). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('import cycles, type-only imports included', () => {
  it('finds a cycle made of type-only imports and re-exports, and none where imports go one way', () => {
    const root = tempDir('fgc-import-cycles-');
    const tree: Record<string, string> = {
      'runtime/transport.ts': "import type { Handle } from './stream.js';\nexport const t = (h: Handle): number => h.n;\n",
      'runtime/stream.ts': "export type { Transport } from './transport-types.js';\nexport interface Handle { n: number }\n",
      'runtime/transport-types.ts': "import type { t } from './transport.js';\nexport type Transport = typeof t;\n",
      'runtime/one-way.ts': "import { t } from './transport.js';\nexport const u = t;\n",
    };
    for (const [file, text] of Object.entries(tree)) {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), text);
    }
    expect(cycles(importGraph(root)).map((c) => c.map((f) => relative(root, f)))).toEqual([
      ['runtime/stream.ts', 'runtime/transport-types.ts', 'runtime/transport.ts'],
    ]);
  });

  it('the repository has none', () => {
    const root = resolve('.');
    const graph = importGraph(root);
    expect(graph.size).toBeGreaterThan(400); // the walk reached the tree
    expect(cycles(graph).map((c) => c.map((f) => relative(root, f)).join(' ↔ '))).toEqual([]);
  });
});
