// `featuregates preflight`'s answer, pure: would each Kubernetes component start with this gate set? The same rules
// for kube-apiserver, kube-controller-manager, kube-scheduler and kubelet (every one parses `--feature-gates`
// through component-base and registers the same gates, but kube-scheduler lacks controller-manager's: gate-rules.ts);
// the flavor says how unknown names are taken.
import { checkFeatureGates, GateRulesError, type GateFlavor, type GateProblem, type GateStartCheck } from './gate-rules.js';
import { gateNames } from './gate-lists.js';
import { checkKubeletConfiguration, type KubeletConfiguration, type KubeletGateRoute } from './kubelet-config.js';
import type { NodeConfigurationGroup } from './node-configurations.js';
import type { FeatureSetRegistry } from './registry.js';
import { resolveFeatureGateDetails } from './resolve.js';
import type { FeatureGateSpec } from './wire.js';

export const PREFLIGHT_COMPONENTS = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kubelet'] as const;

export interface PreflightComponent {
  name: (typeof PREFLIGHT_COMPONENTS)[number];
  flavor: GateFlavor;
  starts: boolean;
  problems: GateProblem[];
}

/** The kubelets of nodes that run the same configuration: whether they start with the gates. */
export interface NodeGroupVerdict { nodes: string[]; starts: boolean; problems: GateProblem[] }

/** A cluster's nodes, judged by their kubelets' configurations (grouped), and those that were not. */
export interface PreflightNodes {
  groups: NodeGroupVerdict[];
  unread: { node: string; error: string }[];
  notReady: string[];
}

/** The JSON contract of `featuregates preflight -o json`. */
export interface PreflightReport {
  kubernetesVersion: string;
  emulatedVersion: string;
  components: PreflightComponent[];
  /** Names OpenShift's components do not know as Kubernetes gates and ignore (OpenShift gates, mostly). */
  ignored: string[];
  /** With a cluster: every node's kubelet with its own configuration (/configz). */
  nodes?: PreflightNodes;
}

/** Each group of nodes' kubelets with its configuration and the gates (the route as `input.kubelet` says, else the flavor's). */
export function preflightNodeGroups(input: Omit<PreflightInput, 'emulatedVersion'>, groups: readonly NodeConfigurationGroup[]): NodeGroupVerdict[] {
  return groups.map((g) => {
    const c = checkKubeletStart({ ...input, kubelet: { ...input.kubelet, configuration: g.configuration } });
    return { nodes: g.nodes, starts: c.starts, problems: c.problems };
  });
}

/** Whether everything in a report starts: every component, every group of nodes. */
export const preflightStarts = (r: PreflightReport) =>
  r.components.every((c) => c.starts) && (r.nodes?.groups ?? []).every((g) => g.starts);

/** The kubelet's side of the question: its configuration file (none: its defaults) and how it is given the gates. */
export interface KubeletStartInput {
  configuration?: KubeletConfiguration;
  /** Default: `file` for OpenShift's flavor (machine-config and MicroShift write the gates into the file), `flag` for vanilla. */
  route?: KubeletGateRoute;
}

export interface PreflightInput {
  kubernetesVersion: string;
  emulatedVersion?: string;
  flavor: GateFlavor;
  gates: ReadonlyMap<string, boolean>;
  kubelet?: KubeletStartInput;
}

/** How a kubelet of this flavor is given its gates when nobody says. */
export const defaultKubeletRoute = (flavor: GateFlavor): KubeletGateRoute => (flavor === 'openshift' ? 'file' : 'flag');

/**
 * The kubelet's start check: component-base's gate rules first (a refusal there stops it before it reads its
 * configuration), then its configuration validation against the gates (kind `config`). The kubelet has no emulated
 * version: it judges at its own minor.
 */
export function checkKubeletStart(input: Omit<PreflightInput, 'emulatedVersion'>): GateStartCheck {
  const check = checkFeatureGates({ kubernetesVersion: input.kubernetesVersion, flavor: input.flavor, gates: input.gates, component: 'kubelet' });
  if (!check.starts) return check;
  const ignored = new Set(check.ignored);
  const known = new Map([...input.gates].filter(([n]) => !ignored.has(n)));
  const problems = checkKubeletConfiguration({
    kubernetesVersion: input.kubernetesVersion,
    gates: known,
    route: input.kubelet?.route ?? defaultKubeletRoute(input.flavor),
    ...(input.kubelet?.configuration ? { configuration: input.kubelet.configuration } : {}),
  });
  return { ...check, starts: problems.length === 0, problems };
}

export function preflight(input: PreflightInput): PreflightReport {
  const checks = PREFLIGHT_COMPONENTS.map((name) => [name, name === 'kubelet' ? checkKubeletStart(input) // no --emulated-version: its own minor
    : checkFeatureGates({ ...input, component: name })] as const);
  const first = checks[0]![1];
  return {
    kubernetesVersion: first.kubernetesVersion, emulatedVersion: first.emulatedVersion,
    components: checks.map(([name, check]) => ({ name, flavor: input.flavor, starts: check.starts, problems: check.problems })),
    ignored: [...new Set(checks.flatMap(([, c]) => c.ignored))].sort(),
  };
}

/** The `--feature-gates` map of a FeatureGate status entry or resolved lists: enabled =true, disabled =false. */
export function gatesOfLists(lists: { enabled: readonly string[]; disabled: readonly string[] }): Map<string, boolean> {
  const gates = new Map<string, boolean>();
  for (const n of lists.disabled) gates.set(n, false);
  for (const n of lists.enabled) gates.set(n, true);
  return gates;
}

/** `A=true,B=false` (the flag's syntax, as component-base parses it: spaces around names and values are trimmed). */
export function parseGateFlag(text: string): Map<string, boolean> {
  const gates = new Map<string, boolean>();
  for (const part of text.split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    const name = part.slice(0, eq < 0 ? undefined : eq).trim();
    const raw = eq < 0 ? '' : part.slice(eq + 1).trim().toLowerCase();
    if (eq < 0 || name === '') throw new GateRulesError(`--feature-gates: ${JSON.stringify(part.trim())} is not NAME=true|false`);
    if (raw !== 'true' && raw !== 'false') throw new GateRulesError(`--feature-gates: invalid value of ${name}: ${JSON.stringify(raw)}, expected true or false`);
    gates.set(name, raw === 'true');
  }
  return gates;
}

/**
 * Would the components start with the gates a FeatureGate spec resolves to for a payload version (its status entry,
 * as the operator writes it) at a Kubernetes version? OpenShift's components: OpenShift gate names are ignored. Throws
 * what resolution throws (a spec that does not resolve) and GateRulesError (no rules for that Kubernetes version).
 */
export function checkSpecGates(
  spec: FeatureGateSpec,
  registry: FeatureSetRegistry,
  payloadVersion: string,
  kubernetesVersion: string,
): GateStartCheck {
  return checkFeatureGates({ kubernetesVersion, flavor: 'openshift', gates: specGates(spec, registry, payloadVersion) });
}

/** The `--feature-gates` map of the status entry a FeatureGate spec resolves to for a payload version (throws what resolution throws). */
export function specGates(spec: FeatureGateSpec, registry: FeatureSetRegistry, payloadVersion: string): Map<string, boolean> {
  return gatesOfLists(gateNames(resolveFeatureGateDetails(spec, registry, payloadVersion)));
}
