// What `featuregates status` reports about a cluster, computed from the objects it read: the feature set,
// whether minor upgrades are allowed (the ClusterOperator's condition, else computed from the spec), the
// ClusterVersion history, and each status entry's counts (and names, for -o wide).
import { featureGatesUpgradeable, unionCondition } from './conditions.js';
import { featureSetName } from './feature-set.js';
import { gateNames, type EnabledDisabled } from './gate-lists.js';
import type { GateProblem } from './gate-rules.js';
import type { PreflightReport } from './preflight.js';
import type { ComponentCheck } from './running-gates.js';
import type { ClusterOperator, ClusterVersion, FeatureGate } from './wire.js';

export interface StatusSummary {
  featureSet: string;
  upgradeable: { status: string; reason: string; message: string; source: string };
  clusterVersion: { desired: string | undefined; history: string[] } | undefined;
  versions: { version: string; enabled: number; disabled: number; enabledNames?: string[]; disabledNames?: string[] }[];
  /**
   * kube-apiserver's running gates against the status entry of the cluster's version (`featuregates verify`'s check;
   * absent when there is no such entry): the gates that differ, or why it could not be read.
   */
  runningGates?: {
    component: string; version: string; verdict: 'match' | 'mismatch' | 'unreadable';
    /** How many of the entry's gates the component has (the others: not in it, or not at its emulated version). */
    checked: number;
    mismatches: string[]; error?: string;
  };
  /**
   * Would the components start with the gates of the entry of the version the cluster is going to (Kubernetes' own
   * rules, `featuregates preflight --kubeconfig`)? `unchecked` says why it could not be told.
   */
  gatesThatStart?: {
    version: string; kubernetesVersion: string; kubernetesSource: string; starts: boolean;
    /** The components that would refuse, and every problem named once. */
    refusedBy: string[]; problems: GateProblem[];
  } | { unchecked: string };
}

/** `summarize`'s gatesThatStart from a preflight of a cluster's gate set. */
export function gatesThatStartSummary(set: { version: string; kubernetesVersion: string; kubernetesSource: string }, r: PreflightReport): NonNullable<StatusSummary['gatesThatStart']> {
  const problems = new Map<string, GateProblem>();
  for (const p of r.components.flatMap((c) => c.problems)) problems.set(`${p.kind}/${p.gate}`, p);
  const refusedBy = r.components.filter((c) => !c.starts).map((c) => c.name);
  return {
    version: set.version,
    kubernetesVersion: set.kubernetesVersion,
    kubernetesSource: set.kubernetesSource,
    starts: refusedBy.length === 0,
    refusedBy,
    problems: [...problems.values()],
  };
}

/** `summarize`'s runningGates from a component check against `version`'s entry. */
export function runningGatesSummary(version: string, check: ComponentCheck): NonNullable<StatusSummary['runningGates']> {
  if (check.error) return { component: check.name, version, verdict: 'unreadable', checked: 0, mismatches: [], error: check.error };
  const mismatches = check.gates.filter((g) => g.verdict === 'mismatch').map((g) => g.name);
  const checked = check.gates.filter((g) => g.verdict === 'match' || g.verdict === 'mismatch' || g.verdict === 'overridden').length;
  return { component: check.name, version, verdict: mismatches.length ? 'mismatch' : 'match', checked, mismatches };
}

export function summarize(fg: FeatureGate, co: ClusterOperator | undefined, cv: ClusterVersion | undefined, withNames = false,
  running?: NonNullable<StatusSummary['runningGates']>, gatesThatStart?: StatusSummary['gatesThatStart']): StatusSummary {
  const coCond = co?.status?.conditions?.find((c) => c.type === 'Upgradeable');
  // Without the ClusterOperator's condition, what it would say: the union over the operator's condition, so
  // `start` (which may look before the operator has written it) and `status` show the same words.
  const own = unionCondition('Upgradeable', 'True', [featureGatesUpgradeable(fg.spec.featureSet)]);
  const history = cv?.status?.history.map((h) => `${h.version}${h.state === 'Partial' ? ' (Partial)' : ''}`);
  return {
    featureSet: featureSetName(fg.spec.featureSet ?? ''),
    upgradeable: coCond
      ? { status: coCond.status, reason: coCond.reason ?? '', message: coCond.message ?? '', source: `clusteroperator/${co?.metadata.name}` }
      : { status: own.status, reason: own.reason, message: own.message, source: 'computed from the spec (no ClusterOperator condition yet)' },
    clusterVersion: history ? { desired: cv?.status?.desired?.version, history } : undefined,
    versions: (fg.status?.featureGates ?? []).map((e) => ({
      version: e.version, enabled: e.enabled.length, disabled: e.disabled.length,
      ...(withNames ? { enabledNames: e.enabled.map((g) => g.name), disabledNames: e.disabled.map((g) => g.name) } : {}),
    })),
    ...(running ? { runningGates: running } : {}),
    ...(gatesThatStart ? { gatesThatStart } : {}),
  };
}

/** One status entry's names, by version; an error that lists the versions present otherwise. */
export function statusLists(fg: FeatureGate, version: string): EnabledDisabled {
  const entry = fg.status?.featureGates?.find((e) => e.version === version);
  if (!entry) {
    const have = (fg.status?.featureGates ?? []).map((e) => e.version);
    throw new Error(`version ${JSON.stringify(version)} is not in FeatureGate/cluster status (it has ${have.length ? have.join(', ') : 'no entries'})`);
  }
  return gateNames(entry);
}
