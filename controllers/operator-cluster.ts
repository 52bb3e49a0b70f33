// The one seam between the operator's controllers and where they run. A cluster value (controller-runtime's
// cluster.Cluster: its caches, its writers, its recorder, its access) and the release it is bound to give the specs
// of the controllers every cluster runs: FeatureGateController, ClusterOperatorStatusController,
// FeatureUpgradeableController and RunningGatesController. The single-cluster operator is one cluster engaged once
// (controllers/manager.ts runs these specs in upstream's order); a hosted guest is a cluster engaged on the replica's
// controllers for as long as the replica holds its shard (hosted/guest-engagement.ts).
import type { Registry } from 'prom-client';
import type { ClusterOperator, ClusterVersion, FeatureGate, GateLifecycle } from '../api-types/index.js';
import type { ClusterAccess, ControllerSpec, EventRecorder, Logger, Reflector, ResourceClient, WatchSource } from '../runtime/index.js';
import { clusterOperatorStatusController } from './cluster-operator-status.js';
import { featureGateStatusController, type OperatorRelease } from './feature-gate-status.js';
import type { OperatorConditions } from './operator-conditions.js';
import { runningGatesController, type RunningGatesDeps } from './running-gates.js';
import { upgradeableController } from './upgradeable.js';

// What a caller engaging clusters names of these controllers (their kinds) and reads of them (their conditions, a check's outcome).
export { CLUSTER_OPERATOR_STATUS_CONTROLLER } from './cluster-operator-status.js';
export { FEATURE_GATE_CONTROLLER } from './feature-gate-status.js';
export { OperatorConditions } from './operator-conditions.js';
export { RUNNING_GATES_CONTROLLER, type RunningGatesOutcome } from './running-gates.js';
export { UPGRADEABLE_CONTROLLER } from './upgradeable.js';

/** One watched object kind of a cluster: its cache, and its changes. */
export type ClusterCache<T> = Pick<Reflector<T & { metadata: { name?: string } }>, 'get' | 'addListener'>;

/** What the operator's controllers read and write of one cluster. */
export interface OperatorCluster {
  readonly featureGates: ClusterCache<FeatureGate>;
  readonly clusterVersions: ClusterCache<ClusterVersion>;
  readonly clusterOperators: ClusterCache<ClusterOperator>;
  readonly featureGate: Pick<ResourceClient<FeatureGate>, 'replaceStatus'>;
  readonly clusterOperator: Pick<ResourceClient<ClusterOperator>, 'create' | 'replaceStatus'>;
  /** Its kube-apiserver (the running-gate checks read its /metrics). */
  readonly access: ClusterAccess;
  readonly events: EventRecorder;
  readonly logger: Logger;
  readonly metrics?: Registry;
}

/** What the cluster is engaged with. */
export interface OperatorBinding {
  /** The release its status is kept for, read at every sync (undefined: none accepted yet; nothing is written). */
  release: () => OperatorRelease | undefined;
  /** The operator conditions its ClusterOperator reports. */
  conditions: OperatorConditions;
  clusterOperatorName: string;
  /** relatedObjects namespace of its ClusterOperator. */
  namespace: string;
  /**
   * The version its ClusterOperator reports (default the release's; the single-cluster operator reports its own even when its payload is
   * broken).
   */
  operatorVersion?: () => string | undefined;
  /** How soon the status controllers look again when nothing told them to (default their minute). */
  resyncMs?: number;
  degradedInertiaMs?: number;
  okdBuild?: boolean;
  /** The feature set asked for elsewhere (a hosted guest's HCP): a NoUpgrade choice there blocks upgrades too. */
  requested?: WatchSource & { featureSet(): string | undefined };
  /** After a FeatureGate sync that left status as desired: it wrote it (true) or found it so (false). */
  onStatusSettled?(wrote: boolean): void;
  /** The running-gate checks (none when absent or its period is 0). */
  runningGates?: Omit<RunningGatesDeps, 'kubeConfig' | 'featureGates' | 'clusterVersions' | 'events' | 'metrics' | 'logger'> & {
    lifecycle: () => GateLifecycle;
  };
}

export interface OperatorControllers {
  featureGate: ControllerSpec;
  clusterOperator: ControllerSpec;
  upgradeable: ControllerSpec;
  runningGates?: ControllerSpec;
}

/**
 * The specs of the controllers every cluster runs. `clusterVersions` may be narrowed (a hosted guest's version-bound
 * controllers see only a ClusterVersion naming the bound version); the rest is the cluster's.
 */
export function operatorControllers(
  cluster: OperatorCluster,
  b: OperatorBinding,
  clusterVersions = cluster.clusterVersions,
): OperatorControllers {
  const { featureGates, clusterOperators, events, logger, metrics } = cluster;
  const observed = { ...(metrics ? { metrics } : {}) };
  const resync = b.resyncMs !== undefined ? { resyncMs: b.resyncMs } : {};
  const rg = b.runningGates;
  return {
    featureGate: featureGateStatusController({
      release: b.release,
      featureGates,
      clusterVersions,
      client: cluster.featureGate,
      conditions: b.conditions,
      events,
      logger,
      ...observed,
      ...resync,
      ...(b.onStatusSettled ? { onSettled: b.onStatusSettled } : {}),
    }),
    clusterOperator: clusterOperatorStatusController({
      name: b.clusterOperatorName,
      operatorVersion: b.operatorVersion ?? (() => b.release()?.version),
      namespace: b.namespace,
      clusterOperators,
      featureGates,
      client: cluster.clusterOperator,
      conditions: b.conditions,
      ...resync,
      ...(b.degradedInertiaMs !== undefined ? { degradedInertiaMs: b.degradedInertiaMs } : {}),
    }),
    upgradeable: upgradeableController({
      featureGates,
      conditions: b.conditions,
      ...(b.okdBuild !== undefined ? { okdBuild: b.okdBuild } : {}),
      ...(b.requested ? { requested: b.requested } : {}),
    }),
    ...(rg && (rg.periodMs ?? 1) > 0
      ? {
          runningGates: runningGatesController({
            ...rg,
            kubeConfig: cluster.access,
            featureGates,
            clusterVersions: cluster.clusterVersions,
            events,
            logger,
            ...observed,
          }),
        }
      : {}),
  };
}
