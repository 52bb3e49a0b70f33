// Conditions: the FeatureGatesUpgradeable operator condition and the ClusterOperator unions built from
// operator conditions (Available / Progressing / Degraded / Upgradeable), with library-go's rules.
import { FeatureSets } from './feature-set.js';
import type { ClusterOperatorStatusCondition } from './wire.js';

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** An operator-level condition such as FeatureGatesUpgradeable or FeatureGateControllerDegraded. */
export interface OperatorCondition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  lastTransitionTime?: string;
}

export const FEATURE_GATES_UPGRADEABLE = 'FeatureGatesUpgradeable';

/**
 * Default (and OKD, on an OKD build only) allows minor upgrades; every other set refuses them.
 * Reasons and message as cluster-config-operator's FeatureUpgradeableController.
 */
export function featureGatesUpgradeable(featureSet: string | undefined, options: { okdBuild?: boolean } = {}): OperatorCondition {
  const set = featureSet ?? '';
  const allowed = set === FeatureSets.Default || (set === FeatureSets.OKD && options.okdBuild === true);
  if (allowed) {
    return { type: FEATURE_GATES_UPGRADEABLE, status: 'True', reason: `AllowedFeatureGates_${set}`, message: '' };
  }
  return {
    type: FEATURE_GATES_UPGRADEABLE, status: 'False', reason: `RestrictedFeatureGates_${set}`,
    message: `${JSON.stringify(set)} does not allow updates`,
  };
}

/**
 * The feature set that decides Upgradeable where two specs may differ — a hosted guest's own and the one its
 * HostedControlPlane asks for while the guest refuses it: a NoUpgrade choice on either side blocks minor
 * upgrades (the HCP's is one-way, and its control plane already runs it); otherwise the guest's own.
 */
export function upgradeBlockingFeatureSet(guest: string | undefined, requested: string | undefined): string | undefined {
  const blocks = (s: string | undefined) => featureGatesUpgradeable(s).status === 'False';
  if (blocks(guest)) return guest;
  if (blocks(requested)) return requested;
  return guest;
}

/** A controller's sync-error condition: `<Controller>Degraded`, reason SyncError / AsExpected. */
export function syncDegraded(controllerName: string, error: string | undefined): OperatorCondition {
  return error === undefined
    ? { type: `${controllerName}Degraded`, status: 'False', reason: 'AsExpected', message: '' }
    : { type: `${controllerName}Degraded`, status: 'True', reason: 'SyncError', message: error };
}

const uniq = (xs: string[]): string[] => [...new Set(xs)];

function unionMessage(conditions: readonly OperatorCondition[]): string {
  const lines: string[] = [];
  for (const c of conditions) {
    if (!c.message) continue;
    for (const line of uniq(c.message.split('\n'))) lines.push(`${c.type}: ${line}`);
  }
  return lines.join('\n');
}

function unionReason(unionType: string, conditions: readonly OperatorCondition[]): string {
  return conditions
    .map((c) => {
      const prefix = c.type.slice(0, c.type.length - unionType.length);
      return c.reason ? `${prefix}_${c.reason}` : prefix;
    })
    .sort()
    .join('::');
}

export interface UnionOptions {
  /**
   * Ignore bad conditions younger than `ms` at `now` (library-go uses 2 minutes for Degraded). The clock comes
   * with the inertia, so it cannot be forgotten (a missing `now` once meant the epoch, which hid every
   * Degraded transition).
   */
  inertia?: { ms: number; now: Date };
}

/**
 * The union of every condition whose type ends with `type`. A condition is "bad" when its status is
 * not `defaultStatus`; bad reasons are `<Type-without-suffix>_<reason>`, sorted, joined by `::`;
 * messages are `<Type>: <line>`. No bad condition: `AsExpected`, and the union message or `All is well`.
 */
export function unionCondition(type: string, defaultStatus: 'True' | 'False', all: readonly OperatorCondition[],
  options: UnionOptions = {}): Omit<OperatorCondition, 'lastTransitionTime'> {
  const opposite: ConditionStatus = defaultStatus === 'True' ? 'False' : 'True';
  const interesting = all.filter((c) => c.type.endsWith(type));
  if (interesting.length === 0) return { type, status: 'Unknown', reason: 'NoData', message: '' };
  let bad = interesting.filter((c) => c.status !== defaultStatus).sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  const badStatus: ConditionStatus = bad.some((c) => c.status === opposite) ? opposite : 'Unknown';
  if (options.inertia) {
    const cutoff = options.inertia.now.getTime() - options.inertia.ms;
    bad = bad.filter((c) => c.lastTransitionTime !== undefined && Date.parse(c.lastTransitionTime) < cutoff);
  }
  if (bad.length === 0) {
    return { type, status: defaultStatus, reason: 'AsExpected', message: unionMessage(interesting) || 'All is well' };
  }
  return { type, status: badStatus, reason: unionReason(type, bad), message: unionMessage(bad) };
}

export const DEGRADED_INERTIA_MS = 2 * 60 * 1000;

/**
 * The ClusterOperator conditions built from operator conditions, in library-go's status controller order
 * (Degraded, Progressing, Available, Upgradeable, EvaluationConditionsDetected). With no
 * `*EvaluationConditionsDetected` operator condition the last is Unknown / NoData, as upstream publishes it.
 */
export function clusterOperatorUnions(operatorConditions: readonly OperatorCondition[], options: UnionOptions = {}) {
  return [
    unionCondition('Degraded', 'False', operatorConditions, options),
    unionCondition('Progressing', 'False', operatorConditions),
    unionCondition('Available', 'True', operatorConditions),
    unionCondition('Upgradeable', 'True', operatorConditions),
    unionCondition('EvaluationConditionsDetected', 'False', operatorConditions),
  ];
}

/**
 * Sets `cond` in `conditions` (by type), keeping the stored lastTransitionTime while the status is
 * unchanged; `now` (an RFC 3339 time) is used when the status changes or the condition is new.
 */
export function setCondition<C extends { type: string; status: string; lastTransitionTime?: string }>(
  conditions: readonly C[], cond: Omit<C, 'lastTransitionTime'>, now: string): C[] {
  const prior = conditions.find((c) => c.type === cond.type);
  const lastTransitionTime = prior && prior.status === cond.status && prior.lastTransitionTime ? prior.lastTransitionTime : now;
  const next = { ...cond, lastTransitionTime } as C;
  return prior ? conditions.map((c) => (c.type === cond.type ? next : c)) : [...conditions, next];
}

/** ClusterOperator conditions from operator conditions, transition times kept while status is unchanged. */
export function clusterOperatorConditions(existing: readonly ClusterOperatorStatusCondition[],
  operatorConditions: readonly OperatorCondition[], now: string, options: UnionOptions = {}): ClusterOperatorStatusCondition[] {
  let out = [...existing];
  for (const u of clusterOperatorUnions(operatorConditions, options)) {
    const c: Omit<ClusterOperatorStatusCondition, 'lastTransitionTime'> = { type: u.type, status: u.status, reason: u.reason, message: u.message };
    out = setCondition(out, c, now);
  }
  return out;
}
