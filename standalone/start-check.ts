// Gates that start, for a standalone node: the gates kube-apiserver would be started with (the configuration's,
// resolved, plus MicroShift's required ones) against Kubernetes' own rules for the Kubernetes minor of this
// version (api-types/gate-rules.ts; OpenShift's components, so OpenShift gate names are ignored), and the kubelet's
// configuration validation against the gates it is given (api-types/kubelet-config.ts: MicroShift writes them into
// the kubelet's configuration file, whose own featureGates win). Asked before the lock is written: a one-way choice is
// never made with gates the API server or the kubelet refuses. MicroShift's own guard (two required names) is the
// special case of the locked rule.
import {
  DecodeError,
  GateRulesError,
  checkFeatureGates,
  checkKubeletStart,
  decodeKubeletConfiguration,
  formatVersion,
  gatesOfLists,
  kubernetesOfOpenShift,
  type FeatureSetRegistry,
  type GateProblem,
  type ParsedVersion,
} from '../api-types/index.js';
import type { StandaloneFeatureGates } from './config.js';
import { InvalidConfigurationError } from './config.js';
import { effectiveGates, resolveStandaloneGates } from './render.js';

export type StandaloneStartCheck =
  | { checked: true; kubernetesVersion: string; problems: GateProblem[] }
  | { checked: false; why: string };

/**
 * `kubernetesVersion`: the node's Kubernetes minor when given (else the version's, when this build knows it);
 * `kubeletConfiguration`: the node's KubeletConfiguration (none: the kubelet's defaults).
 */
export function checkStandaloneGates(fg: StandaloneFeatureGates, registry: FeatureSetRegistry | undefined, version: ParsedVersion,
  kubernetesVersion?: string, kubeletConfiguration?: Record<string, unknown>): StandaloneStartCheck {
  let kube: string;
  try {
    kube = kubernetesVersion ?? kubernetesOfOpenShift(formatVersion(version));
  } catch (e) {
    return { checked: false, why: (e as Error).message };
  }
  const lists = effectiveGates(resolveStandaloneGates(fg, registry));
  const gates = gatesOfLists({ enabled: lists.enabledNames, disabled: lists.disabledNames });
  let configuration;
  try {
    configuration = kubeletConfiguration ? decodeKubeletConfiguration(kubeletConfiguration) : undefined;
  } catch (e) {
    if (e instanceof DecodeError) throw new InvalidConfigurationError(`the kubelet configuration: ${e.message}`);
    throw e;
  }
  try {
    const r = checkFeatureGates({ kubernetesVersion: kube, flavor: 'openshift', gates });
    if (r.problems.length) return { checked: true, kubernetesVersion: r.kubernetesVersion, problems: r.problems };
    const kubelet = checkKubeletStart({ kubernetesVersion: kube, flavor: 'openshift', gates: new Map([...gates, ...(configuration?.featureGates ?? [])]),
      kubelet: { route: 'file', ...(configuration ? { configuration } : {}) } });
    return { checked: true, kubernetesVersion: r.kubernetesVersion, problems: kubelet.problems };
  } catch (e) {
    if (e instanceof GateRulesError && kubernetesVersion === undefined) return { checked: false, why: e.message };
    throw e;
  }
}

/** The refusal an administrator reads: each gate, what kube-apiserver would say, and what to change. */
export function startRefusal(kubernetesVersion: string, problems: readonly GateProblem[], gateSources: readonly string[]): string {
  const minor = kubernetesVersion.split('.').slice(0, 2).join('.');
  const who = problems.every((p) => p.kind === 'config') ? 'the kubelet' : 'kube-apiserver';
  return [`${who} of Kubernetes ${minor} would refuse to start with apiServer.featureGates (${gateSources.join(', ') || 'the configuration'}):`,
    ...problems.map((p) => `  - ${p.kind} ${p.gate}${p.field ? ` (${p.field})` : ''}: ${p.message}; ${p.fix}`),
    'Nothing was written. Change the configuration and start again.'].join('\n');
}
