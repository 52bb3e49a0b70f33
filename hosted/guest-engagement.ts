// One guest engaged: the single-cluster operator's own controllers (controllers/) run over this guest's
// caches, as multicluster-runtime engages each component per cluster. Per engagement:
//  - GuestFeatureGateSpecController (guest-spec.ts): guest spec = the HCP's;
//  - GuestVersionController: reads the guest's ClusterVersion and binds the version-bound controllers to the
//    version it runs — FeatureGateController (status for every version in its history) and
//    ClusterOperatorStatusController (the guest ClusterOperator, watched by name) — as an upgrade replaces the
//    single-cluster operator's pod with one of the new version (at most 3 rebinds at once, then one per 5 s:
//    GUEST_REBINDS). Those controllers live as long as the engagement (multicluster-runtime's shape) and read the
//    bound version and its registry at each sync; a rebind changes what they read and wakes them. A history longer
//    than the cluster-version operator keeps, no version, or a release the catalog lacks: nothing is bound (those
//    controllers write nothing from input that is not accepted) and the reason is a TerminalError;
//  - FeatureUpgradeableController with the HCP's feature set as `requested` (a NoUpgrade choice there blocks
//    even while the guest refuses it);
//  - RunningGatesController: the guest kube-apiserver's running gates against its FeatureGate status.
// The guest's events reach these controllers through one token bucket (GUEST_WAKEUPS), so a guest streaming
// changes cannot set the replica's pace. The controllers start once every guest cache has listed (the
// manager's "caches synced"); every write passes the shard's fence and is not sent while the guest fails.
import {
  ClusterProfiles, FEATURE_GATE_NAME, MAX_GUEST_HISTORY, clusterDesiredVersion, type ClusterOperator, type ClusterVersion, type FeatureGate, type FeatureGateSpec, type FeatureSetRegistry,
  type GateLifecycle,
} from '../api-types/index.js';
import {
  BucketLimiter, Controller, type FairTurns, ItemExponentialLimiter, PacedWatch, TerminalError, realClock, type ClusterAccess, type Clock, type ControllerSpec, type EventRecorder,
  type Logger, type ReconcileResult, type Reflector, type ReleaseCatalog, type ResourceClient, type WatchSource,
} from '../runtime/index.js';
import { CLUSTER_OPERATOR_STATUS_CONTROLLER, clusterOperatorStatusController } from '../controllers/cluster-operator-status.js';
import { FEATURE_GATE_CONTROLLER, featureGateStatusController } from '../controllers/feature-gate-status.js';
import { OperatorConditions } from '../controllers/operator-conditions.js';
import { runningGatesController, type RunningGatesOutcome } from '../controllers/running-gates.js';
import { upgradeableController } from '../controllers/upgradeable.js';
import { guestSpecController } from './guest-spec.js';

export const GUEST_VERSION_CONTROLLER = 'GuestVersionController';
/** The controllers GuestVersionController binds to the guest's version. */
const VERSION_BOUND = [FEATURE_GATE_CONTROLLER, CLUSTER_OPERATOR_STATUS_CONTROLLER];
/** How often a guest's own events may wake its controllers: a token bucket per guest (a change, then its status write's echo, fit in the burst). */
export const GUEST_WAKEUPS = { perSecond: 2, burst: 10 };
/**
 * How the engaged guests of one replica may wake their controllers, all together (the coordinator's FairTurns): a
 * change every guest sees at once — a fleet-wide z-version, or a fresh replica taking over its shards — is not worked
 * through in one turn of the event loop (a stall long enough, on a shared machine, for the replica to miss its Lease
 * renewals: docs/benchmarks.md).
 * At most `maxInFlight` guests' wake-ups are being worked at once (each holds its place until its controllers' queues
 * are empty, `holdMs` at most: a guest may take a write and never answer), so no more work waits in the event loop
 * than 32 guests' worth however slow the machine; the bucket bounds the CPU that wake-ups whose work is cheap can take.
 * (A fixed pace alone set how fast a replica took over its guests even on an idle core.)
 */
export const REPLICA_WAKEUPS = { perSecond: 100, burst: 10, maxInFlight: 32, holdMs: 2_000 };
/**
 * How often the version-bound controllers may be bound to a new version: an upgrade is one rebind (a rollback one
 * more), at once; a guest whose desired version keeps changing is followed at one rebind per 5 s, its controllers
 * of the last version bound writing nothing meanwhile. A rebind swaps what the long-lived controllers read and wakes
 * them (it once rebuilt two controllers, when one per 30 s was the pace): the pace bounds the status writes a cycling
 * guest sets off, and an honest guest upgraded every 20 s (the hostile-tenants chaos scenario) is never held back.
 */
