// docs/first-five-minutes.md, as a newcomer runs it: `featuregates start` in one terminal, then every command
// of the page's second-terminal block, as written (npx included), against that local cluster.
import { afterEach, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { spawnCLI } from '../support/cli.js';
import { eventually } from '../support/timing.js';
import { tempDirs } from '../support/temp.js';

const tempDir = tempDirs();

const cleanups: (() => void)[] = [];
afterEach(() => { for (const fn of cleanups.splice(0)) fn(); });

describe('docs/first-five-minutes.md', () => {
  it('every command of its second terminal works against npm start\'s cluster', async () => {
    const page = readFileSync('docs/first-five-minutes.md', 'utf8');
    const blocks = [...page.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
    expect(blocks[0]).toContain('npm start');
    const commands = blocks[1]!.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter(Boolean);
    expect(commands.length).toBeGreaterThanOrEqual(8);

    // Its own temp dir: the commands find "the newest running featuregates start" through records there, and
    // another test's `featuregates start` (cli-operator's) may run at the same time in another Jest worker.
    const env = { KUBECONFIG: '', KUBERNETES_SERVICE_HOST: '', TMPDIR: tempDir('fgc-first-five-') };
    const start = spawnCLI(['start'], env, { ownGroup: true });
    cleanups.push(() => { if (start.exitCode === null && start.signalCode === null) process.kill(-start.pid!, 'SIGKILL'); });
    let out = '';
    let err = '';
    start.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
    start.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
    await eventually(() => expect(out).toContain('press Ctrl-C to stop'), 90_000, 200)
      .catch((e: Error) => { throw new Error(`${e.message}\n${err.slice(-3000)}`); });

    const outputs: string[] = [];
    const verified: { code: number | null; stdout: string }[] = [];
    for (const command of commands) {
      const r = spawnSync('bash', ['-c', command], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
      // diff and verify say "differences" with exit 1; verify's codes are checked in order below.
      const okCodes = command.includes(' diff ') || command.includes(' verify') ? [0, 1] : [0];
      if (!okCodes.includes(r.status ?? -1)) throw new Error(`${command}: exit ${r.status}\n${r.stderr}`);
      outputs.push(r.stdout);
      if (command.includes(' verify')) verified.push({ code: r.status, stdout: r.stdout });
      if (command.includes('simulate upgrade --to 4.23.0 --complete')) {
        // featuregates start restarts kube-apiserver with 4.23.0's gates once it sees the upgrade completed
        await eventually(() => expect(err).toContain('kube-apiserver restarted with 4.23.0\'s gates'), 60_000, 200);
      }
      if (command.includes('simulate upgrade --to 4.23.0') && !command.includes('--complete')) {
        // the operator rolls to 4.23.0 and writes its entry: wait for it before the next command reads status
        await eventually(() => expect(spawnSync('bash', ['-c', 'npx featuregates status -o json'], { encoding: 'utf8', env: { ...process.env, ...env } }).stdout)
          .toContain('"version": "4.23.0"'), 30_000, 300);
      }
    }
    expect(outputs.join('\n')).toMatch(/4\.23\.0\s+3\s+6/);
    // verify: in step before the upgrade, the drift while it runs (the new payload turns APIResponseCompression off), in step after it.
    expect(verified.map((v) => v.code)).toEqual([0, 1, 0]);
    expect(verified[1]!.stdout).toMatch(/APIResponseCompression\s+off\s+on\s+mismatch\s+told on\n/);
    expect(verified[2]!.stdout).toContain('Every gate each component has runs as desired.');
    // npm start's own output shows verify's table for the version it started at.
    expect(out).toMatch(/kube-apiserver \(https:\/\/127\.0\.0\.1:\d+, emulated 1\.36\): 1 match, 8 not-in-component/);
    expect(outputs.at(-1)).toContain('cannot be undone');

    const exited = new Promise<number | null>((resolve) => start.once('exit', (c) => resolve(c)));
    process.kill(-start.pid!, 'SIGINT');
    expect(await exited).toBe(0);
  }, 180_000);
});
