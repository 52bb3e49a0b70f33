// Every ```ts snippet in the SDK docs compiles as written (tsc --strict, NodeNext), against the built
// package as a consumer imports it (`featuregate-coordinator/sdk`, resolved by the package's own exports).
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const DOCS = ['docs/sdk.md', 'docs/testing.md'];

function snippets(doc: string): string[] {
  return [...readFileSync(doc, 'utf8').matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

describe('documentation snippets', () => {
  it('each TypeScript snippet of the SDK docs compiles with --strict', () => {
    // Inside the package folder, so `featuregate-coordinator/...` resolves to this package by name.
    const dir = join(process.cwd(), '.cache', 'doc-snippets');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const files: string[] = [];
    for (const doc of DOCS) {
      snippets(doc).forEach((code, i) => {
        const f = join(dir, `${doc.replace(/[/.]/g, '_')}_${i + 1}.ts`);
        writeFileSync(f, `${code}\nexport {};\n`);
        files.push(f);
      });
    }
    expect(files.length).toBeGreaterThanOrEqual(4);
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true, types: ['node'] },
      files: files.map((f) => f.slice(dir.length + 1)),
    }));
    const r = spawnSync(process.execPath, [join(process.cwd(), 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { encoding: 'utf8' });
    expect(`${r.stdout}${r.stderr}`).toBe('');
    expect(r.status).toBe(0);
  }, 60_000);
});