export const GUEST_REBINDS = { perSecond: 1 / 5, burst: 3 };
/** The least time between two running-gate checks of one guest. */
export const RUNNING_GATES_MIN_INTERVAL_MS = 60_000;
/** relatedObjects namespace of the guest ClusterOperator (the namespace a guest has for cluster config). */
const GUEST_CONFIG_NAMESPACE = 'openshift-config';

/** One watched object kind of the guest: its cache, and its changes. */
type GuestCache<T extends { metadata: { name?: string } }> = Pick<Reflector<T>, 'get' | 'addListener'>;

/** What an engagement uses of its guest (a GuestConnection is one): its caches, its two writers, its access. */
export interface EngagedGuest {
  readonly featureGates: GuestCache<FeatureGate>;
  readonly clusterVersions: GuestCache<ClusterVersion>;
  readonly clusterOperators: GuestCache<ClusterOperator>;
  /** Resolves when every cache has listed once. */
  readonly whenSynced: Promise<void>;
  readonly featureGate: ResourceClient<FeatureGate>;
  readonly clusterOperator: ResourceClient<ClusterOperator>;
  readonly access: ClusterAccess;
}

export interface GuestEngagementDeps {
  guest: EngagedGuest;
  hcpKey: string;
  catalog: Pick<ReleaseCatalog, 'registry'>;
  /** The spec the HCP asks for, and when it changes. */
  requested: WatchSource & { spec(): FeatureGateSpec | undefined };
  clusterOperatorName: string;
  /** The session's recorder (Events in the HCP namespace). */
  events: EventRecorder;
  logger: Logger;
  /** How soon its controllers look again when nothing told them to (their resync), and a refused input is rechecked. */
  recheckAfterMs: number;
  /** How each controller's reconcile ended (undefined: it succeeded). */
  onReconciled(controller: string, error: unknown): void;
  /** What a controller last said no longer holds (it stopped, or the version it keeps changed). */
  onStopped(controller: string): void;
  /** A guest status write carried input changes the first of which was observed this many seconds before. */
  onStatusDelay?(seconds: number): void;
  /** The guest kube-apiserver's running gates against its FeatureGate status (no check when absent or period 0). */
  runningGates?: { periodMs: number; lifecycle: () => GateLifecycle; overrides?: ReadonlyMap<string, boolean>; onChecked(outcome: RunningGatesOutcome): void };
  /** The clock of its pacing, rebinds and controllers' waits (default the real one; tests pass a fake). */
  clock?: Clock;
  /**
   * The replica's turns for every engaged guest's wake-ups, after this guest's own bucket (GUEST_WAKEUPS): a change
   * every guest sees at once is worked through at the replica's pace, not in one turn of the event loop, and a guest
   * whose changes never stop waits its turn like any other.
   */
  replicaWakeups?: FairTurns;
}

/** The guest's version when its ClusterVersion is acceptable input, else the TerminalError that says why not. */
export function acceptedGuestVersion(cv: ClusterVersion | undefined): { version: string } | { problem: TerminalError } {
  // The cache keeps MAX_GUEST_HISTORY + 1 entries at most (GuestClusterVersionResource): enough to tell there are too many.
  if ((cv?.status?.history?.length ?? 0) > MAX_GUEST_HISTORY) {
    return { problem: new TerminalError(`the guest ClusterVersion/version has more than ${MAX_GUEST_HISTORY} history entries, the most the ` +
      `cluster-version operator keeps; its FeatureGate status is not written until it has at most ${MAX_GUEST_HISTORY}`, { reason: 'GuestInputRejected' }) };
  }
  const version = clusterDesiredVersion(cv);
  if (!version) return { problem: new TerminalError('the guest ClusterVersion/version has no desired version or history yet', { reason: 'MissingVersion' }) };
  return { version };
}

