// Would a kubelet start with these gates and its configuration? Beyond component-base's gate rules (gate-rules.ts),
// the kubelet validates its KubeletConfiguration against its gates (facts: ../shared/reference/kubelet-config-rules.md),
// re-expressed over the rules generated from each release (api-types/kubelet-config-rules/,
// hack/update-kubelet-config-rules.mjs): fields that need a gate on, fields that must be unset while a gate is on or
// off, and fields the kubelet's defaulting sets only while a gate is on. Which gates the defaulting sees depends on
// how the kubelet is given them (cmd/kubelet/app/server.go):
//  - `--feature-gates` and no configuration file: the configuration is defaulted before the flag is applied (the gates'
//    defaults), then validated with the flag's gates — a beta gate on by default and turned off by the flag leaves its
//    defaulted field set, and the kubelet refuses it;
//  - `--feature-gates` with a configuration file: the file is defaulted with the flag's gates under its own
//    `featureGates` (the file's win), and validated with the file's gates under the flag's (the flag's win);
//  - the gates in the file's `featureGates` (what OpenShift's machine-config and MicroShift write): defaulted and
//    validated with them.
// Pure: no I/O, no clock.
import { DecodeError, describe, obj } from './decode.js';
import { GateRulesError, effectiveGates, kubernetesGateRules, type GateProblem, type KubernetesGateRules } from './gate-rules.js';
import { KUBELET_CONFIG_RULES } from './kubelet-config-rules/index.js';
import type { KubeletConfigRules } from './kubelet-config-rules/types.js';

export type { KubeletConfigRules } from './kubelet-config-rules/types.js';
import { fieldAt, fieldsOf, isZero, sameValue, withValue, type KubeletCondition, type KubeletFieldValue } from './kubelet-config-fields.js';

/** A node's KubeletConfiguration (kubelet.config.k8s.io/v1beta1): its fields as JSON, its own featureGates. */
export interface KubeletConfiguration {
  fields: Readonly<Record<string, unknown>>;
  featureGates: ReadonlyMap<string, boolean>;
}

/** How the kubelet is given the gates: its `--feature-gates` flag, or the configuration file's `featureGates`. */
export type KubeletGateRoute = 'flag' | 'file';

export interface KubeletConfigCheckInput {
  kubernetesVersion: string;
  gates: ReadonlyMap<string, boolean>;
  /**
   * The node's configuration file; undefined: the kubelet runs with no file (route `flag`) or a file holding only the gates (route `file`).
   */
  configuration?: KubeletConfiguration;
  route: KubeletGateRoute;
}

const KUBELET_API_VERSION = 'kubelet.config.k8s.io/v1beta1';
const KIND = 'KubeletConfiguration';

/**
 * A KubeletConfiguration from untrusted JSON (a file, or a node's /configz answer `{"kubeletconfig": {…}}`): an object,
 * `apiVersion` and `kind` (when present) the kubelet's, `featureGates` a map of booleans. Errors name the field path.
 */
export function decodeKubeletConfiguration(v: unknown, path = ''): KubeletConfiguration {
  let o = obj(v, path);
  if (o.kubeletconfig !== undefined && o.apiVersion === undefined && o.kind === undefined) {
    path = path ? `${path}.kubeletconfig` : 'kubeletconfig';
    o = obj(o.kubeletconfig, path);
  }
  const at = (k: string) => (path ? `${path}.${k}` : k);
  if (o.apiVersion !== undefined && o.apiVersion !== KUBELET_API_VERSION) {
    throw new DecodeError(at('apiVersion'), `expected ${JSON.stringify(KUBELET_API_VERSION)}, got ${JSON.stringify(o.apiVersion)}`);
  }
  if (o.kind !== undefined && o.kind !== KIND) throw new DecodeError(at('kind'), `expected ${JSON.stringify(KIND)}, got ${JSON.stringify(o.kind)}`);
  const featureGates = new Map<string, boolean>();
  if (o.featureGates !== undefined && o.featureGates !== null) {
    for (const [name, value] of Object.entries(obj(o.featureGates, at('featureGates')))) {
      if (typeof value !== 'boolean') throw new DecodeError(at(`featureGates.${name}`), `expected boolean, got ${describe(value)}`);
      featureGates.set(name, value);
    }
  }
  return { fields: o, featureGates };
}

/** Each minor's rules once built. */
const built = new Map<string, KubeletConfigRules>();

