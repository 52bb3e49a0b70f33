// Runs the `featuregates` CLI as shipped (npm test builds dist/ and the bundle first).
import { spawnSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../runtime/util/version.js';
import type { LimitGroup } from './cgroup.js';

// The bundled CLI (hack/bundle.mjs), what package.json's bin and the image run; FGC_CLI runs the CLI tests
// against another build (an older commit's, to show a test fails before its fix).
export const CLI = process.env.FGC_CLI ?? join(packageRoot(), 'dist', 'cli', 'featuregates.js');
/** The CLI the operator and hosted-replica processes of benchmarks and chaos scenarios run (FGC_OPERATOR_CLI: another build). */
export const OPERATOR_CLI = process.env.FGC_OPERATOR_CLI ?? CLI;

export interface SpawnOptions {
  /** Node flags before the script (the image's, say). */
  nodeFlags?: readonly string[];
  /** The CLI to run (default CLI). */
  cli?: string;
  /** stdout and stderr: piped (default), ignored, or stderr appended to a file descriptor. */
  stdout?: 'pipe' | 'ignore';
  stderr?: 'pipe' | 'ignore' | number;
  /** Added to the environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** The CLI leads a process group, as a shell's foreground job does (signal it with kill(-pid)). */
  ownGroup?: boolean;
  /** Runs inside this cgroup (its CPU quota and memory limit), joined before Node.js starts. */
  cgroup?: LimitGroup;
}

/** The one way test/ and hack/ start a `featuregates` process (a CLI command, an operator, a hosted replica). */
export function spawnFeaturegates(args: readonly string[], o: SpawnOptions = {}): ChildProcess {
  const argv = [...(o.nodeFlags ?? []), o.cli ?? CLI, ...args];
  const [file, fileArgs] = o.cgroup ? o.cgroup.command(process.execPath, argv) : [process.execPath, argv];
  return spawn(file, fileArgs, {
    env: { ...process.env, ...o.env }, stdio: ['ignore', o.stdout ?? 'pipe', o.stderr ?? 'pipe'], detached: o.ownGroup === true,
  });
}

export function runCLI(args: string[], env: NodeJS.ProcessEnv = {}, input?: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, input, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `ownGroup`: the CLI leads a process group, as a shell's foreground job does (signal it with kill(-pid)). */
export function spawnCLI(args: string[], env: NodeJS.ProcessEnv = {}, { ownGroup = false } = {}): ChildProcess {
  return spawnFeaturegates(args, { env, ownGroup });
}

/**
 * The address a process logs in its `serving` line (json log format) for `field` (metrics or health): waits up to
 * `timeoutMs` (default 30 s) for the line to appear in `log()`.
 */
export async function servingAddress(log: () => string, field: 'metrics' | 'health', timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const line of log().split('\n')) {
      if (!line.includes('"serving"')) continue;
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        if (entry.msg === 'serving' && typeof entry[field] === 'string') return entry[field] as string;
      } catch { /* a partial line */ }
    }
    if (Date.now() > deadline) throw new Error(`no "serving" log line with ${field} within ${timeoutMs / 1000} s:\n${log().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
