// The repository's own files as the tests that read the whole tree walk it: the docs a reader meets (README.md and
// docs/, less docs/benchmarks.md, a dated record of runs that keeps names as they were then) and the TypeScript files
// under a folder.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** README.md and every markdown file under docs/ but docs/benchmarks.md, relative to the working folder. */
export function readerDocs(): string[] {
  return ['README.md', ...filesUnder('docs', (name) => name.endsWith('.md')).filter((f) => f !== join('docs', 'benchmarks.md'))];
}

/** Every .ts file (not .d.ts) under `dir`, skipping the folders `skip` says no to (given each folder's path and name). */
export function typeScriptFiles(dir: string, skip: (path: string, name: string) => boolean = () => false): string[] {
  return filesUnder(dir, (name) => name.endsWith('.ts') && !name.endsWith('.d.ts'), skip);
}

function filesUnder(dir: string, take: (name: string) => boolean, skip: (path: string, name: string) => boolean = () => false): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return skip(path, e.name) ? [] : filesUnder(path, take, skip);
    return take(e.name) ? [path] : [];
  });
}
