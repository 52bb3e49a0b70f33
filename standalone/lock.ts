// The feature-gate lock `<data-dir>/no-upgrade`: what it holds, how it is encoded, and the checks a
// start must pass while it exists (pure; standalone/files.ts does the I/O).
import { stringify } from 'yaml';
import { parseYaml, YamlSyntaxError } from '../runtime/util/yaml.js';
import { describe, FeatureSets, formatVersion, isPresetFeatureSet, parseStrictVersion, type EnabledDisabled, type ParsedVersion } from '../api-types/index.js';
import type { StandaloneFeatureGates } from './config.js';
import { goSet } from './validate.js';

export interface FeatureGateLock {
  featureSet: string;
  customNoUpgrade: EnabledDisabled;
  version: string;
}

export function lockFor(fg: StandaloneFeatureGates, version: ParsedVersion): FeatureGateLock {
  return {
    featureSet: fg.featureSet,
    customNoUpgrade: { enabled: [...fg.customNoUpgrade.enabled], disabled: [...fg.customNoUpgrade.disabled] },
    version: formatVersion(version),
  };
}

/** YAML with sorted keys, empty lists as []. */
export function encodeLock(lock: FeatureGateLock): string {
  return stringify({
    customNoUpgrade: { disabled: lock.customNoUpgrade.disabled, enabled: lock.customNoUpgrade.enabled },
    featureSet: lock.featureSet,
    version: lock.version,
  }, { sortMapEntries: true });
}

function names(v: unknown, where: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw new Error(`${where}: expected a list of gate names, got ${describe(v)}`);
  return v as string[];
}

