// One guest engaged: the single-cluster operator's own controllers (controllers/) run over this guest's
// caches, as multicluster-runtime engages each cluster on the one controller of each kind: the replica's
// controllers (guest-controllers.ts), the guest's HCP key naming its cluster. Per engagement:
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
// The guest's events wake these controllers through a token bucket per guest in each queue (GUEST_WAKEUPS), so a
// guest streaming changes cannot set the replica's pace. The guest is engaged once every guest cache has listed (the
// manager's "caches synced"); every write passes the shard's fence and is not sent while the guest fails.
import {
  ClusterProfiles,
  FEATURE_GATE_NAME,
  MAX_GUEST_HISTORY,
  clusterDesiredVersion,
  type ClusterVersion,
  type FeatureGate,
  type FeatureGateSpec,
  type FeatureSetRegistry,
  type GateLifecycle,
} from '../api-types/index.js';
import { BucketLimiter, TerminalError, realClock, type Clock, type ControllerSpec, type EventRecorder, type Logger, type ReconcileResult, type ResourceClient, type WatchSource } from '../runtime/index.js';
import { type ReleaseCatalog } from './release-catalog.js';
import {
  CLUSTER_OPERATOR_STATUS_CONTROLLER,
  FEATURE_GATE_CONTROLLER,
  OperatorConditions,
  operatorControllers,
  type OperatorCluster,
  type RunningGatesOutcome,
} from '../controllers/operator-cluster.js';
import { GUEST_VERSION_CONTROLLER, type GuestControllerKind, type GuestControllers } from './guest-controllers.js';
import { guestSpecController } from './guest-spec.js';

/** The controllers GuestVersionController binds to the guest's version. */
const VERSION_BOUND = [FEATURE_GATE_CONTROLLER, CLUSTER_OPERATOR_STATUS_CONTROLLER] as const;
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

/**
 * What an engagement uses of its guest (a GuestConnection is one): the cluster value the operator's controllers read
 * and write (controllers/operator-cluster.ts; its recorder and logger are the session's), whether its caches have
 * listed, and the writer of its FeatureGate spec.
 */
export interface EngagedGuest extends Omit<OperatorCluster, 'events' | 'logger' | 'metrics' | 'featureGate'> {
  /** Resolves when every cache has listed once. */
  readonly whenSynced: Promise<void>;
  readonly featureGate: ResourceClient<FeatureGate>;
}

export interface GuestEngagementDeps {
  guest: EngagedGuest;
  /** The HCP's key: the guest's cluster name on the replica's controllers. */
  hcpKey: string;
  /** The replica's controllers, one per kind. */
  controllers: GuestControllers;
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
  runningGates?: {
    periodMs: number;
    lifecycle: () => GateLifecycle;
    overrides?: ReadonlyMap<string, boolean>;
    onChecked(outcome: RunningGatesOutcome): void;
  };
  /** The clock of its rebinds (default the real one; tests pass a fake, the same as the controllers'). */
  clock?: Clock;
}

