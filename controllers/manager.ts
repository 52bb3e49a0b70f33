// The operator's manager, in upstream order: metrics/health server and caches (on every replica, so a
// follower is ready and takes over with warm caches) → leader election (when enabled) →
// FeatureGateController (and RunningGatesController, which checks kube-apiserver's running gates against its
// status) → wait (through the SDK accessor, 5 min) until FeatureGate status holds the
// operator's own version → the upgradeable and ClusterOperator status controllers. Only then does the
// ClusterOperator report the new `operator` version. Every write goes through the leader fence; when
// leadership is lost the controllers stop and onLostLeadership runs (the CLI exits non-zero).
import type { ClusterAccess } from '../runtime/index.js';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import {
  CLUSTER_VERSION_NAME,
  CONFIG_OPERATOR_NAME,
  ETCD_REQUEST_LIMIT_BYTES,
  FEATURE_GATE_NAME,
  FeatureSets,
  syncDegraded,
  type ClusterProfile,
  type FeatureSetRegistry,
} from '../api-types/index.js';
import {
  apiErrorMessage,
  apiServerVersion,
  readAtMostEvery,
  readNodeConfigurations,
  ClusterOperatorResource,
  ClusterVersionResource,
  Controller,
  Registry,
  registerStatusFeatureMetrics,
  FeatureGateResource,
  LeaderElector,
  userAgent,
  Reflector,
  ResourceClient,
  createEventRecorder,
  withTransportConfig,
  RunnableGroups,
  componentAccess,
  kubernetesGateLifecycle,
  serveProcess,
  silentLogger,
  type ServingOptions,
  type ControllerSpec,
  type LeaderElectionTiming,
  type Logger,
  type ResourceClientOptions,
} from '../runtime/index.js';
import { featureGateAccessOverCaches } from '../sdk/index.js';
import { FEATURE_GATE_CONTROLLER } from './feature-gate-status.js';
import { knownGatesParamsController } from './known-gates-params.js';
import { gatesThatStartController } from './gates-that-start.js';
import { RUNNING_GATES_PERIOD_MS } from './running-gates.js';
import { okdMigrationController } from './okd-feature-set-migration.js';
import { OperatorConditions } from './operator-conditions.js';
import { operatorControllers, type OperatorBinding, type OperatorCluster } from './operator-cluster.js';
import { registerStatusMetrics } from './status-metrics.js';
import { loadPayload, type Payload } from './operator-payload.js';

/** Serving (ServingOptions: metrics and health addresses, secure metrics, its certificate) as every long-running process. */
export interface OperatorOptions extends ServingOptions {
  kubeConfig: ClusterAccess;
  operatorVersion: string;
  featureGateDir: string;
  clusterProfile?: ClusterProfile;
  clusterOperatorName?: string;
  /** Namespace for Events and the leader Lease. */
  namespace?: string;
  leaderElect?: boolean;
  leaderElectionNamespace?: string;
  leaderElectionId?: string;
  /** Lease timing (default client-go's 15 s / 10 s / 2 s). */
  leaderElection?: Partial<LeaderElectionTiming>;
  /** How long a Degraded operator condition must persist before the ClusterOperator reports it. */
  degradedInertiaMs?: number;
  /** How long to wait for FeatureGate status to hold this version before giving up. Default 5 min. */
  initialWaitMs?: number;
  okdBuild?: boolean;
  /** How often kube-apiserver's running gates are checked besides on a change (default 10 min; 0: off). */
  runningGatesPeriodMs?: number;
  /** Components checked beside kube-apiserver, at their secure ports with the operator's credentials. */
  runningGatesComponents?: readonly { name: string; url: string }[];
  /** PEM bundle of those components' serving CAs (default: the kubeconfig's CA). */
  runningGatesComponentCA?: Buffer;
  /** Known, deliberate differences (gate → the value it runs with): `overridden`, not a mismatch. */
  runningGatesOverrides?: ReadonlyMap<string, boolean>;
  /** The nodes' kubelets too: this many nodes per minute (0 or absent: off; RBAC: list nodes, get nodes/proxy). */
  runningGatesKubeletsPerMinute?: number;
  /** Test tuning: the kubelets' period (default one minute). */
  runningGatesKubeletsPeriodMs?: number;
  logger?: Logger;
  /** Leadership lost: the controllers are already stopped; the caller exits non-zero. */
  onLostLeadership?: (reason: string) => void;
  /** Test tuning of the reflectors (backoff and relist). */
  reflector?: { backoffInitialMs?: number; backoffMaxMs?: number; relistIntervalMs?: number; watchTimeoutSeconds?: [number, number] };
}

