// A rejected promise that one guest's or controller's code left unawaited is logged and counted, and the process
// goes on; without the handler Node.js ends the process (and every guest on a replica) with it. Real processes,
// running the built runtime.
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const runtime = join(process.cwd(), 'dist', 'runtime', 'index.js');

function run(contain: boolean) {
  const script = [
    `import { containUnhandledRejections, createLogger } from ${JSON.stringify(runtime)};`,
    'let contained = 0;',
    contain ? 'containUnhandledRejections(createLogger({ format: "json" }), () => contained++);' : '',
    'void Promise.reject(new RangeError("one guest\'s fault"));',
    'setTimeout(() => { console.log(`alive, ${contained} contained`); process.exit(0); }, 300);',
  ].join('\n');
  return spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
}

describe('containUnhandledRejections', () => {
  it('logs the rejection and the process goes on', () => {
    const r = run(true);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('alive, 1 contained');
    const line = JSON.parse(r.stderr.trim().split('\n').at(-1)!) as { level: string; msg: string; error: string };
    expect(line.level).toBe('error');
    expect(line.msg).toContain('unhandled promise rejection contained');
    expect(line.error).toContain("RangeError: one guest's fault");
  });

  it('without it, the same rejection ends the process non-zero (what it guards against)', () => {
    const r = run(false);
    expect(r.status).not.toBe(0);
    expect(r.stdout).not.toContain('alive');
  });
});
