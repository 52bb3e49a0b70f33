// A single-node admin's configuration on fresh temp dirs, and the shipped CLI's `standalone check` on it, shared by
// test/integration/standalone-config-input.test.ts (what the admin's files say) and standalone-safety.test.ts (what
// is written, and what is refused).
import { expect } from '@jest/globals';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runCLI } from './cli.js';
import { tempDirs } from './temp.js';

const tempDir = tempDirs();

export interface Node {
  root: string;
  config: string;
  configDir: string;
  dataDir: string;
  backupDir: string;
  lock: string;
  versionFile: string;
  failedLog: string;
}

export function node(files: Record<string, string> = {}): Node {
  const root = tempDir('fgc-safety-');
  const dataDir = join(root, 'data');
  const backupDir = join(root, 'backups');
  const n = {
    root, config: join(root, 'etc/config.yaml'), configDir: join(root, 'etc/config.d'), dataDir, backupDir,
    lock: join(dataDir, 'no-upgrade'), versionFile: join(dataDir, 'version'), failedLog: join(backupDir, 'prerun_failed.log'),
  };
  mkdirSync(n.configDir, { recursive: true });
  for (const [rel, text] of Object.entries({ 'config.yaml': '', ...files })) {
    const p = join(root, 'etc', rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
  return n;
}

export const gates = (body: string) => `apiServer:\n  featureGates:\n${body.split('\n').map((l) => `    ${l}`).join('\n')}\n`;
export const custom = (enabled: string[], special: string[] = []) => gates(
  `featureSet: CustomNoUpgrade\ncustomNoUpgrade:\n  enabled: ${JSON.stringify(enabled)}` +
  (special.length ? `\nspecialHandlingSupportExceptionRequired:\n  enabled: ${JSON.stringify(special)}` : ''));

export function check(n: Node, version: string, extra: string[] = [], flags = { config: true, configDir: true }) {
  return runCLI(['standalone', 'check', '--version', version, ...(flags.config ? ['--config', n.config] : []),
    ...(flags.configDir ? ['--config-dir', n.configDir] : []), '--data-dir', n.dataDir, '--backup-dir', n.backupDir, ...extra]);
}

/** Exit 2, the message, and nothing written anywhere (no lock, no version file, no failure log). */
export function expectInvalid(n: Node, r: ReturnType<typeof runCLI>, message: string | RegExp) {
  expect(r.code).toBe(2);
  if (typeof message === 'string') expect(r.stderr).toContain(message);
  else expect(r.stderr).toMatch(message);
  expect(existsSync(n.lock)).toBe(false);
  expect(existsSync(n.versionFile)).toBe(false);
  expect(existsSync(n.failedLog)).toBe(false);
}
