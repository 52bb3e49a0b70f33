// The standalone configuration's feature-gate block, `apiServer.featureGates`, decoded from the merged
// user configuration and laid over the defaults as MicroShift does: a non-empty featureSet and non-empty
// lists replace the defaults; empty values leave them.
import { describe } from '../api-types/index.js';

export interface GateLists {
  enabled: string[];
  disabled: string[];
}

export interface StandaloneFeatureGates {
  featureSet: string;
  customNoUpgrade: GateLists;
  specialHandlingSupportExceptionRequired: GateLists;
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

function lists(v: unknown, path: string): GateLists {
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
  if (custom.enabled.length) out.customNoUpgrade.enabled = custom.enabled;
  if (custom.disabled.length) out.customNoUpgrade.disabled = custom.disabled;
  if (special.enabled.length) out.specialHandlingSupportExceptionRequired.enabled = special.enabled;
  if (special.disabled.length) out.specialHandlingSupportExceptionRequired.disabled = special.disabled;
  return out;
}