/** The kubelet's configuration rules of a Kubernetes minor, or a GateRulesError naming the supported ones. */
export function kubeletConfigRules(kubernetesVersion: string): KubeletConfigRules {
  const minor = /^v?(\d+\.\d+)/.exec(kubernetesVersion.trim())?.[1];
  const build = minor === undefined ? undefined : KUBELET_CONFIG_RULES[minor];
  if (!build) throw new GateRulesError(`no kubelet configuration rules for Kubernetes ${kubernetesVersion}; this build knows ${Object.keys(KUBELET_CONFIG_RULES).join(', ')}`);
  let rules = built.get(minor!);
  if (!rules) built.set(minor!, (rules = build()));
  return rules;
}

function holds(c: KubeletCondition, fields: Readonly<Record<string, unknown>>, defaulted: ReadonlySet<string>): boolean {
  if ('any' in c) return c.any.some((t) => holds(t, fields, defaulted));
  const v = fieldAt(fields, c.field);
  const absent = v === undefined || v === null;
  switch (c.test) {
    case 'set': return !absent || defaulted.has(c.field);
    case 'unset': return absent && !defaulted.has(c.field);
    case 'nonzero': return !isZero(v);
    case 'nonempty': return typeof v === 'string' || Array.isArray(v) ? v.length > 0 : v !== null && typeof v === 'object' && Object.keys(v).length > 0; // Go's len() > 0
    case 'true': return v === true;
    case 'equals': return !absent && sameValue(v, c.value!);
    case 'differs': return !absent && !sameValue(v, c.value!); // absent: defaulted to the value the rule compares with
  }
}

function withDefault(fields: Record<string, unknown>, path: string, value: KubeletFieldValue): Record<string, unknown> {
  const now = fieldAt(fields, path);
  return now === undefined || now === null || now === '' ? withValue(fields, path, render(value)) : fields;
}
function render(value: KubeletFieldValue): unknown {
  if (typeof value !== 'object') return value;
  const s = value.duration / 1000;
  return s >= 60 ? `${Math.floor(s / 60)}m${s % 60}s` : `${s}s`;
}

/**
 * The kubelet's configuration problems (kind `config`) with these gates — only meaningful when the gates themselves
 * pass gate-rules.ts's check, as the kubelet validates its configuration after setting its gates.
 */
export function checkKubeletConfiguration(
  input: KubeletConfigCheckInput,
  gateRules: KubernetesGateRules = kubernetesGateRules(input.kubernetesVersion),
  rules: KubeletConfigRules = kubeletConfigRules(input.kubernetesVersion),
): GateProblem[] {
  const file = input.configuration;
  const fileGates = file?.featureGates ?? new Map<string, boolean>();
  const merge = (...maps: ReadonlyMap<string, boolean>[]) => new Map(maps.flatMap((m) => [...m]));
  let defaulting: Map<string, boolean>;
  let validating: Map<string, boolean>;
  if (input.route === 'file') {
    defaulting = validating = merge(fileGates, input.gates);
  } else {
    defaulting = file ? merge(input.gates, fileGates) : new Map();
    validating = merge(fileGates, input.gates);
  }
  const onAtDefaulting = effectiveGates(gateRules, defaulting, { component: 'kubelet' });
  const on = effectiveGates(gateRules, validating, { component: 'kubelet' });
  let fields: Record<string, unknown> = { ...(file?.fields ?? {}) };
  const byDefault = new Map<string, string>();
  for (const d of rules.defaults) {
    if (!onAtDefaulting(d.gate)) continue;
    const before = fields;
    fields = withDefault(fields, d.field, d.value);
    if (fields !== before) byDefault.set(d.field, d.gate);
  }
  const defaulted = new Set(rules.defaulted);
  const problems: GateProblem[] = [];
  for (const r of rules.requires) {
    if (on(r.gate) !== r.enabled || !r.when.every((c) => holds(c, fields, defaulted))) continue;
    const names = [...new Set(r.when.flatMap(fieldsOf))];
    const values = names.map((n) => fieldAt(fields, n));
    const message = r.message.replace(/%[vqs]/g, () => {
      const v = values.shift();
      return typeof v === 'string' ? v : JSON.stringify(v);
    });
    const set = names.find((n) => byDefault.has(n));
    const fix =
      set !== undefined
        ? `with no configuration file the kubelet applies its defaults before --feature-gates, so ${set} was set while ${byDefault.get(set)} was on: ` +
          `run the kubelet with a configuration file (--config; its defaults then see the gates), or keep ${r.gate} on`
        : r.enabled
          ? `change ${names.join(', ')} in the kubelet configuration, or keep ${r.gate} off`
          : `remove ${names.join(', ')} from the kubelet configuration, or keep ${r.gate} on`;
    problems.push({ gate: r.gate, kind: 'config', field: names.join(', '), message, fix });
  }
  return problems;
}

