// Validation of apiServer.featureGates, in MicroShift's order and with its messages, wrapped as
// `invalid configuration: error validating feature gates: <msg>`. Sets print in Go slice format, sorted.
import { compareNames, FeatureSets, isPresetFeatureSet } from '../api-types/index.js';
import { InvalidConfigurationError, REQUIRED_FEATURE_GATES, type StandaloneFeatureGates } from './config.js';

export function goSet(names: Iterable<string>): string {
  return `[${[...new Set(names)].sort(compareNames).join(' ')}]`;
}

function intersection(a: readonly string[], b: readonly string[]): string[] {
  const bs = new Set(b);
  return a.filter((x) => bs.has(x));
}

export interface ValidationOptions {
  /** TechPreviewNoUpgrade / DevPreviewNoUpgrade are resolvable (payload manifests were given). */
  presetsAvailable?: boolean;
  requiredGates?: readonly string[];
}

function fail(msg: string): never {
  throw new InvalidConfigurationError(`error validating feature gates: ${msg}`);
}

export function validateFeatureGates(fg: StandaloneFeatureGates, options: ValidationOptions = {}): void {
  const required = options.requiredGates ?? REQUIRED_FEATURE_GATES;
  const c = fg.customNoUpgrade;
  const s = fg.specialHandlingSupportExceptionRequired;
  const anyList = c.enabled.length + c.disabled.length + s.enabled.length + s.disabled.length > 0;
  if (fg.featureSet === '') {
    if (anyList) fail('CustomNoUpgrade and SpecialHandlingSupportExceptionRequired enabled/disabled lists must be empty when FeatureSet is empty');
    return;
  }
  if (isPresetFeatureSet(fg.featureSet)) {
    if (!options.presetsAvailable) fail(`FeatureSet ${fg.featureSet} is not supported. Use CustomNoUpgrade to enable/disable feature gates`);
    // Beyond upstream: a preset comes whole from the payload; lists would silently change it.
    if (anyList) fail(`CustomNoUpgrade and SpecialHandlingSupportExceptionRequired enabled/disabled lists must be empty when FeatureSet is ${fg.featureSet}`);
    return;
  }
  if (fg.featureSet !== FeatureSets.CustomNoUpgrade) fail(`invalid feature set: ${fg.featureSet}`);
  const checks: [string[], string][] = [
    [intersection(c.disabled, required as string[]), 'required feature gates cannot be disabled'],
    [intersection(s.disabled, required as string[]), 'required feature gates cannot be disabled'],
    [intersection(c.enabled, c.disabled), 'feature gates cannot be both enabled and disabled in customNoUpgrade'],
    [intersection(s.enabled, s.disabled), 'feature gates cannot be both enabled and disabled in specialHandlingSupportExceptionRequired'],
    [intersection(c.enabled, s.disabled), 'feature gates cannot be enabled in customNoUpgrade and disabled in specialHandlingSupportExceptionRequired'],
    [intersection(c.disabled, s.enabled), 'feature gates cannot be disabled in customNoUpgrade and enabled in specialHandlingSupportExceptionRequired'],
  ];
  for (const [names, msg] of checks) if (names.length > 0) fail(`${msg}: ${goSet(names)}`);
}
