// The standalone start-up sequence, in MicroShift's order: configuration (load, validate) → version
// compatibility (read-only) → feature-gate lock management (create or check) → write the version file.
// The version file is written only when every check passed, so rolling back to the locked version works.
import { join } from 'node:path';
import { formatVersion, isPresetFeatureSet, parseStrictVersion, type FeatureSetRegistry, type ParsedVersion } from '../api-types/index.js';
import { loadRegistry } from '../runtime/manifests/payload-manifests.js';
import { silentLogger, type Logger } from '../runtime/log/logger.js';
import { featureGatesFromConfig, type StandaloneFeatureGates } from './config.js';
import { createLock, LOCK_FILE, loadConfigFiles, readLock, readVersionFile, VERSION_FILE, writeVersionFile, type DataVersion, type LockWriteHooks } from './files.js';
import { configChecks, encodeLock, lockFor, upgradeChecks, type FeatureGateLock, type RefusalContext } from './lock.js';
import { goSet, validateFeatureGates } from './validate.js';
import { checkVersionCompatibility } from './version.js';
import { checkStandaloneGates, startRefusal } from './start-check.js';

export interface StandaloneOptions {
  configFile: string;
  configDir: string;
  /** --config / --config-dir given explicitly: they must exist (only the defaults may be absent). */
  explicitConfigFile?: boolean;
  explicitConfigDir?: boolean;
  /** Every check, nothing written: the result says what would have been written. */
  dryRun?: boolean;
  dataDir: string;
  /** The executable's version, X.Y.Z. */
  version: string;
  featureGateDir?: string;
  /** The node's Kubernetes minor (X.Y) for the gates-that-start check; default: the version's, when this build knows it. */
  kubernetesVersion?: string;
  /** The node's KubeletConfiguration (MicroShift's, the base `render` merges the gates into): judged with the gates. */
  kubeletConfiguration?: Record<string, unknown>;
  logger?: Logger;
  hooks?: LockWriteHooks;
}

/** A check refused the start (exit 1); the message is what the administrator reads. */
export class PrerunError extends Error {
  override name = 'PrerunError';
}

export interface PrerunResult {
  featureGates: StandaloneFeatureGates;
  registry: FeatureSetRegistry | undefined;
  lock: FeatureGateLock | undefined;
  configFiles: string[];
  /** The files that set apiServer.featureGates. */
  gateSources: string[];
  version: ParsedVersion;
  /** What this start wrote (or, with dryRun, would write). */
  writes: { lock?: { path: string; content: string }; version: { path: string; version: string; featureGateLock?: string } };
  /** Things an administrator should know that did not refuse the start. */
  warnings: string[];
}

/** Load and validate the configuration (InvalidConfigurationError on failure). */
export function loadStandaloneConfig(options: StandaloneOptions): {
  featureGates: StandaloneFeatureGates;
  registry: FeatureSetRegistry | undefined;
  files: string[];
  gateSources: string[];
  warnings: string[];
} {
  const { merged, files, gateSources, warnings } = loadConfigFiles({
    configFile: options.configFile,
    configDir: options.configDir,
    ...(options.explicitConfigFile ? { explicitConfigFile: true } : {}),
    ...(options.explicitConfigDir ? { explicitConfigDir: true } : {}),
  });
  const featureGates = featureGatesFromConfig(merged);
  const preset = isPresetFeatureSet(featureGates.featureSet);
  validateFeatureGates(featureGates, { presetsAvailable: options.featureGateDir !== undefined });
  const registry =
    preset && options.featureGateDir ? loadRegistry(options.featureGateDir, { operatorVersion: options.version }) : undefined;
  return { featureGates, registry, files, gateSources, warnings };
}

export function prerun(options: StandaloneOptions): PrerunResult {
  const log = options.logger ?? silentLogger;
  const version = parseStrictVersion(options.version);
  const { featureGates, registry, files, gateSources, warnings } = loadStandaloneConfig(options);
  log.info('Effective configuration', { files, 'apiServer.featureGates': featureGates });

  // Gates that start (read-only), before anything is written: a lock is never made with gates kube-apiserver or the kubelet refuses.
  const starts = checkStandaloneGates(featureGates, registry, version, options.kubernetesVersion, options.kubeletConfiguration);
  if (!starts.checked) {
    warnings.push(`the gates were not checked against Kubernetes' rules: ${starts.why}`);
  } else if (starts.problems.length) {
    const message = startRefusal(starts.kubernetesVersion, starts.problems, gateSources);
    log.error('FAIL feature gates that start', { error: message });
    throw new PrerunError(message);
  }

  // Version compatibility (read-only).
  const data = compatibleData(options, version, log);

  // Feature gate lock management.
  const { lock, lockWrite } = manageLock(options, { featureGates, version, gateSources, warnings, log, ...(data ? { data } : {}) });
  log.info('END feature gate lock management');
  for (const w of warnings) log.warn(w);

  const versionWrite = {
    path: join(options.dataDir, VERSION_FILE),
    version: formatVersion(version),
    ...(lock ? { featureGateLock: lock.featureSet } : {}),
  };
  if (!options.dryRun) writeVersionFile(options.dataDir, versionWrite.version, versionWrite.featureGateLock);
  return {
    featureGates,
    registry,
    lock,
    configFiles: files,
    gateSources,
    version,
    writes: { ...(lockWrite ? { lock: lockWrite } : {}), version: versionWrite },
    warnings,
  };
}

