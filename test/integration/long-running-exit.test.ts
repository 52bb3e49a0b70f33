// The shell of `featuregates operator` and `featuregates hosted` (cmd/long-running.ts) in a real process: after a
// SIGTERM it stops what it runs and exits at once with 0, even when something is still open. A hosted replica of the
// 2,010-HCP fleet logged "stopped" 6 s after its SIGTERM and exited 90 s later (docs/benchmarks.md, run 2010h).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { packageRoot } from '../../runtime/util/version.js';
import { eventually } from '../support/timing.js';

/** A process whose stop() leaves a socket server listening and a 10-minute timer behind (what a straggler looks like). */
const SCRIPT = `
import { createServer } from 'node:net';
import { runUntilSignalled } from ${JSON.stringify(join(packageRoot(), 'dist', 'cmd', 'long-running.js'))};
import { createLogger } from ${JSON.stringify(join(packageRoot(), 'dist', 'runtime', 'index.js'))};
const logger = createLogger({ format: 'json' });
process.exitCode = await runUntilSignalled(logger, 'test', async () => ({
  ready: new Promise((resolve) => createServer().listen(0, '127.0.0.1', () => { logger.info('running'); resolve(); })),
  async stop() { setTimeout(() => undefined, 600_000); },
}));
`;

describe('a long-running command after SIGTERM', () => {
  it('exits 0 as soon as it has stopped, and names what was still open', async () => {
    const p = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    p.stdout.on('data', (d: Buffer) => { log += d.toString(); });
    p.stderr.on('data', (d: Buffer) => { log += d.toString(); });
    const exited = new Promise<number | null>((resolve) => p.on('exit', (code) => resolve(code)));
    try {
      await eventually(() => expect(log).toContain('"msg":"running"'), 20_000, 100);
      p.kill('SIGTERM');
      // Without the exit, the server and the timer keep it alive for 10 minutes: the test's own timeout ends it red.
      expect(await exited).toBe(0);
      const stopped = log.split('\n').find((l) => l.includes('"msg":"stopped"'));
      expect(JSON.parse(stopped!).stillOpen).toEqual({ TCPServerWrap: 1, Timeout: 1 });
    } finally {
      p.kill('SIGKILL');
    }
  }, 30_000);
});
