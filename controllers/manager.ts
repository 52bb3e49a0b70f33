// The operator's manager, in upstream order: metrics/health server → (leader election) → caches →
// FeatureGateController → wait (through the SDK accessor, 5 min) until FeatureGate status holds the
// operator's own version → the upgradeable and ClusterOperator status controllers. Only then does the
// ClusterOperator report the new `operator` version.
import type { KubeConfig } from '@kubernetes/client-node';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { CLUSTER_VERSION_NAME, FEATURE_GATE_NAME, type ClusterProfile } from '../api-types/index.js';
import {
  ClusterOperators, ClusterVersions, FeatureGates, LeaderElector, Reflector, ResourceClient, WorkQueue, createEventRecorder,
  loadRegistry, serveEndpoints, silentLogger, type Logger, type ServingEndpoint,
} from '../runtime/index.js';
import { featureGateAccessOverCaches } from '../sdk/feature-gate-access.js';
import { clusterOperatorStatusReconciler } from './cluster-operator-status.js';
import { FEATURE_GATE_CONTROLLER, featureGateStatusReconciler } from './feature-gate-status.js';
import { OperatorConditions } from './operator-conditions.js';
import { upgradeableReconciler } from './upgradeable.js';

export interface OperatorOptions {
  kubeConfig: KubeConfig;
  operatorVersion: string;
  featureGateDir: string;
  clusterProfile?: ClusterProfile;
  clusterOperatorName?: string;
  /** Namespace for Events and the leader Lease. */
  namespace?: string;
  metricsBindAddress?: string;
  healthProbeBindAddress?: string;
  leaderElect?: boolean;
  leaderElectionNamespace?: string;
  leaderElectionId?: string;
  /** How long a Degraded operator condition must persist before the ClusterOperator reports it. */
  degradedInertiaMs?: number;
  /** How long to wait for FeatureGate status to hold this version before giving up. Default 5 min. */
  initialWaitMs?: number;
  okdBuild?: boolean;
  logger?: Logger;
  /** Leadership lost: the caller exits (default: throw from the background, i.e. crash). */
  onLostLeadership?: () => void;
  /** Test tuning of the reflectors (backoff and relist). */
  reflector?: { backoffInitialMs?: number; backoffMaxMs?: number; relistIntervalMs?: number };
}

export interface RunningOperator {
  metrics: Registry;
  metricsAddress: string | undefined;
  healthAddress: string | undefined;
  /** Resolves once every controller runs (FeatureGate status holds this version). */
  ready: Promise<void>;
  stop(): Promise<void>;
}

export const DEFAULT_CLUSTER_OPERATOR_NAME = 'config-operator';
export const DEFAULT_LEADER_ELECTION_ID = 'config-operator-lock';