/** The data's version file, if any, and whether this version may start on it (read-only; a refusal is a PrerunError). */
function compatibleData(options: StandaloneOptions, version: ParsedVersion, log: Logger): DataVersion | undefined {
  try {
    const data = readVersionFile(options.dataDir);
    if (data === undefined) {
      log.info('Version file does not exist yet - assuming first run of MicroShift');
    } else {
      const msg = checkVersionCompatibility(version, parseStrictVersion(data.version));
      if (msg) log.info(msg);
    }
    return data;
  } catch (e) {
    log.error('FAIL version compatibility check', { error: (e as Error).message });
    throw new PrerunError((e as Error).message);
  }
}

/**
 * The one-way lock: none and a feature set other than Default → created (on a dry run, the one a real start would
 * create); then checked against the configuration and the version. A lock is never made by accident (only a start
 * whose every check passed comes here), never undone (a missing lock the data was started under refuses the start).
 */
function manageLock(options: StandaloneOptions, r: {
  featureGates: StandaloneFeatureGates; version: ParsedVersion; gateSources: string[]; warnings: string[]; log: Logger; data?: DataVersion;
}): { lock: FeatureGateLock | undefined; lockWrite: PrerunResult['writes']['lock'] } {
  const { featureGates, version, gateSources, warnings, log, data } = r;
  const lockPath = join(options.dataDir, LOCK_FILE);
  log.info('START feature gate lock management');
  let lock: FeatureGateLock | undefined;
  let lockWrite: PrerunResult['writes']['lock'];
  try {
    lock = readLock(options.dataDir);
    if (!lock && data?.featureGateLock) {
      // Beyond MicroShift, which forgets the choice: the data was written under a lock that is gone.
      throw new PrerunError(`the feature gate lock ${lockPath} is missing, but the data in ${options.dataDir} was last started under it ` +
        `(feature set ${JSON.stringify(data.featureGateLock)}, recorded in ${join(options.dataDir, VERSION_FILE)}). ` +
        'A lock is only ever removed together with the data: restore the lock file from a backup, or run: sudo microshift-cleanup-data --all');
    }
    if (!lock && featureGates.featureSet !== '') {
      const wanted = lockFor(featureGates, version);
      lockWrite = { path: lockPath, content: encodeLock(wanted) };
      if (options.dryRun) {
        lock = wanted;
      } else {
        log.info('Creating feature gate lock file - this cluster can no longer be upgraded', { path: lockPath });
        if (createLock(options.dataDir, wanted, options.hooks ?? {}) === 'created') {
          log.info('Feature gate lock file created successfully', { featureSet: wanted.featureSet, version: wanted.version });
          lock = wanted;
        } else {
          lockWrite = undefined;
          lock = readLock(options.dataDir); // another start won the race: check against its lock
        }
      }
    }
    if (lock) {
      // On a dry run without a lock, `lock` is the one a real start would create: say so, not "validating".
      log.info(lockWrite && options.dryRun ? 'Dry run: no feature gate lock file yet; checking against the one a real start would create'
        : 'Validating feature gate lock file', { path: lockPath });
      const here: RefusalContext = {
        lockPath, dataDir: options.dataDir, gateSources, configFile: options.configFile, ...(data ? { dataVersion: data.version } : {}),
      };
      const problem = configChecks(lock, featureGates, here) ?? upgradeChecks(lock, featureGates, version, here);
      if (problem) throw new PrerunError(problem);
      const c = featureGates.customNoUpgrade;
      if (lock.customNoUpgrade.enabled.length + lock.customNoUpgrade.disabled.length === 0 && c.enabled.length + c.disabled.length > 0) {
        warnings.push(`the lock ${lockPath} lists no gates while the configuration names ${goSet([...c.enabled, ...c.disabled])}: ` +
          'a lock records the gates of the first locked start only, so these gates will not block a minor upgrade — upgrading with them is unsupported');
      }
      log.info(lockWrite && options.dryRun ? 'Checks against the would-be lock passed (dry run: not created)' : 'Feature gate lock file validation successful');
    }
  } catch (e) {
    log.error('FAIL feature gate lock management', { error: (e as Error).message });
    throw e instanceof PrerunError ? e : new PrerunError((e as Error).message);
  }
  return { lock, lockWrite };
}