/** Strict: an empty, truncated, unparsable or wrongly shaped lock is an error, never "no lock". */
export function decodeLock(text: string): FeatureGateLock {
  if (text.trim() === '') throw new Error('the lock file is empty');
  let o: unknown;
  try {
    o = parseYaml(text, 'the lock file');
  } catch (e) {
    if (!(e instanceof YamlSyntaxError)) throw e;
    throw new Error(`not valid YAML${e.line !== undefined ? ` (line ${e.line}, column ${e.col})` : ''}: ${e.what}`, { cause: e });
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new Error(`expected a mapping, got ${describe(o)}`);
  const r = o as Record<string, unknown>;
  for (const k of Object.keys(r)) if (!['featureSet', 'customNoUpgrade', 'version'].includes(k)) throw new Error(`unexpected field ${JSON.stringify(k)}`);
  if (typeof r.featureSet !== 'string') throw new Error(`featureSet: expected a string, got ${describe(r.featureSet)}`);
  if (typeof r.version !== 'string') throw new Error(`version: expected a string, got ${describe(r.version)}`);
  parseStrictVersion(r.version);
  const c = r.customNoUpgrade;
  if (c !== undefined && c !== null && (typeof c !== 'object' || Array.isArray(c))) throw new Error(`customNoUpgrade: expected a mapping, got ${describe(c)}`);
  const co = (c ?? {}) as Record<string, unknown>;
  return { featureSet: r.featureSet, version: r.version, customNoUpgrade: { enabled: names(co.enabled, 'customNoUpgrade.enabled'), disabled: names(co.disabled, 'customNoUpgrade.disabled') } };
}

export const RESTORE_STEPS = [
  'To restore MicroShift to a supported state, you must:',
  '1. Run: sudo microshift-cleanup-data --all',
  '2. Remove custom feature gates from /etc/microshift/config.yaml',
  '3. Restart MicroShift: sudo systemctl restart microshift',
].join('\n');

/**
 * What is true on this node, for a refusal (beyond MicroShift, whose remedies name fixed paths and always
 * offer a roll-back): the files that set the gates, the lock, the data version.
 */
export interface RefusalContext {
  lockPath: string;
  dataDir: string;
  /** Files that set apiServer.featureGates, in the order applied (none: the gates were removed from every file). */
  gateSources: readonly string[];
  /** The main configuration file (named when no file sets the gates any more). */
  configFile: string;
  /** The version the data was last started with (the version file), if any. */
  dataVersion?: string;
}

function where(ctx: RefusalContext, lock: FeatureGateLock): string[] {
  return [
    'On this node:',
    `- the lock ${ctx.lockPath} holds feature set ${JSON.stringify(lock.featureSet)}, created by version ${lock.version}`,
    ctx.gateSources.length > 0
      ? `- apiServer.featureGates is set in ${ctx.gateSources.join(', ')}${ctx.gateSources.length > 1 ? ' (later files win)' : ''}`
      : `- no configuration file sets apiServer.featureGates any more (the main one is ${ctx.configFile})`,
    ...(ctx.dataVersion ? [`- the data in ${ctx.dataDir} was last started by version ${ctx.dataVersion}`] : []),
  ];
}

const cleanupSteps = (ctx: RefusalContext, n: number) => [
  `${n}. Run: sudo microshift-cleanup-data --all (removes ${ctx.dataDir}, the lock with it), then`,
  `${n + 1}. remove the custom feature gates from ${ctx.gateSources.length > 0 ? ctx.gateSources.join(' and ') : ctx.configFile}, then`,
  `${n + 2}. restart MicroShift: sudo systemctl restart microshift`,
];

/** The config may not unset the locked feature set nor move to another one (OpenShift's CEL rules). */
export function configChecks(lock: FeatureGateLock, fg: StandaloneFeatureGates, here?: RefusalContext): string | undefined {
  let inner: string | undefined;
  if (lock.featureSet !== '' && fg.featureSet === '') {
    inner = `cannot unset feature set. Previous config had feature set ${JSON.stringify(lock.featureSet)}, current config has no feature set configured`;
  } else if (lock.featureSet !== '' && fg.featureSet !== lock.featureSet) {
    // Upstream only has this rule for CustomNoUpgrade; every NoUpgrade set is one-way here.
    inner = `cannot change ${lock.featureSet} feature set. Previous feature set was ${JSON.stringify(lock.featureSet)}, current feature set is ${JSON.stringify(fg.featureSet)}`;
  }
  if (inner === undefined) return undefined;
  const head = `detected invalid changes in feature gate configuration: ${inner}`;
  if (!here) return `${head}\n\n${RESTORE_STEPS}`;
  // Only a feature set the configuration may name can be put back; a lock holding any other value (damaged,
  // or written by something else) leaves restoring the lock file or cleaning up the data.
  const restorable = lock.featureSet === FeatureSets.CustomNoUpgrade || isPresetFeatureSet(lock.featureSet);
  return [head, '', ...where(here, lock), '',
    'To start again, either:',
    restorable
      ? `1. put back apiServer.featureGates.featureSet: ${lock.featureSet} (the choice is permanent for this data), OR`
      : `1. restore the lock file ${here.lockPath} from a backup (${JSON.stringify(lock.featureSet)} is not a feature set a configuration can name, so the lock is damaged), OR`,
    ...cleanupSteps(here, 2),
  ].join('\n');
}

/**
 * A major or minor change (either direction) is refused unless every locked gate is exempted by the
 * current config's specialHandlingSupportExceptionRequired lists of the same polarity. Patch changes pass.
 * A locked TechPreviewNoUpgrade/DevPreviewNoUpgrade set (an extension) cannot be exempted.
 * With `here`, the remedies are only those that work from this state: a roll-back to the locked version
 * only while the data was last started by that minor (a newer data version refuses older executables).
 */
export function upgradeChecks(
  lock: FeatureGateLock,
  fg: StandaloneFeatureGates,
  exec: ParsedVersion,
  here?: RefusalContext,
): string | undefined {
  const locked = parseStrictVersion(lock.version);
  if (locked.major === exec.major && locked.minor === exec.minor) return undefined;
  const se = new Set(fg.specialHandlingSupportExceptionRequired.enabled);
  const sd = new Set(fg.specialHandlingSupportExceptionRequired.disabled);
  const blockedEnabled = lock.customNoUpgrade.enabled.filter((n) => !se.has(n));
  const blockedDisabled = lock.customNoUpgrade.disabled.filter((n) => !sd.has(n));
  const preset = isPresetFeatureSet(lock.featureSet);
  if (!preset && blockedEnabled.length === 0 && blockedDisabled.length === 0) return undefined;
  const E = formatVersion(exec);
  const head = [
    `version upgrade detected with custom feature gates: locked version ${lock.version}, current version ${E}`,
    '',
    'Upgrades are not supported when custom feature gates are configured.',
    `Custom feature gates were configured in version ${lock.version}.`,
    ...(preset ? [`Feature set: ${lock.featureSet}`] : []),
    `Gates Enabled: ${goSet(blockedEnabled)}`,
    `Gates Disabled: ${goSet(blockedDisabled)}`,
  ];
  if (!here) {
    return [
      ...head,
      'To restore MicroShift to a supported state, you must:',
      `1. Roll back to version ${lock.version}, OR`,
      '2. Run: sudo microshift-cleanup-data --all',
      '3. Remove custom feature gates from /etc/microshift/config.yaml',
      '4. Restart MicroShift: sudo systemctl restart microshift',
    ].join('\n');
  }
  const data = here.dataVersion ? parseStrictVersion(here.dataVersion) : undefined;
  const rollBack = !data || (data.major === locked.major && data.minor === locked.minor);
  const remedies = [
    ...(rollBack
      ? [`run version ${locked.major}.${locked.minor} again (the data is still at ${here.dataVersion ?? lock.version}), OR`]
      : []),
    ...(preset
      ? []
      : [
          'with a support exception for every gate listed above, list them under apiServer.featureGates.specialHandlingSupportExceptionRequired (same polarity), OR',
        ]),
  ];
  return [
    ...head,
    '',
    ...where(here, lock),
    '',
    'To start again, either:',
    ...(rollBack ? [] : [`(rolling back to ${lock.version} is no longer possible: the data was already started by ${here.dataVersion})`]),
    ...remedies.map((r, i) => `${i + 1}. ${r}`),
    ...cleanupSteps(here, remedies.length + 1),
  ].join('\n');
}
