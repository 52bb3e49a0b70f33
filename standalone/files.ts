// Standalone mode's file I/O: configuration files (config.yaml + config.d/**/*.yaml merged by JSON merge
// patch), the lock file (created atomically and exclusively), the version file, and prerun_failed.log.
import { randomBytes } from 'node:crypto';
import {
  closeSync, constants, fsyncSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, renameSync, statSync,
  unlinkSync, writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { compareNames, formatVersion, parseStrictVersion } from '../api-types/index.js';
import { processAlive } from '../runtime/util/process-alive.js';
import { parseYamlDocuments } from '../runtime/util/yaml.js';
import { checkFeatureGateKeys, featureGatesFromConfig, featureGatesNearMisses, InvalidConfigurationError, setsFeatureGates } from './config.js';
import { decodeLock, encodeLock, type FeatureGateLock } from './lock.js';
import { mergePatch } from './merge-patch.js';

export const LOCK_FILE = 'no-upgrade';
export const VERSION_FILE = 'version';
export const PRERUN_FAILED_LOG = 'prerun_failed.log';

/** A file-system error as a sentence that names the path: "<path>: is a directory" and so on. */
function fileProblem(path: string, e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  const what: Record<string, string> = {
    EISDIR: 'is a directory, not a file', EACCES: 'permission denied', EPERM: 'permission denied', ENOENT: 'does not exist',
    ELOOP: 'is a symbolic link loop', ENOTDIR: 'a parent of it is not a directory',
  };
  return `${path}: ${(code && what[code]) ?? (e as Error).message}`;
}

/**
 * Every *.yaml under dir, recursively, in lexical order of their paths (.yml is ignored). As MicroShift's
 * walk: a symbolic link to a regular file is read, a symbolic link to a directory is not descended into
 * (so no link can make the walk loop). A *.yaml link that leads nowhere, in a loop, or to a directory is an
 * invalid configuration that names it.
 */
export function dropInFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch (e) {
      throw new InvalidConfigurationError(`cannot read the drop-in folder ${fileProblem(d, e)}`);
    }
    for (const entry of entries.sort((a, b) => compareNames(a.name, b.name))) {
      const p = join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (!entry.name.endsWith('.yaml')) continue;
      else if (entry.isFile()) out.push(p);
      else if (entry.isSymbolicLink()) {
        let target;
        try {
          target = statSync(p);
        } catch (e) {
          throw new InvalidConfigurationError(`cannot read drop-in ${fileProblem(p, e)} (a symbolic link to ${JSON.stringify(readlinkSafe(p))})`);
        }
        if (target.isFile()) out.push(p);
        // As MicroShift, which reads it and fails: a *.yaml name that leads to a folder is not skipped.
        else if (target.isDirectory()) {
          throw new InvalidConfigurationError(`cannot read drop-in ${p}: is a directory, not a file (a symbolic link to ${JSON.stringify(readlinkSafe(p))})`);
        }
      }
    }
  };
  walk(dir);
  return out;
}

function readlinkSafe(p: string): string {
  try { return readlinkSync(p); } catch { return '?'; }
}

/** `doc` null: the file holds only comments (or an explicit null) — not nothing, for MicroShift's merge. */
export interface ConfigDocument { path: string; doc: unknown }

/**
 * One configuration file, read as MicroShift reads it (YAML 1.1, see runtime/util/yaml.ts), checked on its own
 * so an error names the file: one document only (MicroShift silently reads the first of several: refused
 * here), the apiServer.featureGates keys and value types.
 */
