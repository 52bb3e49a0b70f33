// `featuregates hosted`: the coordinator of a management cluster's hosted control planes. Wiring only: a reflector
// of HostedControlPlanes (all namespaces, or those whose Namespace matches a label selector), the shard manager
// (membership + shard Leases, shards.ts), the replica's controllers (one per kind, guest-controllers.ts) and the
// sessions of the held shards' HCPs (replica-sessions.ts: a session starts when its shard is acquired and stops,
// without writing, before the shard is handed back or lost, or when its HCP goes; a shard whose renewal only came late
// keeps its sessions until it is held again), declared in the runnable groups they start and stop in. Metrics and
// health are served as by the single-cluster operator.
import { hostname } from 'node:os';
import { CONFIG_OPERATOR_NAME, shardCountProblem, type GateLifecycle, type HostedControlPlane, type Namespace } from '../api-types/index.js';
import { BucketLimiter, DEFAULT_LEADER_ELECTION, HostedControlPlaneSummaryResource, LeaseThread, NamespaceResource, Reflector, Registry, ResourceClient, RunnableGroups, kubernetesGateLifecycle, realClock, serveProcess, silentLogger, userAgent, withTransportConfig, type ClusterAccess, type LeaderElectionTiming, type Logger, type ServingOptions } from '../runtime/index.js';
import { FairTurns } from './fair-turns.js';
import { ReleaseCatalog } from './release-catalog.js';
import { WritePacer, type WritePace } from './write-pacer.js';
import { FIRST_LISTINGS, type GuestTuning } from './guest-connection.js';
import { GuestControllers } from './guest-controllers.js';
import { hostedMetrics } from './metrics.js';
import { ReplicaSessions, type SharedSessionDeps } from './replica-sessions.js';
import { ShardManager } from './shards.js';
import { StatusRecords } from './status-records.js';
import { MemoryBudget, type MemoryBudgetOptions } from './memory-budget.js';

export const DEFAULT_SHARDS = 32;
/**
 * The pace of what a replica's sessions write to the management cluster, all of them together (Events, the
 * feature-gate ConfigMaps; never the Leases): a fleet-wide change is ~670 such writes per replica at 2,000 HCPs.
 */
export const MANAGEMENT_WRITES: WritePace = { perSecond: 20, burst: 50, maxInFlight: 4 };

export interface HostedOptions extends ServingOptions {
  kubeConfig: ClusterAccess;
  payloadCatalog: string;
  /** Where the Leases and status records live (default: the pod's namespace). */
  namespace: string;
  identity?: string;
  shards?: number;
  /** Only HCPs in namespaces with these labels. */
  namespaceSelector?: string;
  /** Guest kubeconfig Secret name (and key) instead of each HCP's status.kubeConfig. */
  guestKubeconfigSecret?: { name: string; key?: string };
  clusterOperatorName?: string;
  leaderElection?: Partial<LeaderElectionTiming>;
  guest?: GuestTuning;
  logger?: Logger;
  /**
   * The memory in use the replica keeps under by shedding guests (memory-budget.ts; cmd's --memory-budget: by
   * default a share of the container's memory limit), and how it is measured (default every SAMPLE_MS: the
   * container's working set under a memory limit, else this process's RSS). None: no budget.
   */
  memoryBudget?: Pick<MemoryBudgetOptions, 'budgetBytes' | 'inUse' | 'now' | 'sampleMs'>;
  /**
   * Where the replica's Leases are renewed: 'thread' (default), on a thread of their own (runtime's LeaseThread), so
   * that no guest's work queues a renewal; 'event-loop', beside the guests.
   */
  leaseRenewals?: LeaseRenewals;
  /** The membership Lease was lost: the caller exits non-zero. */
  onLostMembership?: (reason: string) => void;
}

export const LEASE_RENEWALS = ['thread', 'event-loop'] as const;
export type LeaseRenewals = (typeof LEASE_RENEWALS)[number];

