// Standalone mode's file I/O: configuration files (config.yaml + config.d/**/*.yaml merged by JSON merge
// patch), the lock file (created atomically and exclusively), the version file, and prerun_failed.log.
import { randomBytes } from 'node:crypto';
import {
  appendFileSync, closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync,
  unlinkSync, writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { compareNames } from '../api-types/index.js';
import { InvalidConfigurationError } from './config.js';
import { decodeLock, encodeLock, type FeatureGateLock } from './lock.js';
import { mergePatch } from './merge-patch.js';

export const LOCK_FILE = 'no-upgrade';
export const VERSION_FILE = 'version';
export const PRERUN_FAILED_LOG = 'prerun_failed.log';

/** Every *.yaml under dir, recursively, in lexical order of their paths (.yml is ignored). */
export function dropInFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort(compareNames)) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile() && name.endsWith('.yaml')) out.push(p);
    }
  };
  walk(dir);
  return out;
}

function parseYAMLFile(path: string): unknown[] {
  const docs = parseAllDocuments(readFileSync(path, 'utf8'));
  const out: unknown[] = [];
  for (const doc of docs) {
    if (doc.errors.length > 0) {
      const e = doc.errors[0]!;
      const pos = e.linePos?.[0];
      throw new InvalidConfigurationError(`${path}${pos ? `:${pos.line}:${pos.col}` : ''}: ${e.message.split('\n')[0]}`);
    }
    const v = doc.toJS() as unknown;
    if (v !== null && v !== undefined) out.push(v);
  }
  return out;
}

/** The merged user configuration and the files it came from, in the order they were applied. */
export function loadConfigFiles(configFile: string, configDir: string): { merged: unknown; files: string[] } {
  const files = [...(existsSync(configFile) ? [configFile] : []), ...dropInFiles(configDir)];
  let merged: unknown = {};
  for (const f of files) for (const doc of parseYAMLFile(f)) merged = mergePatch(merged, doc);
  return { merged, files };
}

/** The lock, or undefined when there is none. A lock that cannot be read is an error naming the file. */
export function readLock(dataDir: string): FeatureGateLock | undefined {
  const path = join(dataDir, LOCK_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`failed to check if lock file exists: ${(e as Error).message}`, { cause: e });
  }
  try {
    return decodeLock(text);
  } catch (e) {
    throw new Error(`failed to read lock file: ${path}: ${(e as Error).message}`, { cause: e });
  }
}

function writeFileDurably(path: string, data: string, mode: number): void {
  const fd = openSync(path, 'wx', mode);
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try { fsyncSync(fd); } finally { closeSync(fd); }
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface LockWriteHooks {
  /** Test seam: runs after the temporary file is durable and before it is linked into place. */
  afterTempWrite?: () => void;
}

/**
 * Creates the lock atomically and exclusively: write a temporary file (mode 0600) and fsync it, then
 * hard-link it to the lock path (which fails if a lock exists — two concurrent starts make one lock),
 * fsync the folder and remove the temporary name. A crash leaves either no lock or a whole one.
 */
export function createLock(dataDir: string, lock: FeatureGateLock, hooks: LockWriteHooks = {}): 'created' | 'exists' {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, LOCK_FILE);
  // Temporary files of crashed starts are removed; those of starts still running are theirs to finish.
  for (const name of readdirSync(dataDir)) {
    const m = new RegExp(`^\\.${LOCK_FILE}\\.(\\d+)\\.[0-9a-f]+\\.tmp$`).exec(name);
    if (!m || processAlive(Number(m[1]))) continue;
    try { unlinkSync(join(dataDir, name)); } catch { /* removed meanwhile */ }
  }
  const tmp = join(dataDir, `.${LOCK_FILE}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    writeFileDurably(tmp, encodeLock(lock), 0o600);
  } catch (e) {
    throw new Error(`failed to write lock file: failed to write lock file to ${JSON.stringify(path)}: ${(e as Error).message}`, { cause: e });
  }
  try {
    hooks.afterTempWrite?.();
    linkSync(tmp, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return 'exists';
    throw new Error(`failed to write lock file: failed to write lock file to ${JSON.stringify(path)}: ${(e as Error).message}`, { cause: e });
  } finally {
    try { unlinkSync(tmp); } catch { /* already gone */ }
  }
  fsyncDir(dataDir);
  return 'created';
}

/** The data version from `<data-dir>/version` (JSON {"version": "X.Y.Z", ...} or legacy plain text). */
export function readVersionFile(dataDir: string): string | undefined {
  const path = join(dataDir, VERSION_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  if (text === '') return undefined;
  if (!text.startsWith('{')) return text;
  try {
    const v = (JSON.parse(text) as { version?: unknown }).version;
    if (typeof v !== 'string') throw new Error('no "version" string');
    return v;
  } catch (e) {
    throw new Error(`failed to read version file ${path}: ${(e as Error).message}`, { cause: e });
  }
}

function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim().replace(/-/g, '');
  } catch {
    return undefined;
  }
}

/** Writes `<data-dir>/version` atomically (temp file, fsync, rename), mode 0600. */
export function writeVersionFile(dataDir: string, version: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, VERSION_FILE);
  const tmp = `${path}.${process.pid}.tmp`;
  const boot = bootId();
  try { unlinkSync(tmp); } catch { /* none */ }
  writeFileDurably(tmp, JSON.stringify({ version, ...(boot ? { boot_id: boot } : {}) }), 0o600);
  renameSync(tmp, path);
  fsyncDir(dirname(path));
}

export function appendPrerunFailure(backupDir: string, message: string): string {
  mkdirSync(backupDir, { recursive: true });
  const path = join(backupDir, PRERUN_FAILED_LOG);
  appendFileSync(path, `${new Date().toISOString()} ${message}\n`);
  return path;
}
