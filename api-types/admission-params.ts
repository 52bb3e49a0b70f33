// The params of the ValidatingAdmissionPolicy that warns about unknown custom gate names
// (deploy/base/admission/): a ConfigMap in the operator's namespace with one key per payload version,
// `gates.<version>` = the gate names that version's payload knows, comma-joined and byte-sorted. Each
// operator writes its own version's key and drops keys of versions that left ClusterVersion history, so
// during an upgrade both the running and the desired version's names are accepted. The same ConfigMap carries the
// `start.*` keys of the gates-that-start policy: Kubernetes' rules for the version the cluster's API server runs. Pure.
import { compareNames } from './feature-set.js';
import { gateSpecAt, type KubernetesGateRules } from './gate-rules.js';
import { checkKubeletConfiguration, type KubeletConfigRules } from './kubelet-config.js';
import type { NodeConfigurationGroup } from './node-configurations.js';

export const KNOWN_GATES_CONFIGMAP = 'featuregate-known-gates';
export const KNOWN_GATES_KEY_PREFIX = 'gates.';
const START_KEY_PREFIX = 'start.';

/**
 * The ConfigMap data an operator of `version` wants, from the current data; undefined when nothing changes. `start`:
 * the gates-that-start keys (gatesThatStartParams) for the Kubernetes version the cluster runs — absent, none are kept.
 */
export function desiredKnownGatesData(current: Readonly<Record<string, string>> | undefined, version: string, known: readonly string[],
  history: readonly string[], start?: Readonly<Record<string, string>>): Record<string, string> | undefined {
  const keep = new Set([version, ...history]);
  const next: Record<string, string> = {};
  for (const [k, v] of Object.entries(current ?? {})) {
    if (k.startsWith(START_KEY_PREFIX)) continue; // the gates-that-start keys are this operator's: written whole below
    if (!k.startsWith(KNOWN_GATES_KEY_PREFIX) || keep.has(k.slice(KNOWN_GATES_KEY_PREFIX.length))) next[k] = v;
  }
  next[`${KNOWN_GATES_KEY_PREFIX}${version}`] = [...new Set(known)].sort(compareNames).join(',');
  Object.assign(next, start ?? {});
  const same = current !== undefined && Object.keys(next).length === Object.keys(current).length &&
    Object.entries(next).every(([k, v]) => current[k] === v);
  return same ? undefined : next;
}

/** The keys of the gates-that-start policy's params (same ConfigMap; deploy/base/admission/gates-that-start-policy.yaml). */
export const GATE_START_KEYS = {
  kubernetes: 'start.kubernetes', emulated: 'start.emulated', minCompatibility: 'start.minCompatibility',
  refused: 'start.refused', preAlpha: 'start.prealpha', on: 'start.on', dependencies: 'start.dependencies', kubelet: 'start.kubelet',
} as const;

/** Nodes named per `start.kubelet` entry (the rest counted). */
const NODES_NAMED = 5;

/**
 * The `start.kubelet` key: each `Gate=value` setting that the kubelets of some nodes refuse with their own
 * configuration (kubelet-config.ts, the gates in the file as machine-config writes them), as `Gate=value|field|nodes`
 * entries (nodes space-separated, at most five named, `+N` more), comma-joined, sorted. Single settings only: what a
 * CustomNoUpgrade list turns on or off, one gate at a time. Pure.
 */
export function kubeletStartParams(
  gateRules: KubernetesGateRules,
  rules: KubeletConfigRules,
  groups: readonly NodeConfigurationGroup[],
): Record<string, string> {
  const refused = new Map<string, { field: string; nodes: string[] }>();
  const gates = [...new Set(rules.requires.map((r) => r.gate))];
  for (const g of groups) {
    for (const gate of gates) {
      for (const value of [true, false]) {
        const problems = checkKubeletConfiguration(
          {
            kubernetesVersion: gateRules.kubernetesVersion,
            gates: new Map([[gate, value]]),
            route: 'file',
            configuration: g.configuration,
          },
          gateRules,
          rules,
        ).filter((p) => p.gate === gate);
        if (problems.length === 0) continue;
        const key = `${gate}=${value}`;
        const r = refused.get(key) ?? { field: problems.map((p) => (p.field ?? '').replace(/, /g, '+')).join('+'), nodes: [] }; // no comma: it joins entries
        r.nodes.push(...g.nodes);
        refused.set(key, r);
      }
    }
  }
  const entries = [...refused]
    .sort(([a], [b]) => compareNames(a, b))
    .map(([key, r]) => {
      const nodes = [...r.nodes].sort();
      return `${key}|${r.field}|${nodes.slice(0, NODES_NAMED).join(' ')}${nodes.length > NODES_NAMED ? ` +${nodes.length - NODES_NAMED}` : ''}`;
    });
  return { [GATE_START_KEYS.kubelet]: entries.join(',') };
}

/**
 * What the gates-that-start admission policy needs to refuse a CustomNoUpgrade spec as the cluster's components would
 * (gate-rules.ts), for the Kubernetes version the cluster runs, in CEL-friendly strings: the `Name=value` settings a
 * lock refuses, the gates not there yet, the Kubernetes gates on before the spec's lists (the payload's Default set
 * where it names them, else Kubernetes' default) and the dependencies `Gate:Dep|Dep`. Pure.
 */
export function gatesThatStartParams(
  rules: KubernetesGateRules,
  base: { enabled: readonly string[]; disabled: readonly string[] },
): Record<string, string> {
  const minor = rules.kubernetesVersion.split('.').slice(0, 2).join('.');
  const [major, min] = minor.split('.').map(Number) as [number, number];
  const enabled = new Set(base.enabled);
  const disabled = new Set(base.disabled);
  const refused: string[] = [];
  const preAlpha: string[] = [];
  const on: string[] = [];
  for (const gate of Object.keys(rules.gates).sort(compareNames)) {
    const spec = gateSpecAt(rules, gate, minor)!;
    if (spec.preRelease === 'PreAlpha') preAlpha.push(gate);
    if (spec.lockToDefault) refused.push(`${gate}=${!spec.default}`);
    if (enabled.has(gate) || (spec.default && !disabled.has(gate))) on.push(gate);
  }
  const dependencies = Object.entries(rules.dependencies)
    .sort(([a], [b]) => compareNames(a, b))
    .map(([g, ds]) => `${g}:${ds.join('|')}`);
  return {
    [GATE_START_KEYS.kubernetes]: rules.kubernetesVersion,
    [GATE_START_KEYS.emulated]: minor,
    [GATE_START_KEYS.minCompatibility]: `${major}.${min - 1}`,
    [GATE_START_KEYS.refused]: refused.join(','),
    [GATE_START_KEYS.preAlpha]: preAlpha.join(','),
    [GATE_START_KEYS.on]: on.join(','),
    [GATE_START_KEYS.dependencies]: dependencies.join(','),
  };
}
