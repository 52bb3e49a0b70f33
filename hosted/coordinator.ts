// `featuregates hosted`: the coordinator of a management cluster's hosted control planes. Wiring only:
// a reflector of HostedControlPlanes (all namespaces, or those whose Namespace matches a label selector),
// the shard manager (membership + shard Leases), and per held shard one HeldShard (held-shard.ts: its fence,
// one GuestSession per HCP of the shard, their records). A session starts when its shard is acquired and stops
// (without writing) before the shard is handed back or lost, or when its HCP goes; a shard whose renewal only came late
// keeps its sessions until it is held again (shards.ts). Metrics and health are served as by the single-cluster operator.
import { hostname } from 'node:os';
import { CONFIG_OPERATOR_NAME, hcpKey, hcpNamespace, shardCountProblem, shardOf, type GateLifecycle, type HostedControlPlane, type Namespace } from '../api-types/index.js';
import {
  BucketLimiter, DEFAULT_LEADER_ELECTION, FairTurns, HostedControlPlaneSummaryResource, NamespaceResource, Reflector, Registry, ReleaseCatalog, ResourceClient, realClock, withTransportConfig, RunnableGroups,
  kubernetesGateLifecycle, serveProcess, silentLogger, type ServingOptions, userAgent, type ClusterAccess, type LeaderElectionTiming,
  type Logger, WritePacer, type WritePace,
} from '../runtime/index.js';
import { GuestControllers } from './guest-controllers.js';
import { GuestSecrets } from './guest-secrets.js';
import { HeldShard } from './held-shard.js';
import { GuestSession } from './guest-session.js';
import { FIRST_LISTINGS, type GuestTuning } from './guest-connection.js';
import { hostedMetrics } from './metrics.js';
import { ShardManager } from './shards.js';
import { StatusRecords } from './status-records.js';

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
  /** The membership Lease was lost: the caller exits non-zero. */
  onLostMembership?: (reason: string) => void;
}

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
  const hm = hostedMetrics(metrics);
  const timing: LeaderElectionTiming = { ...DEFAULT_LEADER_ELECTION, ...o.leaderElection };

  const hcps = new Reflector(new ResourceClient(kc, HostedControlPlaneSummaryResource, metrics), { logger: log, metrics });
  const namespaces = o.namespaceSelector
    ? new Reflector<Namespace>(new ResourceClient(kc, NamespaceResource, metrics), { logger: log, metrics, labelSelector: o.namespaceSelector })
    : undefined;
  /** Shard → what this replica holds for it (nothing else keeps per-shard state). */
  const held = new Map<number, HeldShard>();
  const heldOf = (key: string) => held.get(shardOf(key, shards));
  const sessionEntries = () => [...held.values()].flatMap((h) => [...h.sessions]);
  const records = new StatusRecords(kc, o.namespace, (shard) => held.get(shard), log);
  /** Namespace → the HCP keys of this replica's sessions in it: a Secret's change pokes those, without a walk of every session. */
  const sessionsByNamespace = new Map<string, Set<string>>();
  const secrets = new GuestSecrets(kc, (namespace) => {
    for (const key of sessionsByNamespace.get(namespace) ?? []) heldOf(key)?.sessions.get(key)?.poke();
  }, log, metrics);
  // Stopped in the reverse order: the shards (their sessions, then their Leases and the membership), the status
  // records, the caches, the endpoint.
  const runnables = new RunnableGroups(['serving', 'caches', 'records', 'controllers', 'shards'] as const, log);
  runnables.add('records', records);
  // One controller per kind for every guest of the replica: started now, stopped after the sessions that engage on them.
  const controllers = new GuestControllers({ logger: log, metrics });
  controllers.start();
  runnables.add('controllers', controllers);

  const selected = (hcp: HostedControlPlane) => !namespaces || namespaces.get(hcp.metadata.namespace) !== undefined;
  const wanted = (key: string, hcp: HostedControlPlane | undefined): boolean =>
    hcp !== undefined && selected(hcp) && heldOf(key) !== undefined;
  const managementWrites = new WritePacer(MANAGEMENT_WRITES);
  const firstListings = new FairTurns(new BucketLimiter(FIRST_LISTINGS.perSecond, FIRST_LISTINGS.burst), realClock, FIRST_LISTINGS);
  // Read at the first running-gate check of any guest, then shared by all.
  let lifecycle: GateLifecycle | undefined;
  const gateLifecycle = () => (lifecycle ??= kubernetesGateLifecycle());
  const startSession = (key: string, h: HeldShard) => {
    const session = new GuestSession({
      key, shard: h.shard, identity, fence: h.fence, hcp: () => hcps.get(key), management: kc, secrets, catalog,
      ...(o.guestKubeconfigSecret ? { secretOverride: o.guestKubeconfigSecret } : {}),
      clusterOperatorName: o.clusterOperatorName ?? CONFIG_OPERATOR_NAME, tuning: o.guest ?? {},
      record: (r) => {
        // A record said after the shard went (its session stopping) is not the new holder's to write.
        if (held.get(h.shard) !== h) return;
        h.putRecord(r);
        records.changed(h.shard);
      },
      metrics: hm, registry: metrics, logger: log, gateLifecycle, managementWrites, controllers, firstListings,
    });
    h.sessions.set(key, session);
    const namespace = hcpNamespace(key);
    let inNamespace = sessionsByNamespace.get(namespace);
    if (!inNamespace) sessionsByNamespace.set(namespace, (inNamespace = new Set()));
    inNamespace.add(key);
    session.start();
  };
  const forgetSession = (key: string) => {
    const namespace = hcpNamespace(key);
    const inNamespace = sessionsByNamespace.get(namespace);
    inNamespace?.delete(key);
    if (inNamespace?.size === 0) sessionsByNamespace.delete(namespace);
  };
  const stopSession = (key: string, s: GuestSession) => {
    const h = heldOf(key);
    h?.sessions.delete(key);
    forgetSession(key);
    if (h?.dropRecord(key)) records.changed(h.shard);
    void s.stop();
    reconcileSessions(); // the walk forgets the Secret names no session needs any more
  };
  /** One HCP was added, changed or deleted: its session alone starts, syncs or stops. */
  const reconcileSession = (key: string) => {
    if (runnables.stopped) return;
    const h = heldOf(key);
    const s = h?.sessions.get(key);
    const want = wanted(key, hcps.get(key));
    if (want && !s) startSession(key, h!);
    else if (!want && s) stopSession(key, s);
    else s?.poke();
  };
  // A shard acquired or a Namespace's labels changed can concern every HCP; the calls of one turn (a
  // Namespace listing reports each namespace in turn) share one walk (reconcileSessions queues it).
  let reconcileQueued = false;
  /** Walks every HCP: starts the sessions of held shards' HCPs, stops those no longer held or selected. */
  const reconcileAll = () => {
    reconcileQueued = false;
    if (runnables.stopped) return;
    const want = new Set<string>();
    for (const hcp of hcps.list()) {
      const key = hcpKey(hcp);
      if (wanted(key, hcp)) want.add(key);
    }
    for (const [key, s] of sessionEntries()) if (!want.has(key)) stopSession(key, s);
    for (const key of want) {
      const h = heldOf(key)!;
      if (!h.sessions.has(key)) startSession(key, h);
    }
    // The Secret names no session of this replica reads any more are forgotten (their watches stop).
    const names = new Set<string>();
    if (o.guestKubeconfigSecret) names.add(o.guestKubeconfigSecret.name);
    else for (const key of want) { const n = hcps.get(key)?.status?.kubeConfig?.name; if (n) names.add(n); }
    secrets.retain(names);
  };
  const reconcileSessions = () => {
    if (reconcileQueued) return;
    reconcileQueued = true;
    queueMicrotask(reconcileAll);
  };
  // One HCP's event concerns its session alone. A relist reports every HCP again; only a changed one is
  // worth a sync now (sessions resync every minute).
  hcps.addListener(reconcileSession, { changesOnly: true });
  namespaces?.addListener(() => reconcileSessions());

  const manager = new ShardManager({
    kubeConfig: kc, namespace: o.namespace, identity, shards, timing, metrics, logger: log,
    onAcquired: (shard, fence, resumed) => {
      const lapsed = resumed ? held.get(shard) : undefined;
      if (lapsed) {
        // Its sessions kept running; a write the lapsed fence refused was dropped, so they look again.
        if (lapsed.resume(fence)) for (const s of lapsed.sessions.values()) s.resync();
        records.changed(shard);
        return;
      }
      held.set(shard, new HeldShard(shard, fence));
      records.changed(shard); // a new holder writes the shard's record once (its guests' records replace the last holder's)
      reconcileSessions();
    },
    onLost: async (shard) => {
      const h = held.get(shard);
      held.delete(shard);
      for (const key of h?.sessions.keys() ?? []) forgetSession(key);
      await Promise.all([...h?.sessions.values() ?? []].map((s) => s.stop()));
    },
    onLostMembership: (reason) => (o.onLostMembership ?? ((r: string) => log.error('membership lost; the caller did not say what to do', { reason: r })))(reason),
    claimable: () => hcps.hasSynced() && (namespaces?.hasSynced() ?? true),
  });

  let joined = false;
  const serving = await serveProcess(o, {
    kc, registry: metrics, certName: 'featuregates-hosted-metrics', ready: () => joined && hcps.hasSynced() && (namespaces?.hasSynced() ?? true), logger: log,
  });
  log.info('serving', { metrics: serving.metricsAddress, health: serving.healthAddress, identity, namespace: o.namespace, shards });
  runnables.add('serving', serving);
  runnables.add('caches', secrets);
  runnables.add('caches', hcps);
  if (namespaces) runnables.add('caches', namespaces);
  runnables.add('shards', { stop: () => manager.stop() }); // joined below, once the HCPs are listed
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
    sessions: () => sessionEntries().map(([key]) => key).sort(),
    stop: () => runnables.stopAndWait(),
  };
}
