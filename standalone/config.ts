// The standalone configuration's feature-gate block, `apiServer.featureGates`, decoded from the merged
// user configuration and laid over the defaults as MicroShift does: a non-empty featureSet and non-empty
// lists replace the defaults; empty values leave them.
import { closestName, describe, didYouMean, type EnabledDisabled } from '../api-types/index.js';

export interface StandaloneFeatureGates {
  featureSet: string;
  customNoUpgrade: EnabledDisabled;
  specialHandlingSupportExceptionRequired: EnabledDisabled;
}

export const REQUIRED_FEATURE_GATES = ['UserNamespacesSupport', 'UserNamespacesPodSecurityStandards'];

export class InvalidConfigurationError extends Error {
  override name = 'InvalidConfigurationError';
  constructor(inner: string) {
    super(`invalid configuration: ${inner}`);
  }
}

export function defaultFeatureGates(): StandaloneFeatureGates {
  return { featureSet: '', customNoUpgrade: { enabled: [], disabled: [] }, specialHandlingSupportExceptionRequired: { enabled: [], disabled: [] } };
}

type Obj = Record<string, unknown>;
const PATH = 'apiServer.featureGates';

function objAt(v: unknown, path: string): Obj | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw new InvalidConfigurationError(`${path}: expected a mapping, got ${describe(v)}`);
  return v as Obj;
}

function stringsAt(v: unknown, path: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new InvalidConfigurationError(`${path}: expected a list of gate names, got ${describe(v)}`);
  return v.map((x, i) => {
    if (typeof x !== 'string') throw new InvalidConfigurationError(`${path}[${i}]: expected a string, got ${describe(x)}`);
    return x;
  });
}

function lists(v: unknown, path: string): EnabledDisabled {
  const o = objAt(v, path) ?? {};
  return { enabled: stringsAt(o.enabled, `${path}.enabled`), disabled: stringsAt(o.disabled, `${path}.disabled`) };
}

/** Reads apiServer.featureGates from the merged user configuration. */
export function featureGatesFromConfig(merged: unknown): StandaloneFeatureGates {
  const out = defaultFeatureGates();
  const root = objAt(merged, '<config>');
  const fg = objAt(objAt(root?.apiServer, 'apiServer')?.featureGates, PATH);
  if (!fg) return out;
  if (fg.featureSet !== undefined && fg.featureSet !== null) {
    if (typeof fg.featureSet !== 'string') throw new InvalidConfigurationError(`${PATH}.featureSet: expected a string, got ${describe(fg.featureSet)}`);
    if (fg.featureSet !== '') out.featureSet = fg.featureSet;
  }
  const custom = lists(fg.customNoUpgrade, `${PATH}.customNoUpgrade`);
  const special = lists(fg.specialHandlingSupportExceptionRequired, `${PATH}.specialHandlingSupportExceptionRequired`);
  // MicroShift copies a list over the default only when it is non-empty; the default is empty, so taking the
  // lists as read is the same.
  return { ...out, customNoUpgrade: custom, specialHandlingSupportExceptionRequired: special };
}

const isMapping = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A configuration document's `apiServer` mapping, if it has one. */
function apiServerOf(doc: unknown): Obj | undefined {
  const api = isMapping(doc) ? doc.apiServer : undefined;
  return isMapping(api) ? api : undefined;
}

const FEATURE_GATES_KEYS = ['featureSet', 'customNoUpgrade', 'specialHandlingSupportExceptionRequired'];
const LIST_KEYS = ['enabled', 'disabled'];

/**
 * Beyond MicroShift (which ignores unknown keys): an unknown key under apiServer.featureGates or inside its
 * two list objects is an error, with the closest known key — a misspelt `customNoUpgrade` would otherwise
 * lock the node with empty lists. Keys elsewhere in the file belong to the rest of the node's configuration.
 * Checked per file, so the error names the file.
 */
export function checkFeatureGateKeys(doc: unknown): void {
  const fg = apiServerOf(doc)?.featureGates;
  if (!isMapping(fg)) return;
  const unknown = (keys: string[], known: string[], at: string) => {
    for (const k of keys) {
      if (!known.includes(k)) throw new InvalidConfigurationError(`${at}: unknown key ${JSON.stringify(k)}${didYouMean(k, known)}; known keys: ${known.join(', ')}`);
    }
  };
  unknown(Object.keys(fg), FEATURE_GATES_KEYS, PATH);
  for (const listKey of FEATURE_GATES_KEYS.slice(1)) {
    const l = fg[listKey];
    if (isMapping(l)) unknown(Object.keys(l), LIST_KEYS, `${PATH}.${listKey}`);
  }
}

/**
 * Keys next to `featureGates` under `apiServer` that are a near miss of it (`featureGate`, `featuregates`,
 * `featureGats`): MicroShift ignores unknown keys there — and so do we — but a misspelling of the one key
 * that can make a permanent choice must not pass in silence. One warning per key, naming it.
 */
export function featureGatesNearMisses(doc: unknown): string[] {
  return Object.keys(apiServerOf(doc) ?? {})
    .filter((k) => k !== 'featureGates' && closestName(k, ['featureGates']) !== undefined)
    .map((k) => `apiServer.${k} is not a key MicroShift reads (did you mean apiServer.featureGates?): it is ignored, ` +
      'and no feature gate is set from it');
}

/** Whether a configuration document sets anything under apiServer.featureGates (to name the files that did). */
export function setsFeatureGates(doc: unknown): boolean {
  const fg = ((doc as Obj | null)?.apiServer as Obj | null | undefined)?.featureGates;
  return fg !== undefined && fg !== null && typeof fg === 'object' && Object.keys(fg).length > 0;
}