export class GuestEngagement {
  /** The operator conditions of this guest (its ClusterOperator reports them). */
  readonly conditions = OperatorConditions.atStart();
  private readonly clock: Clock;
  private readonly pacer: PacedWatch;
  private readonly rebinds: BucketLimiter;
  /** When the rebind waiting for its token may run (this.clock's time), while one waits. */
  private rebindAt: number | undefined;
  private readonly controllers = new Map<string, Controller>();
  /** Each controller's keys (its initial keys): what resync() looks at again. */
  private readonly keys = new Map<string, string[]>();
  /** The version the version-bound controllers run at, and their registry (read by them at each sync). */
  private bound: { version: string; registry: FeatureSetRegistry } | undefined;
  private stopped = false;
  /**
   * When the first input change not yet carried into the guest's status was observed (the HCP's spec or release,
   * the guest's ClusterVersion or FeatureGate, as their events arrive, before the pacer): the status write that
   * follows reports its delay. A sync that finds the status as desired (the echo of our own write, a change that
   * changes nothing) clears it.
   */
  private changedSince: number | undefined;
  private readonly noteChange = () => { this.changedSince ??= Date.now(); };
  private readonly unsubscribe: (() => void)[];

  /**
   * The guest's caches as its controllers see them: each reflector's events through the one pacer, once — every
   * controller that watches a reflector listens to the same paced source, so one event is one token.
   */
  private readonly views: {
    featureGates: GuestCache<FeatureGate>;
    clusterVersions: GuestCache<ClusterVersion>;
    clusterOperators: GuestCache<ClusterOperator>;
  };

  constructor(private readonly d: GuestEngagementDeps) {
    const { guest } = d;
    this.clock = d.clock ?? realClock;
    // A wake-up holds its place among the replica's turns until every controller it woke has worked its queue through.
    const settled = () => Promise.all([...this.controllers.values()].map((c) => c.idle()));
    this.pacer = new PacedWatch(new BucketLimiter(GUEST_WAKEUPS.perSecond, GUEST_WAKEUPS.burst, this.clock), this.clock, d.replicaWakeups, settled);
    this.rebinds = new BucketLimiter(GUEST_REBINDS.perSecond, GUEST_REBINDS.burst, this.clock);
    const view = <T extends { metadata: { name?: string } }>(r: GuestCache<T>) => {
      const paced = this.pacer.source(r);
      return { get: (name: string) => r.get(name), addListener: (fn: (name: string) => void) => paced.addListener(fn) };
    };
    this.views = { featureGates: view(guest.featureGates), clusterVersions: view(guest.clusterVersions), clusterOperators: view(guest.clusterOperators) };
    // Let go in stop(): the session's HCP source outlives this engagement, which is made again at every new kubeconfig.
    this.unsubscribe = [guest.featureGates, guest.clusterVersions, d.requested].map((source) => source.addListener(this.noteChange));
    const { featureGates, clusterVersions } = this.views;
    void guest.whenSynced.then(() => {
      if (this.stopped) return;
      this.run(guestSpecController({
        hcpKey: d.hcpKey, requested: d.requested, featureGates, client: guest.featureGate, events: d.events, logger: d.logger,
        recheckAfterMs: d.recheckAfterMs,
      }));
      this.runVersionBound();
      this.run({
        name: GUEST_VERSION_CONTROLLER, reconcile: () => this.bindVersion(),
        watches: [{ source: clusterVersions, keys: () => ['version'] }], initialKeys: ['version'],
      });
      this.run(upgradeableController({
        featureGates, conditions: this.conditions,
        requested: { addListener: (fn) => d.requested.addListener(fn), featureSet: () => d.requested.spec()?.featureSet },
      }));
      const rg = d.runningGates;
      if (rg && rg.periodMs > 0) {
        // Through the guest's own transport (its timeout, its bounds: a /metrics body over 64 MiB or a line over
        // 64 KiB is refused while it streams), at most once a minute.
        this.run(runningGatesController({
          kubeConfig: guest.access, featureGates, clusterVersions, lifecycle: rg.lifecycle, events: d.events, logger: d.logger,
          periodMs: rg.periodMs, minIntervalMs: RUNNING_GATES_MIN_INTERVAL_MS, onChecked: rg.onChecked, ...(rg.overrides ? { overrides: rg.overrides } : {}),
        }));
      }
    });
  }

  /** The version the guest's status is kept for now (undefined: its ClusterVersion is not accepted yet). */
  version(): string | undefined {
    return this.bound?.version;
  }

  /** The guest answers again: every controller looks now (what they skipped while it failed). */
  resync(): void {
    for (const [name, c] of this.controllers) {
      // A key that is failing stays on its backoff (a guest flapping between failing and answering cannot reset it).
      for (const k of this.keys.get(name) ?? []) if (c.queue.numRequeues(k) > 0) c.queue.addRateLimited(k); else c.enqueue(k);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const off of this.unsubscribe) off();
    this.pacer.stop();
    const all = [...this.controllers.values()];
    this.controllers.clear();
    await Promise.all(all.map((c) => c.stop()));
  }