export function readConfigFile(path: string): ConfigDocument | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new InvalidConfigurationError(`cannot read ${fileProblem(path, e)}`);
  }
  let docs: unknown[];
  try {
    docs = parseYamlDocuments(text, path, { version: '1.1' });
  } catch (e) {
    throw new InvalidConfigurationError((e as Error).message);
  }
  const present = docs.filter((d) => d !== null && d !== undefined);
  if (present.length > 1 || (present.length === 1 && docs[0] !== present[0])) {
    throw new InvalidConfigurationError(`${path}: holds ${docs.length} YAML documents; a configuration file must hold one ` +
      '(MicroShift would read only the first and ignore the rest)');
  }
  const doc = present[0];
  if (text.trim() === '') return undefined; // skipped, as MicroShift skips empty and whitespace-only files
  if (doc === undefined) return { path, doc: null };
  try {
    checkFeatureGateKeys(doc);
    featureGatesFromConfig(doc);
  } catch (e) {
    if (e instanceof InvalidConfigurationError) throw new InvalidConfigurationError(`${path}: ${e.message.replace(/^invalid configuration: /, '')}`);
    throw e;
  }
  return { path, doc };
}

export interface ConfigFiles {
  merged: unknown;
  /** Every file read, in the order applied. */
  files: string[];
  /** The files that set something under apiServer.featureGates. */
  gateSources: string[];
  /** Near misses of apiServer.featureGates, each naming its file (ignored, as MicroShift does, but said). */
  warnings: string[];
}

export interface ConfigLocation {
  configFile: string;
  configDir: string;
  /** Given on the command line: then it must exist (only the default paths may be absent). */
  explicitConfigFile?: boolean;
  explicitConfigDir?: boolean;
}

/** The merged user configuration and the files it came from, in the order they were applied. */
export function loadConfigFiles(where: ConfigLocation): ConfigFiles {
  const present = (path: string, explicit: boolean | undefined, flag: string, kind: 'file' | 'directory'): boolean => {
    let st;
    try {
      st = statSync(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && !explicit) return false;
      throw new InvalidConfigurationError(`${flag} ${fileProblem(path, e)}`);
    }
    if (kind === 'directory' && !st.isDirectory()) throw new InvalidConfigurationError(`${flag} ${path}: is not a directory`);
    return true;
  };
  const files = [
    ...(present(where.configFile, where.explicitConfigFile, '--config', 'file') ? [where.configFile] : []),
    ...(present(where.configDir, where.explicitConfigDir, '--config-dir', 'directory') ? dropInFiles(where.configDir) : []),
  ];
  let merged: unknown = {};
  const gateSources: string[] = [];
  const warnings: string[] = [];
  const reads = files.map(readConfigFile).filter((r): r is ConfigDocument => r !== undefined);
  const nothing = reads.find((r) => r.doc === null);
  if (nothing && reads.length > 1) {
    // MicroShift turns such a file into JSON null, and its merge patch with the other files fails: it refuses
    // to start. Refused here too, before any lock could be written from the other files.
    throw new InvalidConfigurationError(`${nothing.path}: holds no settings, only comments (a YAML null); MicroShift cannot merge it with ` +
      `the other configuration files (${reads.filter((r) => r !== nothing).map((r) => r.path).join(', ')}) and refuses to start: ` +
      'delete the file, or give it a mapping ({} for none)');
  }
  for (const read of reads) {
    if (read.doc === null) continue;
    const f = read.path;
    merged = mergePatch(merged, read.doc);
    if (setsFeatureGates(read.doc)) gateSources.push(f);
    for (const w of featureGatesNearMisses(read.doc)) warnings.push(`${f}: ${w}`);
  }
  return { merged, files, gateSources, warnings };
}

/**
 * The lock, or undefined when there is none. Beyond MicroShift: the lock must be a regular file — a
 * symbolic link (dangling or not), a directory or anything else is an error that says so, never "no lock"
 * (a dangling link once let a CustomNoUpgrade node start without a lock and upgrade). A lock that cannot be
 * read is an error naming the file.
 */