/** The guest's caches, writers and access, as the operator's controllers take a cluster (without its recorder and logger). */
function guestCluster(guest: EngagedGuest): Omit<OperatorCluster, 'events' | 'logger'> {
  const { featureGates, clusterVersions, clusterOperators, featureGate, clusterOperator, access } = guest;
  return { featureGates, clusterVersions, clusterOperators, featureGate, clusterOperator, access };
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
  private readonly rebinds: BucketLimiter;
  /** When the rebind waiting for its token may run (this.clock's time), while one waits. */
  private rebindAt: number | undefined;
  /** The kinds this guest is engaged on (from its first listing until stop()). */
  private readonly engaged = new Set<GuestControllerKind>();
  /** The version the version-bound controllers run at, and their registry (read by them at each sync). */
  private bound: { version: string; registry: FeatureSetRegistry } | undefined;
  private stopped = false;
  /**
   * When the first input change not yet carried into the guest's status was observed (the HCP's spec or release,
   * the guest's ClusterVersion or FeatureGate, as their events arrive, before the queues' buckets): the status write
   * that follows reports its delay. A sync that finds the status as desired (the echo of our own write, a change that
   * changes nothing) clears it.
   */
  private changedSince: number | undefined;
  private readonly noteChange = () => {
    this.changedSince ??= Date.now();
  };
  private readonly unsubscribe: (() => void)[];

  constructor(private readonly d: GuestEngagementDeps) {
    const { guest } = d;
    this.clock = d.clock ?? realClock;
    this.rebinds = new BucketLimiter(GUEST_REBINDS.perSecond, GUEST_REBINDS.burst, this.clock);
    // Let go in stop(): the session's HCP source outlives this engagement, which is made again at every new kubeconfig.
    this.unsubscribe = [guest.featureGates, guest.clusterVersions, d.requested].map((source) => source.addListener(this.noteChange));
    const { featureGates, clusterVersions } = guest;
    // Every kind is engaged now; each queues the guest's requests once its caches have listed (guest.whenSynced).
    this.run(
      guestSpecController({
        hcpKey: d.hcpKey,
        requested: d.requested,
        featureGates,
        client: guest.featureGate,
        events: d.events,
        logger: d.logger,
        recheckAfterMs: d.recheckAfterMs,
      }),
    );
    this.run({
      name: GUEST_VERSION_CONTROLLER,
      reconcile: () => this.bindVersion(),
      watches: [{ source: clusterVersions, keys: () => ['version'] }],
      initialKeys: ['version'],
    });
    // The single-cluster operator's controllers over the guest. The version-bound ones (FeatureGateController and
    // ClusterOperatorStatusController) read the bound version at each sync (none bound: they write nothing) and see of
    // ClusterVersion only an accepted one naming that version (the controllers of a newer version are on their way; an
    // older one never writes from the new history).
    const boundClusterVersions = {
      get: (name: string) => {
        const cv = clusterVersions.get(name);
        const a = acceptedGuestVersion(cv);
        return 'version' in a && a.version === this.bound?.version ? cv : undefined;
      },
      addListener: (fn: (name: string) => void) => clusterVersions.addListener(fn),
    };
    const rg = d.runningGates;
    const specs = operatorControllers(
      { ...guestCluster(guest), events: d.events, logger: d.logger },
      {
        release: () => this.bound,
        conditions: this.conditions,
        clusterOperatorName: d.clusterOperatorName,
        namespace: GUEST_CONFIG_NAMESPACE,
        resyncMs: d.recheckAfterMs,
        requested: { addListener: (fn) => d.requested.addListener(fn), featureSet: () => d.requested.spec()?.featureSet },
        onStatusSettled: (wrote) => {
          if (wrote && this.changedSince !== undefined) d.onStatusDelay?.((Date.now() - this.changedSince) / 1000);
          this.changedSince = undefined;
        },
        // Through the guest's own transport (its timeout, its bounds: a /metrics body over 64 MiB or a line over
        // 64 KiB is refused while it streams), at most once a minute.
        ...(rg && rg.periodMs > 0
          ? {
              runningGates: {
                lifecycle: rg.lifecycle,
                periodMs: rg.periodMs,
                minIntervalMs: RUNNING_GATES_MIN_INTERVAL_MS,
                onChecked: rg.onChecked,
                ...(rg.overrides ? { overrides: rg.overrides } : {}),
              },
            }
          : {}),
      },
      boundClusterVersions,
    );
    for (const spec of [specs.featureGate, specs.clusterOperator, specs.upgradeable, specs.runningGates]) if (spec) this.run(spec);
  }

  /** The version the guest's status is kept for now (undefined: its ClusterVersion is not accepted yet). */
  version(): string | undefined {
    return this.bound?.version;
  }

  /** The guest answers again: every controller looks now (what they skipped while it failed; a failing key stays on its backoff). */
  resync(): void {
    for (const kind of this.engaged) this.d.controllers.of(kind).lookAgain(this.d.hcpKey);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const off of this.unsubscribe) off();
    const kinds = [...this.engaged];
    this.engaged.clear();
    await Promise.all(kinds.map((kind) => this.d.controllers.of(kind).disengage(this.d.hcpKey)));
  }

  /**
   * The guest engaged on the replica's controller of the spec's kind (its requests queued once its caches have listed); its backoff there
   * lives as long as the engagement (a guest cycling its version cannot reset it).
   */
  private run(spec: ControllerSpec): void {
    if (this.stopped) return;
    const kind = spec.name as GuestControllerKind;
    this.engaged.add(kind);
    this.d.controllers.of(kind).engage(this.d.hcpKey, {
      ...spec,
      synced: this.d.guest.whenSynced,
      logger: this.d.logger,
      onReconciled: (_key, error) => this.d.onReconciled(spec.name, error),
    });
  }

  /** The version-bound controllers look now (the version they read changed): what they said of the last one no longer holds. */
  private wakeVersionBound(): void {
    for (const name of VERSION_BOUND) {
      this.d.onStopped(name);
      // A failing key stays on its backoff, as at resync().
      if (this.engaged.has(name)) this.d.controllers.of(name).lookAgain(this.d.hcpKey);
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
      throw new TerminalError(`guest version ${version}: ${(e as Error).message}`, {
        reason: 'MissingRelease',
        recheckAfterMs: this.d.recheckAfterMs,
      });
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
