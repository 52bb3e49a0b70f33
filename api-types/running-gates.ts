// Gates that run: what a running component reports about its feature gates, and the verdict per gate against
// what the FeatureGate status asks for. Pure. The facts (docs/verify.md, ../shared/reference/component-gates.md):
//  - `kubernetes_feature_enabled{name,stage}` (BETA gauge on /metrics) has one series per gate known at the
//    component's *emulated* version, 1 enabled / 0 disabled; a gate absent from it is not "disabled";
//  - `/flagz` (config.k8s.io/v1beta1 Flagz) shows the requested `--feature-gates` string, not the effect;
//  - Kubernetes' versioned_feature_list.yaml of the binary's release says since which version each
//    Kubernetes gate exists: absent because the component emulates an older version is told apart from
//    absent because the binary has no such gate (an OpenShift gate on a vanilla component).
import { exposedSample } from './exposition.js';
import type { KubernetesGateRules } from './gate-rules.js';

/** The desired state of one gate, from a FeatureGate status entry. */
export interface DesiredGate {
  name: string;
  enabled: boolean;
}

/** The gates a FeatureGate status entry asks for: its enabled ones on, its disabled ones off. */
export function desiredGates(entry: {
  enabled?: readonly { name: string }[] | null;
  disabled?: readonly { name: string }[] | null;
}): DesiredGate[] {
  return [
    ...(entry.enabled ?? []).map((g) => ({ name: g.name, enabled: true })),
    ...(entry.disabled ?? []).map((g) => ({ name: g.name, enabled: false })),
  ];
}

export type GateVerdict = 'match' | 'mismatch' | 'not-in-component' | 'not-at-emulated-version' | 'overridden';

export interface GateCheck {
  name: string;
  desired: boolean;
  /** What the component's gauge says; null: the gate has no series there. */
  running: boolean | null;
  verdict: GateVerdict;
  /** What the component was told (its `--feature-gates` on /flagz): true/false, null when not told; absent when /flagz is not served. */
  requested?: boolean | null;
}

export interface ComponentCheck {
  name: string;
  url: string;
  emulatedVersion?: string;
  /** `unreachable: …` or `forbidden: …`: the component could not be read. */
  error?: string;
  gates: GateCheck[];
  /**
   * Every gate the component reports of its own, as information (etcd: no FeatureGate names its gates, so they are
   * judged only against what `--etcd-feature-gates` declares, in `gates`).
   */
  reported?: { name: string; stage: string; enabled: boolean }[];
}

export interface VerifyReport {
  version: string;
  components: ComponentCheck[];
  /** Every node's kubelet, read through the API server's node proxy (absent: not asked for). */
  kubelets?: KubeletsReport;
}

/** Nodes whose kubelets gave the same answer: an error, or the same verdict for every gate. */
export interface KubeletGroup {
  nodes: string[];
  /** `unreachable: …`, `forbidden: …`, or `not ready` (a node whose Ready condition is not True: not read, not judged). */
  error?: string;
  gates: ComponentCheck['gates'];
}

export interface KubeletsReport {
  /** How many nodes the cluster has (all were read or reported not ready). */
  nodes: number;
  groups: KubeletGroup[];
  /** Why the nodes could not be listed (then `groups` is empty). */
  error?: string;
}

export const NOT_READY = 'not ready';

/** Whether the kubelets pass: listed, and no node that is ready failed to answer or runs a gate other than desired. */
export function kubeletsPass(r: KubeletsReport): boolean {
  return !r.error && r.groups.every((g) => (!g.error || g.error === NOT_READY) && g.gates.every((x) => x.verdict !== 'mismatch'));
}

/** The component name `verify --component` reads as etcd (its own gates, its own client certificate). */
export const ETCD_COMPONENT = 'etcd';

/** etcd (3.6 on) reports its own gates as this gauge, with the same labels as Kubernetes' `kubernetes_feature_enabled`. */
export const ETCD_FEATURE_GAUGE = 'etcd_server_feature_enabled';