export interface RunningOperator {
  metrics: Registry;
  metricsAddress: string | undefined;
  /** "https" (authenticated) or "http". */
  metricsScheme: 'https' | 'http';
  healthAddress: string | undefined;
  /** Resolves once every controller runs (FeatureGate status holds this version). */
  ready: Promise<void>;
  /** True while this replica may write (always true without leader election). */
  isLeader(): boolean;
  stop(): Promise<void>;
}

export const DEFAULT_LEADER_ELECTION_ID = 'config-operator-lock';

export async function startOperator(options: OperatorOptions): Promise<RunningOperator> {
  const log = options.logger ?? silentLogger;
  if (!options.operatorVersion) throw new Error('the operator version is empty: pass --operator-version or set OPERATOR_IMAGE_VERSION');
  const payload = loadPayload(options, log);
  const namespace = options.namespace ?? 'default';
  const metrics = new Registry();
  const kc = withTransportConfig(options.kubeConfig, { userAgent: userAgent('featuregates-operator'), logger: log });
  const abort = new AbortController();
  const lifecycle = { stopped: false };
  // Stopped in the reverse order: the controllers, the accessor, the Events still queued, the caches, the Lease, the endpoint.
  const runnables = new RunnableGroups(['serving', 'election', 'caches', 'events', 'accessor', 'controllers'] as const, log,
    { leaderElection: Boolean(options.leaderElect) });
  const elector = options.leaderElect ? operatorElector(kc, options, { namespace, metrics, log }, (reason) => {
    // Nothing is written from here on: the fence already refuses, and the controllers stop.
    lifecycle.stopped = true;
    abort.abort(new Error('leader election lost'));
    void runnables.stopGroup('controllers').then(() => (options.onLostLeadership ?? ((r: string) => { log.error('leader election lost; the caller did not say what to do', { reason: r }); }))(reason));
  }) : undefined;
  const fence = elector ? () => elector.fence() : undefined;
  // Writers carry the fence (judged by the transport before each attempt leaves) and the manager's signal:
  // stopping or losing the Lease ends their requests in flight instead of waiting out a server's Retry-After.
  const caches = operatorCaches(kc, options, { metrics, log, writeOptions: { ...(fence ? { fence } : {}), signal: abort.signal } });

  const serving = await serveProcess(options, { kc, registry: metrics, certName: 'featuregates-metrics', ready: caches.synced, logger: log });
  runnables.add('serving', serving);
  if (elector) runnables.add('election', { stop: () => elector.release() });
  log.info('serving', {
    metrics: serving.metricsAddress, ...(serving.metricsAddress ? { metricsScheme: serving.secure ? 'https' : 'http' } : {}), health: serving.healthAddress,
  });
  const events = createEventRecorder(kc, { namespace, component: 'featuregate-coordinator', logger: log, metrics, ...(fence ? { fence } : {}) });
  runnables.add('events', { stop: () => events.flush() });
  // The cluster the operator runs in, engaged once with this release (controllers/operator-cluster.ts).
  const cluster: OperatorCluster = { ...caches.cluster, access: kc, events, logger: log, metrics };
  const conditions = OperatorConditions.atStart();
  const run: OperatorRun = {
    options, log, kc, abort, lifecycle, runnables, elector, caches, payload, conditions, events, metrics, namespace,
    ...(fence ? { fence } : {}),
    controllers: operatorControllers(cluster,
      operatorBinding(options, payload, { conditions, namespace, kc, clusterOperatorName: caches.clusterOperatorName })),
    // Over the manager's own caches: no second pair of watches.
    accessor: featureGateAccessOverCaches({ featureGates: caches.cluster.featureGates, clusterVersions: caches.cluster.clusterVersions }, {
      desiredVersion: options.operatorVersion, logger: log, metricsRegistry: metrics,
      // The operator itself uses no gates, so a change needs no restart (a component would exit here).
      onChange: ({ previous }) => { if (previous) log.info('feature gates of this version changed'); },
    }),
  };
  const ready = runWhenLeading(run);
  ready.catch(() => undefined);

  return {
    metrics,
    metricsAddress: serving.metricsAddress,
    metricsScheme: serving.secure ? 'https' : 'http',
    healthAddress: serving.healthAddress,
    ready,
    isLeader: () => (elector ? elector.isLeader() : true),
    async stop() {
      lifecycle.stopped = true;
      abort.abort(new Error('operator stopping'));
      await runnables.stopAndWait();
    },
  };
}

function operatorElector(kc: ClusterAccess, options: OperatorOptions, r: { namespace: string; metrics: Registry; log: Logger },
  onStoppedLeading: (reason: string) => void): LeaderElector {
  return new LeaderElector(kc, {
    namespace: options.leaderElectionNamespace ?? r.namespace,
    name: options.leaderElectionId ?? DEFAULT_LEADER_ELECTION_ID,
    identity: `${hostname()}_${process.pid}_${randomBytes(4).toString('hex')}`,
    ...options.leaderElection,
    metrics: r.metrics, logger: r.log, onStoppedLeading,
  });
}

