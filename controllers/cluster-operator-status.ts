// ClusterOperator status: conditions (unions of the operator conditions), relatedObjects, and the
// versions `operator` and `feature-gates` — published only once FeatureGate status holds the operator
// version's entry, which is what tells the cluster-version operator this component has upgraded.
// Creates the ClusterOperator if it is missing; writes /status only when something changed.
import {
  DEGRADED_INERTIA_MS, FEATURE_GATE_NAME, clusterOperatorConditions, jsonEqual, rfc3339, type ClusterOperator, type ClusterOperatorStatus,
  type FeatureGate, type ObjectReference, type OperandVersion, API_VERSION,
} from '../api-types/index.js';
import { apiErrorMessage, isConflict, isNotFound, type ControllerSpec, type ReconcileResult, type Reflector, type ResourceClient } from '../runtime/index.js';
import { RESYNC_MS } from './feature-gate-status.js';
import type { OperatorConditions } from './operator-conditions.js';
import { WriteEcho } from './write-echo.js';

export interface ClusterOperatorStatusDeps {
  name: string;
  /**
   * Read at every sync: the version this operator runs as (a hosted guest's follows the version it runs). Undefined:
   * none accepted yet — the ClusterOperator is not written.
   */
  operatorVersion: () => string | undefined;
  namespace: string;
  clusterOperators: Pick<Reflector<ClusterOperator>, 'get' | 'addListener'>;
  featureGates: Pick<Reflector<FeatureGate>, 'get' | 'addListener'>;
  client: Pick<ResourceClient<ClusterOperator>, 'create' | 'replaceStatus'>;
  conditions: OperatorConditions;
  degradedInertiaMs?: number;
  now?: () => Date;
  /** How soon it looks again when its status is as desired and nothing told it to (default RESYNC_MS, a minute). */
  resyncMs?: number;
}

export function relatedObjects(namespace: string): ObjectReference[] {
  return [
    { group: 'config.openshift.io', resource: 'featuregates', name: FEATURE_GATE_NAME },
    { group: 'config.openshift.io', resource: 'clusterversions', name: 'version' },
    { group: '', resource: 'namespaces', name: namespace },
  ];
}

function setVersion(versions: OperandVersion[], name: string, version: string): OperandVersion[] {
  return versions.some((v) => v.name === name)
    ? versions.map((v) => (v.name === name ? { name, version } : v))
    : [...versions, { name, version }];
}

/** Whether FeatureGate status has the operator version's entry: all this controller reads of FeatureGate. */
function statusHoldsVersion(featureGates: ClusterOperatorStatusDeps['featureGates'], version: string): boolean {
  return featureGates.get(FEATURE_GATE_NAME)?.status?.featureGates.some((e) => e.version === version) ?? false;
}

/** The status this controller wants, from the stored one (transition times kept while status is unchanged). */
export function desiredClusterOperatorStatus(
  stored: ClusterOperatorStatus | undefined,
  deps: ClusterOperatorStatusDeps,
  version: string,
): ClusterOperatorStatus {
  const now = (deps.now ?? (() => new Date()))();
  const conditions = clusterOperatorConditions(stored?.conditions ?? [], deps.conditions.all(), rfc3339(now), {
    inertia: { ms: deps.degradedInertiaMs ?? DEGRADED_INERTIA_MS, now },
  });
  let versions = stored?.versions ?? [];
  if (statusHoldsVersion(deps.featureGates, version)) {
    versions = setVersion(setVersion(versions, 'operator', version), 'feature-gates', version);
  }
  // Upstream publishes `extension: null` (library-go never fills it); keep what another writer set.
  return { ...(stored ?? {}), conditions, versions, relatedObjects: relatedObjects(deps.namespace), extension: stored?.extension ?? null };
}

export function clusterOperatorStatusReconciler(deps: ClusterOperatorStatusDeps) {
  const echo = new WriteEcho();
  return async (): Promise<ReconcileResult> => {
    const version = deps.operatorVersion();
    if (version === undefined) return {};
    let co = deps.clusterOperators.get(deps.name);
    // its own write's echo is on its way (Degraded's inertia still looks again)
    if (co && echo.behind(co)) return { requeueAfterMs: 10_000 };
    if (!co) {
      try {
        co = await deps.client.create({ apiVersion: API_VERSION, kind: 'ClusterOperator', metadata: { name: deps.name }, spec: {} });
      } catch (e) {
        if (!isConflict(e)) throw new Error(`creating ClusterOperator ${deps.name}: ${apiErrorMessage(e)}`, { cause: e });
        return { requeue: true }; // created concurrently: the cache catches up
      }
    }
    const desired = desiredClusterOperatorStatus(co.status, deps, version);
    if (jsonEqual(desired, co.status)) return {};
    try {
      await deps.client.replaceStatus({ ...co, status: desired });
    } catch (e) {
      // Stale cache: retried with backoff, and no failure (a hosted session would warn of an error).
      if (isConflict(e) || isNotFound(e)) return { requeue: true };
      throw new Error(`updating ClusterOperator ${deps.name} status: ${apiErrorMessage(e)}`, { cause: e });
    }
    echo.wrote(co);
    // Degraded under inertia flips later without any event: look again soon.
    return { requeueAfterMs: 10_000 };
  };
}

export const CLUSTER_OPERATOR_STATUS_CONTROLLER = 'ClusterOperatorStatusController';

/**
 * The controller: triggered by its ClusterOperator, operator-condition changes, and those FeatureGate changes
 * that change whether the status holds the operator version (a predicate, as controller-runtime's: the other
 * FeatureGate events — every status write of an upgrade — change nothing here).
 */
export function clusterOperatorStatusController(deps: ClusterOperatorStatusDeps): ControllerSpec {
  const key = () => [deps.name];
  let held: string | undefined;
  const onFeatureGate = () => {
    const version = deps.operatorVersion();
    const holds = `${version}:${version !== undefined && statusHoldsVersion(deps.featureGates, version)}`;
    if (holds === held) return [];
    held = holds;
    return [deps.name];
  };
  return {
    name: CLUSTER_OPERATOR_STATUS_CONTROLLER,
    reconcile: clusterOperatorStatusReconciler(deps),
    watches: [
      { source: deps.clusterOperators, keys: key },
      { source: deps.featureGates, keys: onFeatureGate },
      { source: deps.conditions, keys: key },
    ],
    initialKeys: [deps.name],
    resyncEveryMs: deps.resyncMs ?? RESYNC_MS,
  };
}
