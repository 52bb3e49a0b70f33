// Resolution of FeatureGate spec into one version's gates, as cluster-config-operator computes it.
// Deliberate difference from upstream: a name is never listed twice (upstream's CustomNoUpgrade
// appends the forced names to Default's lists without de-duplication).
import { compareNames, featureSetName, FeatureSets } from './feature-set.js';
import type { FeatureGateDetails, FeatureGateSpec } from './wire.js';
import { toFeatureGateDetails, type EnabledDisabled } from './gate-lists.js';
import { knownGates, searched, type FeatureSetRegistry } from './registry.js';

export class ResolutionError extends Error {
  override name = 'ResolutionError';
}

const sortedUnique = (names: Iterable<string>): string[] => [...new Set(names)].sort(compareNames);

/** enabled/disabled names for a spec, byte-sorted, each known gate exactly once. */
export function resolveFeatureSet(spec: FeatureGateSpec, registry: FeatureSetRegistry): EnabledDisabled {
  const set = spec.featureSet ?? '';
  if (set === FeatureSets.CustomNoUpgrade) {
    const forceOn = spec.customNoUpgrade?.enabled ?? [];
    const forceOff = spec.customNoUpgrade?.disabled ?? [];
    const off = new Set(forceOff);
    for (const name of forceOn) {
      if (off.has(name)) throw new ResolutionError(`trying to enable and disable "${name}"`);
    }
    const on = new Set(forceOn);
    const base = registry.featureSets.get(FeatureSets.Default);
    if (!base) {
      // Upstream dereferences the missing set and crashes; an empty base would drop every other gate.
      throw new ResolutionError(`CustomNoUpgrade is the Default feature set changed by the spec's lists, but the payload manifests ` +
        `have no Default feature set for ${searched(registry)}`);
    }
    return {
      enabled: sortedUnique([...forceOn, ...base.enabled.filter((n) => !off.has(n))]),
      disabled: sortedUnique([...forceOff, ...base.disabled.filter((n) => !on.has(n))]),
    };
  }
  const gates = registry.featureSets.get(set);
  if (!gates) {
    const have = [...registry.featureSets.keys()].map(featureSetName).join(', ');
    // upstream's words first (Degraded messages are matched on them), then what was searched
    throw new ResolutionError(`.spec.featureSet ${JSON.stringify(set)} not found: the payload manifests have no ${featureSetName(set)} feature set ` +
      `for ${searched(registry)} (they define ${have})`);
  }
  let resolved = namedSets.get(registry);
  if (!resolved) namedSets.set(registry, resolved = new Map());
  const known = resolved.get(set);
  if (known) return known;
  const enabled = sortedUnique(gates.enabled);
  const on = new Set(enabled);
  const all = new Set([...knownGates(registry), ...gates.disabled]);
  const lists = Object.freeze({
    enabled: Object.freeze(enabled),
    disabled: Object.freeze(sortedUnique([...all].filter((n) => !on.has(n)))),
  });
  resolved.set(set, lists as EnabledDisabled);
  return lists as EnabledDisabled;
}

/**
 * A named set's lists, per registry (a registry is not changed once loaded): resolved once for every cluster of a
 * release — a hosted replica taking over hundreds of guests of one release sorted the same ~600 names for each.
 * Frozen: a caller that changed them would change every other's. Only sets the registry has are kept (bounded).
 */
const namedSets = new WeakMap<FeatureSetRegistry, Map<string, EnabledDisabled>>();

/** The status entry for `version`. */
export function resolveFeatureGateDetails(spec: FeatureGateSpec, registry: FeatureSetRegistry, version: string): FeatureGateDetails {
  const { enabled, disabled } = resolveFeatureSet(spec, registry);
  return toFeatureGateDetails({ version, enabled, disabled });
}