/** The operator's three caches (its FeatureGate, ClusterVersion and ClusterOperator), their writers, and the status metrics over them. */
function operatorCaches(
  kc: ClusterAccess,
  options: OperatorOptions,
  r: { metrics: Registry; log: Logger; writeOptions: ResourceClientOptions },
) {
  const reflectorOptions = { logger: r.log, metrics: r.metrics, ...options.reflector };
  const featureGate = new ResourceClient(kc, FeatureGateResource, r.metrics, r.writeOptions);
  const featureGates = new Reflector(featureGate, { ...reflectorOptions, name: FEATURE_GATE_NAME });
  const clusterVersions = new Reflector(new ResourceClient(kc, ClusterVersionResource, r.metrics), {
    ...reflectorOptions,
    name: CLUSTER_VERSION_NAME,
  });
  const clusterOperatorName = options.clusterOperatorName ?? CONFIG_OPERATOR_NAME;
  const clusterOperator = new ResourceClient(kc, ClusterOperatorResource, r.metrics, r.writeOptions);
  const clusterOperators = new Reflector(clusterOperator, { ...reflectorOptions, name: clusterOperatorName });
  const reflectors = [featureGates, clusterVersions, clusterOperators];
  registerStatusFeatureMetrics(r.metrics, () => featureGates.get(FEATURE_GATE_NAME)?.status?.featureGates ?? []);
  registerStatusMetrics(r.metrics, {
    operatorVersion: options.operatorVersion,
    clusterOperatorName,
    sizeLimitBytes: ETCD_REQUEST_LIMIT_BYTES,
    featureGate: () => featureGates.get(FEATURE_GATE_NAME),
    clusterOperator: () => clusterOperators.get(clusterOperatorName),
  });
  return {
    cluster: { featureGates, clusterVersions, clusterOperators, featureGate, clusterOperator },
    clusterOperatorName,
    reflectors,
    synced: () => reflectors.every((x) => x.hasSynced()),
  };
}

/** The release the operator's controllers are bound to, and what its running-gate checks read. */
function operatorBinding(options: OperatorOptions, payload: Payload, r: {
  conditions: OperatorConditions; namespace: string; kc: ClusterAccess; clusterOperatorName: string;
}): OperatorBinding {
  const release = payload.registry && { version: options.operatorVersion, registry: payload.registry };
  return {
    release: () => release,
    operatorVersion: () => options.operatorVersion,
    conditions: r.conditions,
    clusterOperatorName: r.clusterOperatorName,
    namespace: r.namespace,
    okdBuild: options.okdBuild ?? false,
    ...(options.degradedInertiaMs !== undefined ? { degradedInertiaMs: options.degradedInertiaMs } : {}),
    runningGates: {
      lifecycle: () => kubernetesGateLifecycle(),
      periodMs: options.runningGatesPeriodMs ?? RUNNING_GATES_PERIOD_MS,
      components: (options.runningGatesComponents ?? []).map(({ name, url }) => ({
        name,
        access: componentAccess(r.kc, url, options.runningGatesComponentCA),
      })),
      ...(options.runningGatesOverrides ? { overrides: options.runningGatesOverrides } : {}),
      ...(options.runningGatesKubeletsPerMinute
        ? { kubelets: { perPeriod: options.runningGatesKubeletsPerMinute, periodMs: options.runningGatesKubeletsPeriodMs ?? 60_000 } }
        : {}),
    },
  };
}

/** What the steps after the start share. */
interface OperatorRun {
  options: OperatorOptions;
  log: Logger;
  kc: ClusterAccess;
  abort: AbortController;
  lifecycle: { stopped: boolean };
  runnables: RunnableGroups<'serving' | 'election' | 'caches' | 'events' | 'accessor' | 'controllers'>;
  elector: LeaderElector | undefined;
  fence?: () => void;
  caches: ReturnType<typeof operatorCaches>;
  payload: Payload;
  conditions: OperatorConditions;
  events: ReturnType<typeof createEventRecorder>;
  metrics: Registry;
  namespace: string;
  controllers: ReturnType<typeof operatorControllers>;
  accessor: ReturnType<typeof featureGateAccessOverCaches>;
}

/** The operator's controllers write: each needs the leader, started once this replica leads and the caches have listed. */
const runController = (r: OperatorRun, spec: ControllerSpec) => r.runnables.add('controllers', new Controller(spec, { metrics: r.metrics, logger: r.log }));

