// Gate lists as names, and their wire form: a status entry lists `{name}` objects. Everything above the
// wire (the registry, the SDK's helpers, the CLI) speaks names; these two functions are the only crossing.
import type { FeatureGateDetails } from './wire.js';

export interface EnabledDisabled {
  readonly enabled: readonly string[];
  readonly disabled: readonly string[];
}

/** The gates of one payload version, as names. */
export interface VersionGates extends EnabledDisabled {
  readonly version: string;
}

/** A status entry (`status.featureGates[]`) from names. */
export function toFeatureGateDetails({ version, enabled, disabled }: VersionGates): FeatureGateDetails {
  return { version, enabled: enabled.map((name) => ({ name })), disabled: disabled.map((name) => ({ name })) };
}

/** The names of a status entry. */
export function gateNames(entry: Pick<FeatureGateDetails, 'enabled' | 'disabled'>): EnabledDisabled {
  return { enabled: entry.enabled.map((g) => g.name), disabled: entry.disabled.map((g) => g.name) };
}