export interface RunningCoordinator {
  identity: string;
  metrics: Registry;
  metricsAddress: string | undefined;
  healthAddress: string | undefined;
  /** Resolves once this replica has joined and the HCPs are listed. */
  ready: Promise<void>;
  heldShards(): number[];
  sessions(): string[];
  stop(): Promise<void>;
}

export async function startHosted(o: HostedOptions): Promise<RunningCoordinator> {
  const log = o.logger ?? silentLogger;
  const identity = o.identity ?? hostname();
  const shards = o.shards ?? DEFAULT_SHARDS;
  const problem = shardCountProblem(shards);
  if (problem) throw new Error(`--shards ${problem}, got ${shards}`);
  const catalog = new ReleaseCatalog(o.payloadCatalog);
  log.info('payload catalog', { dir: o.payloadCatalog, releases: catalog.releases() });
  const kc = withTransportConfig(o.kubeConfig, { userAgent: userAgent('featuregates-hosted'), logger: log });
  const metrics = new Registry();
  const hcps = new Reflector(new ResourceClient(kc, HostedControlPlaneSummaryResource, metrics), { logger: log, metrics });
  const namespaces = o.namespaceSelector
    ? new Reflector<Namespace>(new ResourceClient(kc, NamespaceResource, metrics), {
        logger: log,
        metrics,
        labelSelector: o.namespaceSelector,
      })
    : undefined;
  // Stopped in the reverse order: the shards (their sessions, then their Leases and the membership), the controllers
  // the sessions engaged on, the status records, the caches, the endpoint.
  const runnables = new RunnableGroups(['serving', 'caches', 'records', 'controllers', 'shards'] as const, log);
  // One controller per kind for every guest of the replica: started now, stopped after the sessions that engage on them.
  const controllers = new GuestControllers({ logger: log, metrics });
  const sessions = new ReplicaSessions({
    shards, hcps, ...(namespaces ? { namespaces } : {}), ...(o.guestKubeconfigSecret ? { secretOverride: o.guestKubeconfigSecret } : {}),
    shared: sharedSessionDeps(o, { identity, kc, catalog, metrics, controllers, log }),
    recordsChanged: (shard) => records.changed(shard), stopping: () => runnables.stopped, management: kc, registry: metrics, logger: log,
  });
  const records = new StatusRecords(kc, o.namespace, (shard) => sessions.heldShard(shard), log);
  runnables.add('records', records);
  runnables.add('controllers', controllers);
  // One HCP's event concerns its session alone. A relist reports every HCP again; only a changed one is worth a
  // sync now. A Namespace's labels can concern every HCP of it: one walk.
  hcps.addListener(sessions.hcpChanged, { changesOnly: true });
  namespaces?.addListener(() => sessions.walkSoon());

  const manager = shardManager(o, { identity, shards, kc, metrics, log, sessions, hcps, namespaces });

  let joined = false;
  const serving = await serveProcess(o, {
    kc, registry: metrics, certName: 'featuregates-hosted-metrics', ready: () => joined && hcps.hasSynced() && (namespaces?.hasSynced() ?? true), logger: log,
  });
  log.info('serving', { metrics: serving.metricsAddress, health: serving.healthAddress, identity, namespace: o.namespace, shards });
  runnables.add('serving', serving);
  for (const cache of [sessions.secrets, hcps, ...(namespaces ? [namespaces] : [])]) runnables.add('caches', cache);
  runnables.add('shards', { stop: () => manager.stop() }); // joined below, once the HCPs are listed
  if (o.memoryBudget) runnables.add('shards', memoryBudget(o.memoryBudget, sessions, metrics, log));
  else log.info('no memory budget: no container memory limit found and none given (--memory-budget)');
  // The replica joins while its HCPs are listed (at fleet size the listing takes seconds): its first retry
  // period after joining only observes the Leases anyway. It claims shards once the HCPs are listed.
  const listed = Promise.all([hcps.synced, namespaces?.synced]).then(() => manager.nudge());
  const ready = (async () => {
    await Promise.all([manager.start(), listed]);
    joined = true;
    log.info('coordinator ready', { hcps: hcps.list().length });
  })();
  ready.catch(() => undefined);

  return {
    identity, metrics, metricsAddress: serving.metricsAddress, healthAddress: serving.healthAddress, ready,
    heldShards: () => manager.held(),
    sessions: () => sessions.keys(),
    stop: () => runnables.stopAndWait(),
  };
}

