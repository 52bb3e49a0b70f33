// Gates that start, for a standalone node: the gates kube-apiserver would be started with (the configuration's,
// resolved, plus MicroShift's required ones) against Kubernetes' own rules for the Kubernetes minor of this
// version (api-types/gate-rules.ts; OpenShift's components, so OpenShift gate names are ignored). Asked before the
// lock is written: a one-way choice is never made with gates the API server refuses. MicroShift's own guard (two
// required names) is the special case of the locked rule.
import {
  GateRulesError, checkFeatureGates, formatVersion, gatesOfLists, kubernetesOfOpenShift, type FeatureSetRegistry, type GateProblem, type ParsedVersion,
} from '../api-types/index.js';
import type { StandaloneFeatureGates } from './config.js';
import { effectiveGates, resolveStandaloneGates } from './render.js';

export type StandaloneStartCheck =
  | { checked: true; kubernetesVersion: string; problems: GateProblem[] }
  | { checked: false; why: string };

/** `kubernetesVersion`: the node's Kubernetes minor when given (else the version's, when this build knows it). */
export function checkStandaloneGates(fg: StandaloneFeatureGates, registry: FeatureSetRegistry | undefined, version: ParsedVersion,
  kubernetesVersion?: string): StandaloneStartCheck {
  let kube: string;
  try {
    kube = kubernetesVersion ?? kubernetesOfOpenShift(formatVersion(version));
  } catch (e) {
    return { checked: false, why: (e as Error).message };
  }
  const lists = effectiveGates(resolveStandaloneGates(fg, registry));
  try {
    const r = checkFeatureGates({ kubernetesVersion: kube, flavor: 'openshift', gates: gatesOfLists({ enabled: lists.enabledNames, disabled: lists.disabledNames }) });
    return { checked: true, kubernetesVersion: r.kubernetesVersion, problems: r.problems };
  } catch (e) {
    if (e instanceof GateRulesError && kubernetesVersion === undefined) return { checked: false, why: e.message };
    throw e;
  }
}

/** The refusal an administrator reads: each gate, what kube-apiserver would say, and what to change. */
export function startRefusal(kubernetesVersion: string, problems: readonly GateProblem[], gateSources: readonly string[]): string {
  const minor = kubernetesVersion.split('.').slice(0, 2).join('.');
  return [`kube-apiserver of Kubernetes ${minor} would refuse to start with apiServer.featureGates (${gateSources.join(', ') || 'the configuration'}):`,
    ...problems.map((p) => `  - ${p.kind} ${p.gate}: ${p.message}; ${p.fix}`),
    'Nothing was written. Change the configuration and start again.'].join('\n');
}