/** One `/metrics` line of the gauge (`family`: Kubernetes' by default, or etcd's), or undefined for any other line. */
export function featureEnabledSample(line: string, family = 'kubernetes_feature_enabled'): { name: string; stage: string; enabled: boolean } | undefined {
  if (!line.startsWith(`${family}{`)) return undefined;
  const s = exposedSample(line);
  if (s?.name !== family || !s.labels.name) return undefined;
  return { name: s.labels.name, stage: s.labels.stage ?? '', enabled: s.value === 1 };
}

/**
 * The emulated Kubernetes version from the ALPHA gauge `version_info{component="kube",emulation="1.35",…}`
 * (components that serve no /version, such as kube-controller-manager and kube-scheduler, say it only here).
 */
export function emulationSample(line: string): { major: number; minor: number } | undefined {
  if (!line.startsWith('version_info{')) return undefined;
  const s = exposedSample(line);
  if (s?.name !== 'version_info' || s.labels.component !== 'kube') return undefined;
  const m = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(s.labels.emulation ?? '');
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
}

/**
 * `A=true,B=false` (a `--feature-gates` value as /flagz shows it; v1.36 prefixes each pair with its component,
 * `:A=true` for the default one) → name → requested value; malformed pairs are skipped.
 */
export function parseFeatureGatesFlag(value: string): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const pair of value.split(',')) {
    const [k, v] = pair.slice(pair.lastIndexOf(':') + 1).split('=').map((s) => s.trim());
    if (!k || (v !== 'true' && v !== 'false')) continue;
    out.set(k, v === 'true');
  }
  return out;
}

/** Since which Kubernetes minor each gate exists (its earliest versioned spec in Kubernetes' own lifecycle data). */
export type GateLifecycle = ReadonlyMap<string, { major: number; minor: number }>;

/**
 * Each gate's earliest versioned spec in a release's generated rules (api-types/kubernetes-gates/, from its versioned_feature_list.yaml).
 */
export function gateLifecycle(rules: KubernetesGateRules): GateLifecycle {
  const out = new Map<string, { major: number; minor: number }>();
  for (const [name, specs] of Object.entries(rules.gates)) {
    let first: { major: number; minor: number } | undefined;
    for (const [version] of specs) {
      const [major, minor] = version.split('.').map(Number) as [number, number];
      if (!first || major < first.major || (major === first.major && minor < first.minor)) first = { major, minor };
    }
    if (first) out.set(name, first);
  }
  return out;
}

export interface VerdictInput {
  desired: readonly DesiredGate[];
  /** The gauge: gate → enabled. */
  running: ReadonlyMap<string, boolean>;
  /** The requested gates from /flagz (undefined: not served). */
  requested?: ReadonlyMap<string, boolean>;
  /** The component's emulated version (from /version), when it says. */
  emulated?: { major: number; minor: number };
  lifecycle: GateLifecycle;
  /** Known, deliberate differences: gate → the value it is expected to run with. */
  overrides?: ReadonlyMap<string, boolean>;
}

/**
 * One verdict per desired gate: `match`, `mismatch` (desired on and running off, or the reverse),
 * `overridden` (running as a declared override says), `not-at-emulated-version` (absent from the gauge, and
 * the gate exists in the binary's release only after the version the component emulates) or
 * `not-in-component` (absent, and not such a gate: the binary has no such gate).
 */
export function gateChecks(input: VerdictInput): GateCheck[] {
  return input.desired.map(({ name, enabled }) => {
    const running = input.running.get(name);
    const requested = input.requested ? { requested: input.requested.get(name) ?? null } : {};
    if (running === undefined) {
      const since = input.lifecycle.get(name);
      const e = input.emulated;
      const later = since && e && (since.major > e.major || (since.major === e.major && since.minor > e.minor));
      return { name, desired: enabled, running: null, verdict: later ? 'not-at-emulated-version' : 'not-in-component', ...requested };
    }
    const override = input.overrides?.get(name);
    const verdict: GateVerdict = running === enabled ? 'match' : override === running ? 'overridden' : 'mismatch';
    return { name, desired: enabled, running, verdict, ...requested };
  });
}

/** A report passes when no component (nor a ready node's kubelet) has an error and no gate is a mismatch. */
export function verifyPasses(r: VerifyReport): boolean {
  return r.components.every((c) => !c.error && c.gates.every((g) => g.verdict !== 'mismatch')) && (!r.kubelets || kubeletsPass(r.kubelets));
}
