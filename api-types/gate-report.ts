// Answers about gates that upstream tools do not give (pure; the CLI's explain, diff and preview read
// the files and the cluster): one gate's state in a set of lists, what flips between two sets of lists, and
// what a FeatureGate spec would resolve to — with unknown names, conflicts and the one-way warning.
import { compareNames } from './feature-set.js';
import type { EnabledDisabled } from './gate-lists.js';
import { knownGates, type FeatureSetRegistry } from './registry.js';
import { resolveFeatureSet } from './resolve.js';
import { closestName } from './suggest.js';
import type { FeatureGateSpec } from './wire.js';

export type GateState = 'enabled' | 'disabled';

/** The gate's state in these lists (enabled wins when listed in both, as upstream reads them), or undefined. */
export function gateState(lists: EnabledDisabled, name: string): GateState | undefined {
  if (lists.enabled.includes(name)) return 'enabled';
  if (lists.disabled.includes(name)) return 'disabled';
  return undefined;
}

export interface GateDiff {
  /** In `to` only. */
  added: { name: string; state: GateState }[];
  /** In `from` only. */
  removed: { name: string; state: GateState }[];
  enabledToDisabled: string[];
  disabledToEnabled: string[];
}

/** What flips from one set of lists to another; every list byte-sorted by name. */
export function diffGates(from: EnabledDisabled, to: EnabledDisabled): GateDiff {
  const state = (l: EnabledDisabled) => {
    const m = new Map<string, GateState>();
    for (const n of l.disabled) m.set(n, 'disabled');
    for (const n of l.enabled) m.set(n, 'enabled');
    return m;
  };
  const a = state(from);
  const b = state(to);
  const names = [...new Set([...a.keys(), ...b.keys()])].sort(compareNames);
  const d: GateDiff = { added: [], removed: [], enabledToDisabled: [], disabledToEnabled: [] };
  for (const n of names) {
    const x = a.get(n);
    const y = b.get(n);
    if (x === undefined && y !== undefined) d.added.push({ name: n, state: y });
    else if (y === undefined && x !== undefined) d.removed.push({ name: n, state: x });
    else if (x === 'enabled' && y === 'disabled') d.enabledToDisabled.push(n);
    else if (x === 'disabled' && y === 'enabled') d.disabledToEnabled.push(n);
  }
  return d;
}

export function diffIsEmpty(d: GateDiff): boolean {
  return d.added.length + d.removed.length + d.enabledToDisabled.length + d.disabledToEnabled.length === 0;
}

export interface UnknownGate {
  name: string;
  list: 'enabled' | 'disabled';
  suggestion?: string;
}

export interface SpecPreview {
  featureSet: string;
  /** The resolved lists (absent when the spec cannot resolve: a conflict or an unknown set). */
  resolved?: EnabledDisabled;
  /** customNoUpgrade names this payload does not know (upstream passes them on unchecked). */
  unknown: UnknownGate[];
  /** Names in both customNoUpgrade lists (the operator refuses the spec and reports Degraded). */
  conflicts: string[];
  /** Why the spec does not resolve, if it does not. */
  error?: string;
  /** The feature set is a NoUpgrade set: choosing it cannot be undone and blocks minor upgrades. */
  irreversible: boolean;
}

export function isNoUpgradeFeatureSet(featureSet: string | undefined): boolean {
  return (featureSet ?? '').endsWith('NoUpgrade');
}

/** One unknown name, as `preview` prints it and `render` warns about it. */
export function unknownGateMessage(u: UnknownGate): string {
  return `unknown gate ${JSON.stringify(u.name)} in customNoUpgrade.${u.list}${u.suggestion ? ` (did you mean ${JSON.stringify(u.suggestion)}?)` : ''}: ` +
    'the payload does not know it; it would be passed on unchecked';
}

/** What `spec` resolves to against a payload's registry, and what is wrong with it. */
export function previewSpec(spec: FeatureGateSpec, registry: FeatureSetRegistry): SpecPreview {
  const featureSet = spec.featureSet ?? '';
  const known = new Set(knownGates(registry));
  const enabled = spec.customNoUpgrade?.enabled ?? [];
  const disabled = spec.customNoUpgrade?.disabled ?? [];
  const unknown: UnknownGate[] = [];
  for (const [list, names] of [['enabled', enabled], ['disabled', disabled]] as const) {
    for (const name of names) {
      if (known.has(name)) continue;
      const suggestion = closestName(name, known);
      unknown.push({ name, list, ...(suggestion ? { suggestion } : {}) });
    }
  }
  const off = new Set(disabled);
  const conflicts = [...new Set(enabled.filter((n) => off.has(n)))].sort(compareNames);
  const out: SpecPreview = { featureSet, unknown, conflicts, irreversible: isNoUpgradeFeatureSet(featureSet) };
  try {
    out.resolved = resolveFeatureSet(spec, registry);
  } catch (e) {
    out.error = (e as Error).message;
  }
  return out;
}
