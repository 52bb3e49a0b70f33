// A benchmark-only Go program of hack/bench/<module> (built by its build.sh through go-build.sh): its binary's path.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../sdk/testing/index.js';

/** Builds hack/bench/<module> (Go and the Go module proxy) and returns the binary's path; throws when it does not build. */
export function goBenchBinary(module: string): string {
  const script = join(packageRoot(), 'hack', 'bench', module, 'build.sh');
  const built = spawnSync('bash', [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (built.status !== 0) throw new Error(`hack/bench/${module}/build.sh failed (it needs Go and the Go module proxy)`);
  return built.stdout.trim().split('\n').at(-1)!;
}
