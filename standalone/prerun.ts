// The standalone start-up sequence, in MicroShift's order: configuration (load, validate) → version
// compatibility (read-only) → feature-gate lock management (create or check) → write the version file.
// The version file is written only when every check passed, so rolling back to the locked version works.
import { join } from 'node:path';
import { FeatureSets, type FeatureSetRegistry } from '../api-types/index.js';
import { loadRegistry } from '../runtime/payload-manifests.js';
import { silentLogger, type Logger } from '../runtime/logger.js';
import { featureGatesFromConfig, type StandaloneFeatureGates } from './config.js';
import { createLock, LOCK_FILE, loadConfigFiles, readLock, readVersionFile, writeVersionFile, type LockWriteHooks } from './files.js';
import { configChecks, lockFor, upgradeChecks, type FeatureGateLock } from './lock.js';
import { validateFeatureGates } from './validate.js';
import { checkVersionCompatibility, formatVersion, parseExecVersion, type ExecVersion } from './version.js';

export interface StandaloneOptions {
  configFile: string;
  configDir: string;
  dataDir: string;
  /** The executable's version, X.Y.Z. */
  version: string;
  featureGateDir?: string;
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
  version: ExecVersion;
}

/** Load and validate the configuration (InvalidConfigurationError on failure). */
export function loadStandaloneConfig(options: StandaloneOptions): { featureGates: StandaloneFeatureGates; registry: FeatureSetRegistry | undefined; files: string[] } {
  const { merged, files } = loadConfigFiles(options.configFile, options.configDir);
  const featureGates = featureGatesFromConfig(merged);
  const preset = featureGates.featureSet === FeatureSets.TechPreviewNoUpgrade || featureGates.featureSet === FeatureSets.DevPreviewNoUpgrade;
  validateFeatureGates(featureGates, { presetsAvailable: options.featureGateDir !== undefined });
  const registry = preset && options.featureGateDir ? loadRegistry(options.featureGateDir, { operatorVersion: options.version }) : undefined;
  return { featureGates, registry, files };
}

export function prerun(options: StandaloneOptions): PrerunResult {
  const log = options.logger ?? silentLogger;
  const version = parseExecVersion(options.version);
  const { featureGates, registry, files } = loadStandaloneConfig(options);
  log.info('Effective configuration', { files, 'apiServer.featureGates': featureGates });

  // Version compatibility (read-only).
  const dataVersion = readVersionFile(options.dataDir);
  if (dataVersion === undefined) {
    log.info('Version file does not exist yet - assuming first run of MicroShift');
  } else {
    try {
      const msg = checkVersionCompatibility(version, parseExecVersion(dataVersion));
      if (msg) log.info(msg);
    } catch (e) {
      throw new PrerunError((e as Error).message);
    }
  }

  // Feature gate lock management.
  log.info('START feature gate lock management');
  const lockPath = join(options.dataDir, LOCK_FILE);
  let lock: FeatureGateLock | undefined;
  try {
    lock = readLock(options.dataDir);
    if (!lock && featureGates.featureSet !== '') {
      log.info('Creating feature gate lock file - this cluster can no longer be upgraded', { path: lockPath });
      const wanted = lockFor(featureGates, version);
      if (createLock(options.dataDir, wanted, options.hooks ?? {}) === 'created') {
        log.info('Feature gate lock file created successfully', { featureSet: wanted.featureSet, version: wanted.version });
        lock = wanted;
      } else {
        lock = readLock(options.dataDir); // another start won the race: check against its lock
      }
    }
    if (lock) {
      log.info('Validating feature gate lock file', { path: lockPath });
      const problem = configChecks(lock, featureGates) ?? upgradeChecks(lock, featureGates, version);
      if (problem) throw new PrerunError(problem);
      log.info('Feature gate lock file validation successful');
    }
  } catch (e) {
    log.error('FAIL feature gate lock management', { error: (e as Error).message });
    throw e instanceof PrerunError ? e : new PrerunError((e as Error).message);
  }
  log.info('END feature gate lock management');

  writeVersionFile(options.dataDir, formatVersion(version));
  return { featureGates, registry, lock, configFiles: files, version };
}