/** The replica's shards as Leases (shards.ts), renewed on a thread of their own unless asked otherwise, feeding the sessions. */
function shardManager(o: HostedOptions, r: {
  identity: string; shards: number; kc: ClusterAccess; metrics: Registry; log: Logger; sessions: ReplicaSessions;
  hcps: Reflector<HostedControlPlane>; namespaces: Reflector<Namespace> | undefined;
}): ShardManager {
  const { log, sessions, hcps, namespaces } = r;
  const leaseThread = o.leaseRenewals !== 'event-loop' ? new LeaseThread() : undefined;
  log.info('lease renewals', { on: leaseThread?.accepts(r.kc) ? 'their own thread' : 'the event loop', asked: o.leaseRenewals ?? 'thread' });
  return new ShardManager({
    kubeConfig: r.kc,
    namespace: o.namespace,
    identity: r.identity,
    shards: r.shards,
    timing: { ...DEFAULT_LEADER_ELECTION, ...o.leaderElection },
    metrics: r.metrics,
    logger: log,
    ...(leaseThread ? { leaseThread } : {}),
    onAcquired: (shard, fence, resumed) => sessions.acquired(shard, fence, resumed),
    onLost: (shard) => sessions.lost(shard),
    onLostMembership: (reason) =>
      (o.onLostMembership ?? ((why: string) => log.error('membership lost; the caller did not say what to do', { reason: why })))(reason),
    claimable: () => hcps.hasSynced() && (namespaces?.hasSynced() ?? true),
  });
}

/** The budget over the replica's sessions: the guests it sheds stop, their records say why. */
function memoryBudget(budget: NonNullable<HostedOptions['memoryBudget']>, sessions: ReplicaSessions, registry: Registry, log: Logger): MemoryBudget {
  const b = new MemoryBudget({
    ...budget, registry, logger: log,
    guests: {
      costs: () => sessions.costs(), eligible: () => sessions.eligibleKeys(),
      shed: (g) => sessions.shed(g), readmit: (k) => sessions.readmit(k),
    },
  });
  log.info('memory budget', { budgetBytes: budget.budgetBytes, budgetMiB: Math.round(budget.budgetBytes / 2 ** 20), measure: b.measure });
  return b;
}

/** What every guest session of the replica shares: the management access, the catalog, the paces and places, the controllers. */
function sharedSessionDeps(o: HostedOptions, r: {
  identity: string; kc: ClusterAccess; catalog: ReleaseCatalog; metrics: Registry; controllers: GuestControllers; log: Logger;
}): SharedSessionDeps {
  // Read at the first running-gate check of any guest, then shared by all.
  let lifecycle: GateLifecycle | undefined;
  return {
    identity: r.identity,
    management: r.kc,
    catalog: r.catalog,
    clusterOperatorName: o.clusterOperatorName ?? CONFIG_OPERATOR_NAME,
    tuning: o.guest ?? {},
    metrics: hostedMetrics(r.metrics),
    registry: r.metrics,
    logger: r.log,
    controllers: r.controllers,
    gateLifecycle: () => (lifecycle ??= kubernetesGateLifecycle()),
    managementWrites: new WritePacer(MANAGEMENT_WRITES),
    firstListings: new FairTurns(new BucketLimiter(FIRST_LISTINGS.perSecond, FIRST_LISTINGS.burst), realClock, FIRST_LISTINGS),
  };
}