/**
 * The caches run on every replica; the controllers, in upstream's order, and the accessor declare that they need the
 * leader (the runnable groups start them once the Lease is won and the caches have listed); then the ClusterOperator
 * waits for this version's gates.
 */
async function runWhenLeading(r: OperatorRun): Promise<void> {
  for (const c of r.caches.reflectors) r.runnables.add('caches', c);
  if (r.payload.registry) startGateControllers(r, r.payload.registry);
  else {
    r.conditions.set(syncDegraded(FEATURE_GATE_CONTROLLER, r.payload.broken));
    runController(r, r.controllers.clusterOperator);
  }
  if (r.elector) await r.elector.acquire(r.abort.signal);
  if (r.lifecycle.stopped) return;
  await r.runnables.lead();
  if (r.lifecycle.stopped || !r.payload.registry) return;
  await reportOnceCurrent(r);
}

/**
 * FeatureGateController and the controllers that judge gates: the known-gates parameters, gates that start, OKD's migration, running gates.
 */
function startGateControllers(r: OperatorRun, registry: FeatureSetRegistry): void {
  const { options, kc, log, abort, metrics } = r;
  const featureGates = r.caches.cluster.featureGates;
  // The cluster's Kubernetes version, for both controllers that judge gates by it: one GET /version per 10 minutes.
  const kubernetesVersion = readAtMostEvery(apiServerVersion(kc, abort.signal), 10 * 60_000);
  // With the kubelets read (--running-gates-kubelets), the nodes' configurations for the admission guard: every Ready
  // node's /configz, at most every 10 minutes (a failed read keeps what was read before).
  let nodesAt = '';
  const readNodes = readAtMostEvery(async () => {
    try {
      return (await readNodeConfigurations(kc, nodesAt)).groups;
    } catch (e) {
      log.warn('the nodes\' kubelet configurations could not be read', { error: apiErrorMessage(e) });
      return undefined;
    }
  }, 10 * 60_000);
  const nodeConfigurations = options.runningGatesKubeletsPerMinute
    ? (version: string) => {
        nodesAt = version;
        return readNodes();
      }
    : undefined;
  runController(r, r.controllers.featureGate);
  runController(r, gatesThatStartController({
    operatorVersion: options.operatorVersion, registry, featureGates, conditions: r.conditions, events: r.events, logger: log, metrics,
    kubernetesVersion, ...(nodeConfigurations ? { nodeConfigurations } : {}),
  }));
  if (options.okdBuild) {
    runController(
      r,
      okdMigrationController({
        featureGates,
        client: r.caches.cluster.featureGate,
        events: r.events,
        payloadHasOKD: registry.featureSets.has(FeatureSets.OKD),
        logger: log,
      }),
    );
  }
  runController(
    r,
    knownGatesParamsController({
      kubeConfig: kc,
      namespace: r.namespace,
      operatorVersion: options.operatorVersion,
      registry,
      clusterVersions: r.caches.cluster.clusterVersions,
      metrics,
      ...(r.fence ? { fence: r.fence } : {}),
      signal: abort.signal,
      kubernetesVersion,
      logger: log,
      ...(nodeConfigurations ? { nodeConfigurations } : {}),
    }),
  );
  if (r.controllers.runningGates) runController(r, r.controllers.runningGates);
  // Read by the ClusterOperator's wait for this version; like the controllers, run only by the leader.
  r.runnables.add('accessor', { needLeaderElection: true, start: () => r.accessor.start(), stop: () => r.accessor.stop() });
}

/**
 * The ClusterOperator waits for this version's gates (upstream's order), unless the status controller fails first — a
 * spec the payload cannot resolve — which it then reports as Degraded while the wait goes on; then Upgradeable.
 */
async function reportOnceCurrent(r: OperatorRun): Promise<void> {
  r.log.info('waiting for FeatureGate status to hold this version', { version: r.options.operatorVersion });
  const initial = r.accessor.waitForInitial({ timeoutMs: r.options.initialWaitMs ?? 5 * 60_000, signal: r.abort.signal });
  initial.catch(() => undefined);
  let reporting = false;
  const failing = new Promise<void>((resolve) => {
    const check = () => {
      if (r.conditions.all().some((c) => c.type === `${FEATURE_GATE_CONTROLLER}Degraded` && c.status === 'True')) { off(); resolve(); }
    };
    const off = r.conditions.addListener(check);
    check();
    initial.then(off, off);
  });
  if (await Promise.race([initial.then(() => false), failing.then(() => true)]) && !r.lifecycle.stopped) {
    runController(r, r.controllers.clusterOperator);
    reporting = true;
  }
  await initial;
  if (r.lifecycle.stopped) return;
  runController(r, r.controllers.upgradeable);
  if (!reporting) runController(r, r.controllers.clusterOperator);
  r.log.info('all controllers started');
}