export function readLock(dataDir: string): FeatureGateLock | undefined {
  const path = join(dataDir, LOCK_FILE);
  let st;
  try {
    st = lstatSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`failed to check if lock file exists: ${fileProblem(path, e)}`, { cause: e });
  }
  if (!st.isFile()) {
    const what = st.isSymbolicLink() ? `a symbolic link (to ${JSON.stringify(readlinkSafe(path))})` : st.isDirectory() ? 'a directory' : 'not a regular file';
    throw new Error(`failed to read lock file: ${path} is ${what}; the feature gate lock must be a regular file. ` +
      'It is never followed or replaced: restore the lock file itself, or clean up the data (microshift-cleanup-data --all)');
  }
  let text: string;
  try {
    text = readFileAt(path);
  } catch (e) {
    throw new Error(`failed to read lock file: ${fileProblem(path, e)}`, { cause: e });
  }
  try {
    return decodeLock(text);
  } catch (e) {
    throw new Error(`failed to read lock file: ${path}: ${(e as Error).message}`, { cause: e });
  }
}

/** Reads a file without following a symbolic link at its own name (O_NOFOLLOW). */
function readFileAt(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** Creates `path` (never an existing file, never through a symbolic link: O_EXCL | O_NOFOLLOW), writes and fsyncs it. */
function writeFileDurably(path: string, data: string, mode: number): void {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
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
    // (this process's own leftovers count as crashed: nothing of ours is still writing one)
    if (!m || (Number(m[1]) !== process.pid && processAlive(Number(m[1])))) continue;
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

export interface DataVersion {
  version: string;
  /** The feature set of the lock the data was written under (beyond MicroShift: a hand-deleted lock is noticed). */
  featureGateLock?: string;
}

/**
 * The data version from `<data-dir>/version` (JSON {"version": "X.Y.Z", ...} or legacy plain text). As
 * MicroShift: a missing or zero-length file means first run; anything else that does not parse — whitespace
 * only, say — is an error with MicroShift's text, and the file's path.
 */
export function readVersionFile(dataDir: string): DataVersion | undefined {
  const path = join(dataDir, VERSION_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`failed to get version of existing MicroShift data: reading ${fileProblem(path, e)}`, { cause: e });
  }
  if (text === '') return undefined;
  const fail = (why: string): never => {
    throw new Error(`failed to get version of existing MicroShift data: parsing ${JSON.stringify(text)} failed: ${why}\n(version file ${path})`);
  };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    try {
      return { version: formatVersion(parseStrictVersion(text)) };
    } catch (f) {
      return fail(`${(e as Error).message}\n${(f as Error).message}`);
    }
  }
  const o = json as { version?: unknown; feature_gate_lock?: unknown } | null;
  if (typeof o?.version !== 'string') return fail('no "version" string');
  try {
    parseStrictVersion(o.version);
  } catch (f) {
    return fail((f as Error).message);
  }
  return { version: o.version, ...(typeof o.feature_gate_lock === 'string' ? { featureGateLock: o.feature_gate_lock } : {}) };
}

function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim().replace(/-/g, '');
  } catch {
    return undefined;
  }
}

/**
 * Writes `<data-dir>/version` atomically (a new temp file, fsync, rename: the name is replaced, never
 * followed), mode 0600. `featureGateLock` (the locked feature set) is recorded beside MicroShift's fields.
 */
export function writeVersionFile(dataDir: string, version: string, featureGateLock?: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, VERSION_FILE);
  const tmp = `${path}.${process.pid}.tmp`;
  const boot = bootId();
  try { unlinkSync(tmp); } catch { /* none */ }
  writeFileDurably(
    tmp,
    JSON.stringify({ version, ...(boot ? { boot_id: boot } : {}), ...(featureGateLock ? { feature_gate_lock: featureGateLock } : {}) }),
    0o600,
  );
  renameSync(tmp, path);
  fsyncDir(dirname(path));
}

/** Appends to `<backup-dir>/prerun_failed.log`, never through a symbolic link (O_NOFOLLOW). */
export function appendPrerunFailure(backupDir: string, message: string): string {
  mkdirSync(backupDir, { recursive: true });
  const path = join(backupDir, PRERUN_FAILED_LOG);
  const fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, `${new Date().toISOString()} ${message}\n`);
  } finally {
    closeSync(fd);
  }
  return path;
}