  private run(spec: ControllerSpec): void {
    if (this.stopped) return;
    // Each controller lives as long as the engagement, its backoff with it (a guest cycling its version cannot reset it).
    const c = new Controller(spec, {
      logger: this.d.logger, rateLimiter: new ItemExponentialLimiter(5, 5 * 60_000), clock: this.clock,
      onReconciled: (_key, error) => this.d.onReconciled(spec.name, error),
    });
    this.keys.set(spec.name, spec.initialKeys ?? []);
    this.controllers.set(spec.name, c);
    c.start();
  }

  /**
   * FeatureGateController and ClusterOperatorStatusController, once for the engagement: each reads the bound version
   * at its sync (none bound: it writes nothing), and sees of ClusterVersion only an accepted one naming that version
   * (the controllers of a newer version are on their way; an older one never writes from the new history).
   */
  private runVersionBound(): void {
    const { guest } = this.d;
    const { featureGates, clusterOperators } = this.views;
    const clusterVersions = {
      get: (name: string) => {
        const cv = this.views.clusterVersions.get(name);
        const a = acceptedGuestVersion(cv);
        return 'version' in a && a.version === this.bound?.version ? cv : undefined;
      },
      addListener: this.views.clusterVersions.addListener,
    };
    this.run(featureGateStatusController({
      release: () => this.bound, featureGates, clusterVersions, client: guest.featureGate, conditions: this.conditions,
      events: this.d.events, logger: this.d.logger, resyncMs: this.d.recheckAfterMs,
      onSettled: (wrote) => {
        if (wrote && this.changedSince !== undefined) this.d.onStatusDelay?.((Date.now() - this.changedSince) / 1000);
        this.changedSince = undefined;
      },
    }));
    this.run(clusterOperatorStatusController({
      name: this.d.clusterOperatorName, operatorVersion: () => this.bound?.version, namespace: GUEST_CONFIG_NAMESPACE, clusterOperators, featureGates,
      client: guest.clusterOperator, conditions: this.conditions, resyncMs: this.d.recheckAfterMs,
    }));
  }

  /** The version-bound controllers look now (the version they read changed): what they said of the last one no longer holds. */
  private wakeVersionBound(): void {
    for (const name of VERSION_BOUND) {
      this.d.onStopped(name);
      const c = this.controllers.get(name);
      // A failing key stays on its backoff, as at resync().
      for (const k of this.keys.get(name) ?? []) if (c && c.queue.numRequeues(k) > 0) c.queue.addRateLimited(k); else c?.enqueue(k);
    }
  }

  /** Nothing bound: the version-bound controllers write nothing, and what they last said no longer holds. */
  private unbind(): void {
    if (!this.bound) return;
    this.bound = undefined;
    for (const name of VERSION_BOUND) this.d.onStopped(name);
  }

  /** GuestVersionController's reconcile: the version-bound controllers run at the guest's accepted version. */
  private async bindVersion(): Promise<ReconcileResult> {
    const { guest, catalog } = this.d;
    const accepted = acceptedGuestVersion(guest.clusterVersions.get('version'));
    if ('problem' in accepted) {
      this.unbind();
      throw new TerminalError(accepted.problem.message, { ...accepted.problem.options, recheckAfterMs: this.d.recheckAfterMs });
    }
    const { version } = accepted;
    let registry: FeatureSetRegistry;
    try {
      registry = catalog.registry(version, ClusterProfiles.IBMCloudManaged);
    } catch (e) {
      this.unbind();
      throw new TerminalError(`guest version ${version}: ${(e as Error).message}`, { reason: 'MissingRelease', recheckAfterMs: this.d.recheckAfterMs });
    }
    if (this.bound?.version === version && this.bound.registry === registry) {
      this.rebindAt = undefined;
      return {};
    }
    const now = this.clock.now();
    this.rebindAt ??= now + this.rebinds.when(); // one token per rebind, taken when it is first due
    if (now < this.rebindAt) return { requeueAfterMs: this.rebindAt - now };
    this.rebindAt = undefined;
    if (this.stopped) return {};
    this.bound = { version, registry };
    this.wakeVersionBound();
    this.d.logger.info('guest controllers bound to its version', { version, featureGate: FEATURE_GATE_NAME });
    return {};
  }
}