export async function startOperator(options: OperatorOptions): Promise<RunningOperator> {
  const log = options.logger ?? silentLogger;
  if (!options.operatorVersion) throw new Error('the operator version is empty: pass --operator-version or set OPERATOR_IMAGE_VERSION');
  const registry = loadRegistry(options.featureGateDir, {
    operatorVersion: options.operatorVersion,
    ...(options.clusterProfile ? { clusterProfile: options.clusterProfile } : {}),
  });
  log.info('payload feature sets loaded', {
    dir: options.featureGateDir, version: options.operatorVersion,
    featureSets: Object.fromEntries([...registry.featureSets].map(([k, v]) => [k || 'Default', `${v.enabled.length} enabled, ${v.disabled.length} disabled`])),
  });
  const namespace = options.namespace ?? 'default';
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics });
  const kc = options.kubeConfig;
  const reflectorOptions = { logger: log, metrics, ...options.reflector };
  const fgClient = new ResourceClient(kc, FeatureGates, metrics);
  const featureGates = new Reflector(fgClient, { ...reflectorOptions, name: FEATURE_GATE_NAME });
  const clusterVersions = new Reflector(new ResourceClient(kc, ClusterVersions, metrics), { ...reflectorOptions, name: CLUSTER_VERSION_NAME });
  const coName = options.clusterOperatorName ?? DEFAULT_CLUSTER_OPERATOR_NAME;
  const coClient = new ResourceClient(kc, ClusterOperators, metrics);
  const clusterOperators = new Reflector(coClient, { ...reflectorOptions, name: coName });
  const reflectors = [featureGates, clusterVersions, clusterOperators];
  const synced = () => reflectors.every((r) => r.hasSynced());

  const endpoints: ServingEndpoint[] = [];
  const metricsEndpoint = await serveEndpoints(options.metricsBindAddress ?? ':8080', { registry: metrics, health: false });
  if (metricsEndpoint) endpoints.push(metricsEndpoint);
  const healthEndpoint = await serveEndpoints(options.healthProbeBindAddress ?? ':8081', { ready: synced });
  if (healthEndpoint) endpoints.push(healthEndpoint);
  log.info('serving', { metrics: metricsEndpoint?.address, health: healthEndpoint?.address });

  const events = createEventRecorder(kc, { namespace, component: 'featuregate-coordinator', logger: log, metrics });
  const conditions = new OperatorConditions();
  for (const type of ['OperatorAvailable', 'OperatorUpgradeable']) conditions.set({ type, status: 'True', reason: 'AsExpected', message: '' });
  conditions.set({ type: 'OperatorProgressing', status: 'False', reason: 'AsExpected', message: '' });

  const queues: WorkQueue[] = [];
  let stopped = false;
  const abort = new AbortController();
  let elector: LeaderElector | undefined;
  // Over the manager's own caches: no second pair of watches.
  const accessor = featureGateAccessOverCaches({ featureGates, clusterVersions, owned: false }, {
    desiredVersion: options.operatorVersion, logger: log, metricsRegistry: metrics,
    // The operator itself uses no gates, so a change needs no restart (a component would exit here).
    onChange: ({ previous }) => { if (previous) log.info('feature gates of this version changed'); },
  });

  const run = async (): Promise<void> => {
    if (options.leaderElect) {
      elector = new LeaderElector(kc, {
        namespace: options.leaderElectionNamespace ?? namespace,
        name: options.leaderElectionId ?? DEFAULT_LEADER_ELECTION_ID,
        identity: `${hostname()}_${process.pid}_${randomBytes(4).toString("hex")}`,
        metrics, logger: log,
        onStoppedLeading: options.onLostLeadership ?? (() => { throw new Error('leader election lost'); }),
      });
      await elector.acquire(abort.signal);
    }
    if (stopped) return;
    for (const r of reflectors) r.start();
    await Promise.all(reflectors.map((r) => r.synced));
    log.info('caches synced');

    const statusQueue = new WorkQueue(FEATURE_GATE_CONTROLLER, featureGateStatusReconciler({
      operatorVersion: options.operatorVersion, registry, featureGates, clusterVersions, client: fgClient, conditions, events, logger: log, metrics,
    }), { metrics, logger: log });
    queues.push(statusQueue);
    const enqueueStatus = () => statusQueue.add(FEATURE_GATE_NAME);
    featureGates.addListener(enqueueStatus);
    clusterVersions.addListener(enqueueStatus);
    enqueueStatus();

    accessor.start();
    log.info('waiting for FeatureGate status to hold this version', { version: options.operatorVersion });
    await accessor.waitForInitial({ timeoutMs: options.initialWaitMs ?? 5 * 60_000, signal: abort.signal });
    if (stopped) return;

    const upgradeableQueue = new WorkQueue('FeatureUpgradeableController', upgradeableReconciler({
      featureGates, conditions, okdBuild: options.okdBuild ?? false,
    }), { metrics, logger: log });
    const coQueue = new WorkQueue('ClusterOperatorStatusController', clusterOperatorStatusReconciler({
      name: coName, operatorVersion: options.operatorVersion, namespace, clusterOperators, featureGates, client: coClient, conditions,
      ...(options.degradedInertiaMs !== undefined ? { degradedInertiaMs: options.degradedInertiaMs } : {}),
    }), { metrics, logger: log });
    queues.push(upgradeableQueue, coQueue);
    featureGates.addListener(() => upgradeableQueue.add(FEATURE_GATE_NAME));
    const enqueueCO = () => coQueue.add(coName);
    featureGates.addListener(enqueueCO);
    clusterOperators.addListener(enqueueCO);
    conditions.onChange(enqueueCO);
    upgradeableQueue.add(FEATURE_GATE_NAME);
    enqueueCO();
    log.info('all controllers started');
  };
  const ready = run();
  ready.catch(() => undefined);

  return {
    metrics,
    metricsAddress: metricsEndpoint?.address,
    healthAddress: healthEndpoint?.address,
    ready,
    async stop() {
      stopped = true;
      abort.abort(new Error('operator stopping'));
      await Promise.all(queues.map((q) => q.shutDown()));
      await accessor.stop();
      await Promise.all(reflectors.map((r) => r.stop()));
      await elector?.release();
      await Promise.all(endpoints.map((e) => e.close()));
    },
  };
}
