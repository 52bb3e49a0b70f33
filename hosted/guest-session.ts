// One hosted control plane while this replica owns its shard: its HCP key engaged as a cluster on the replica's
// controllers (guest-controllers.ts: one per kind, backoff per guest and key, so a failing guest backs off alone),
// and what they say about it:
//  - GuestConnectionController, the guest provider (guest-provider.ts): the HCP's kubeconfig Secret → a guest
//    connection and its GuestEngagement (guest-engagement.ts: the single-cluster operator's own controllers over the
//    guest's caches, made here so that what they say reaches this session's report);
//  - FeatureGateConfigMapController (feature-gate-configmap.ts): the management-side `feature-gate` ConfigMap.
// Every write passes the shard's fence (judged by the transport before each attempt). How each reconcile of these
// controllers ended makes the HCP's status line, its metrics and its Events (this file's report, over the pure
// api-types/hosted-guest-report.ts): a TerminalError (runtime/controller/controller.ts) is waited on, not retried — missing or
// bad input and a guest that does not answer are a Warning when they start, then every 10 minutes while they last;
// a first read not answered yet is no Warning at all — and any other error is a Warning each time the controller's
// backoff retries it.
import type { Registry } from 'prom-client';
import {
  FEATURE_GATE_NAME,
  HCP_API_VERSION,
  featureSetName,
  boundedText,
  guestRecord,
  guestSyncState,
  hcpReleaseVersion,
  hostedFeatureGateSpec,
  nextProblem,
  orderedProblems,
  recordIsNews,
  type FeatureGateSpec,
  type GuestProblem,
  type HostedControlPlane,
  type HostedGuestRecord,
  type GateLifecycle,
} from '../api-types/index.js';
import { ConfigMapResource, ResourceClient, TerminalError, apiErrorMessage, createEventRecorder, errorCause, isConflict, silentLogger, type ClusterAccess, type ClusterWork, type ClosableEventRecorder, type InvolvedObject, type Logger, type ReconcileResult, type WatchSource } from '../runtime/index.js';
import { type FairTurns } from './fair-turns.js';
import { type ReleaseCatalog } from './release-catalog.js';
import { type WritePacer } from './write-pacer.js';
import type { GuestConnection, GuestTuning } from './guest-connection.js';
import { CLUSTER_OPERATOR_STATUS_CONTROLLER, FEATURE_GATE_CONTROLLER, RUNNING_GATES_CONTROLLER, UPGRADEABLE_CONTROLLER } from '../controllers/operator-cluster.js';
import { FEATURE_GATE_CONFIGMAP_CONTROLLER, FeatureGateConfigMapSync } from './feature-gate-configmap.js';
import { GUEST_CONNECTION_CONTROLLER, GUEST_VERSION_CONTROLLER, type GuestControllerKind, type GuestControllers } from './guest-controllers.js';
import { GuestEngagement, acceptedGuestVersion } from './guest-engagement.js';
import { GuestProvider } from './guest-provider.js';
import { GUEST_SPEC_CONTROLLER } from './guest-spec.js';
import type { GuestSecrets } from './guest-secrets.js';
import { HcpGatesRefusal } from './hcp-gates-refusal.js';
import { SYNC_FAILURE_REASONS, type HostedMetrics, type SyncFailureReason } from './metrics.js';

/**
 * A problem that waits on what failed is written as a Warning when it starts or its message changes, and again
 * this often while it lasts — well within an Event's life in the API server (1 h by default), and not once per
 * resync: 480 unreachable guests made ~8 Event writes a second that way.
 */
export const NOTIFIED_REPEAT_MS = 10 * 60_000;
/**
 * The session's own controllers (the guest connection, the management ConfigMap) wait on events only: the HCP and
 * its Secret poke the session, the guest's reflectors say when it fails, answers again or lists first. Their
 * look without an event only repeats a problem's Warning. (A minute's resync of each of 480 unreachable guests was
 * most of an idle replica's CPU: the major GCs of what each look left behind.) The engaged controllers look every
 * GUEST_RESYNC_MS.
 */
const EVENTED_RECHECK_MS = NOTIFIED_REPEAT_MS;

export interface GuestSessionDeps {
  key: string;
  shard: number;
  identity: string;
  fence: () => void;
  hcp: () => HostedControlPlane | undefined;
  management: ClusterAccess;
  /** The guest kubeconfig Secrets (shared by every session of the replica). */
  secrets: GuestSecrets;
  catalog: ReleaseCatalog;
  /** Use this Secret name and key instead of the HCP's status.kubeConfig. */
  secretOverride?: { name: string; key?: string };
  clusterOperatorName: string;
  tuning: GuestTuning;
  record: (r: HostedGuestRecord) => void;
  metrics: HostedMetrics;
  registry?: Registry;
  logger?: Logger;
  /** Kubernetes' gate lifecycle for the running-gate checks (read once per replica, at the first check). */
  gateLifecycle: () => GateLifecycle;
  /** The replica's pace of management writes, shared by every session (its Events and feature-gate ConfigMap wait their turn). */
  managementWrites?: WritePacer;
  /** The replica's controllers, one per kind, shared by every session. */
  controllers: GuestControllers;
  /** The replica's places for guests in their first listing (FIRST_LISTINGS), shared by every session. */
  firstListings?: FairTurns;
}

/**
 * How often an engaged guest's controllers look again when nothing told them to. Not the single-cluster operator's
 * minute: everything they read is watched (the watches resume from their last resourceVersion; a relist every hour is
 * the net under them). At 600 live guests on one replica the minute's look was ~1,200 reconciles a minute whose
 * objects lived a minute, were promoted and then collected by major GCs over the whole heap.
 */
export const GUEST_RESYNC_MS = 10 * 60_000;

/** How often each guest's running gates are checked besides on a status change (cost: ~24 ms of CPU per 1.5 MB /metrics). */
export const HOSTED_RUNNING_GATES_PERIOD_MS = 60 * 60_000;
/**
 * What HyperShift's hosted control-plane components run other than the FeatureGate says, on purpose (OCPBUGS-45600,
 * support/config/featuregates.go): read as `overridden` in every guest unless `--running-gates-override` says otherwise.
 */
export const HOSTED_RUNNING_GATES_OVERRIDES = 'OpenShiftPodSecurityAdmission=false';

/** The order problems are told in (the first one's reason is the status line's and the metric's). */
const PROBLEM_ORDER = [GUEST_CONNECTION_CONTROLLER, GUEST_VERSION_CONTROLLER, GUEST_SPEC_CONTROLLER, FEATURE_GATE_CONTROLLER,
  CLUSTER_OPERATOR_STATUS_CONTROLLER, UPGRADEABLE_CONTROLLER, FEATURE_GATE_CONFIGMAP_CONTROLLER, RUNNING_GATES_CONTROLLER];
/** The engagement's controllers that must have run once before the status line says the guest is synced. */
const ENGAGED_CONTROLLERS = [GUEST_SPEC_CONTROLLER, FEATURE_GATE_CONTROLLER, CLUSTER_OPERATOR_STATUS_CONTROLLER];
/** A synced guest's record says it is still synced this often (its lastSync moves on). */
const LAST_SYNC_REFRESH_MS = 5 * 60_000;

function reasonOf(reason: string | undefined): SyncFailureReason {
  return (SYNC_FAILURE_REASONS as readonly string[]).includes(reason ?? '') ? reason as SyncFailureReason : 'WriteFailed';
}

export class GuestSession {
  private readonly log: Logger;
  private readonly events: ClosableEventRecorder;
  /** The HCP as a watch source: its changes (poke) reach every controller of the session. */
  private readonly hcpListeners = new Set<(name: string) => void>();
  private readonly hcpSource: WatchSource = {
    addListener: (fn) => {
      this.hcpListeners.add(fn);
      return () => this.hcpListeners.delete(fn);
    },
  };
  /** What the session engages on the replica's controllers of its own two kinds (at start()). */
  private readonly work: [GuestControllerKind, ClusterWork][];
  private readonly provider: GuestProvider;
  private readonly refusal: HcpGatesRefusal;
  private readonly problems = new Map<string, GuestProblem>();
  private readonly stopping = new AbortController();
  /** Which controllers of the engagement have reconciled at least once (the status line says "synced" only after all). */
  private settled = new Set<string>();
  private last: HostedGuestRecord | undefined;
  /** The last running-gate check's verdict for the record (undefined: not checked yet). */
  private runningGates: string | undefined;
  private readonly namespace: string;
  private readonly name: string;
  /** The HCP as Events name it. */
  private readonly involved: InvolvedObject;

  constructor(private readonly d: GuestSessionDeps) {
    [this.namespace, this.name] = d.key.split('/') as [string, string];
    this.log = (d.logger ?? silentLogger).with({ hcp: d.key, shard: d.shard });
    const uid = d.hcp()?.metadata.uid;
    this.involved = { apiVersion: HCP_API_VERSION, kind: 'HostedControlPlane', name: this.name, namespace: this.namespace, ...(uid ? { uid } : {}) };
    this.events = createEventRecorder(d.management, {
      namespace: this.namespace,
      component: 'featuregate-coordinator',
      logger: this.log,
      fence: d.fence,
      regarding: this.involved,
      ...(d.managementWrites ? { pacer: d.managementWrites } : {}),
    });
    this.refusal = new HcpGatesRefusal(d.key, d.catalog, d.tuning.kubernetesVersions);
    this.provider = new GuestProvider({
      key: d.key,
      identity: d.identity,
      fence: d.fence,
      hcp: d.hcp,
      secrets: d.secrets,
      ...(d.secretOverride ? { secretOverride: d.secretOverride } : {}),
      tuning: d.tuning,
      clusterOperatorName: d.clusterOperatorName,
      ...(d.registry ? { registry: d.registry } : {}),
      log: this.log,
      ...(d.firstListings ? { firstListings: d.firstListings } : {}),
      stopping: this.stopping.signal,
      waitingRecheckMs: EVENTED_RECHECK_MS,
      enqueue: () => d.controllers.of(GUEST_CONNECTION_CONTROLLER).enqueue(d.key, d.key),
      engage: (guest) => this.engage(guest),
      onDisengaged: () => {
        // What the old engagement's controllers said (until they stopped) no longer holds.
        for (const name of this.settled) this.problems.delete(name);
        this.settled = new Set();
      },
    });
    const configMap = new FeatureGateConfigMapSync({
      key: d.key,
      hcp: d.hcp,
      catalog: d.catalog,
      refusal: this.refusal,
      waitingRecheckMs: EVENTED_RECHECK_MS,
      log: this.log,
      configMaps: new ResourceClient(d.management, ConfigMapResource, d.registry, {
        namespace: this.namespace,
        fence: d.fence,
        signal: this.stopping.signal,
      }),
      ...(d.tuning.resyncMs !== undefined ? { resyncMs: d.tuning.resyncMs } : {}),
      ...(d.managementWrites ? { pacer: d.managementWrites } : {}),
      signal: this.stopping.signal,
    });
    const onHcp = [{ source: this.hcpSource, keys: () => [d.key] }];
    const engaged = (kind: GuestControllerKind, reconcile: () => Promise<ReconcileResult>): [GuestControllerKind, ClusterWork] => [
      kind,
      {
        reconcile,
        watches: onHcp,
        initialKeys: [d.key],
        logger: this.log,
        onReconciled: (_key, error) => this.reconciled(kind, error),
      },
    ];
    this.work = [
      engaged(GUEST_CONNECTION_CONTROLLER, () => this.provider.reconcile()),
      engaged(FEATURE_GATE_CONFIGMAP_CONTROLLER, () => configMap.reconcile()),
    ];
  }

  start(): void {
    for (const [kind, work] of this.work) this.d.controllers.of(kind).engage(this.d.key, work);
  }

  /** What the guest costs the replica for its memory budget: whether it is failing, the response bytes its connection read. */
  cost(): { failing: boolean; bytesRead: number } {
    return { failing: this.last?.lastError !== undefined, bytesRead: this.provider.guest?.bytesRead() ?? 0 };
  }

  /** The record the session last said. */
  lastRecord = (): HostedGuestRecord | undefined => this.last;

  /**
   * Something this guest depends on changed (its HCP, its Secret): every controller that reads it looks now, and a failing guest is tried
   * again now.
   */
  poke(): void {
    const guest = this.provider.guest;
    if (guest?.failing()) guest.retryNow();
    for (const fn of [...this.hcpListeners]) fn(this.d.key);
  }

  /**
   * A write of this session was refused by the shard's fence and dropped, and the shard is held again (it had lapsed):
   * every controller looks again — the engagement's version-bound ones too, which do not read the HCP (poke() does not
   * reach them: in run 2010i 16 guests kept a status refused in a lapse until their 10-minute resync).
   */
  resync(): void {
    this.poke();
    this.provider.engagement?.resync();
  }

  async stop(): Promise<void> {
    // Its controllers let go of it first (at once: what they have in flight ends as stopped, neither logged as an
    // error nor retried), then its requests are aborted: a write waiting its turn at the management pace ends now.
    const disengaged = [
      ...this.work.map(([kind]) => this.d.controllers.of(kind).disengage(this.d.key)),
      this.provider.disengage(), // its engagement's controllers the same way, then the guest requests in flight aborted
    ];
    this.stopping.abort(new Error(`session ${this.d.key} stopped`));
    await Promise.all(disengaged);
    // Not flush(): its Events wait their turn at the replica's management pace, and hundreds of sessions stop at
    // once (a SIGTERM, a shard handed back); the ones not yet sent are dropped.
    await this.events.close();
    this.d.metrics.forget(this.namespace, this.name);
  }

  /**
   * The spec the HCP asks for, as a watch source of the engagement — unless its control plane would refuse to start
   * with the gates it resolves to: then the last spec that passed (none yet: nothing is pushed to the guest), as the
   * management ConfigMap stays on its last good set (its controller reports why).
   */
  private readonly requested = {
    spec: (): FeatureGateSpec | undefined => {
      const hcp = this.d.hcp();
      if (!hcp) return undefined;
      const spec = hostedFeatureGateSpec(hcp);
      const release = hcpReleaseVersion(hcp)?.version;
      if (release && this.refusal.of(spec, release)) return this.lastStartingSpec;
      this.lastStartingSpec = spec;
      return spec;
    },
    addListener: (fn: (name: string) => void) => this.hcpSource.addListener(fn),
  };
  /** The last HCP spec whose gates its control plane starts with (what the guest was last given). */
  private lastStartingSpec: FeatureGateSpec | undefined;

  /** The engagement of a new guest connection: the operator's controllers over its caches, reporting to this session. */
  private engage(guest: GuestConnection): GuestEngagement {
    const d = this.d;
    return new GuestEngagement({
      guest,
      hcpKey: d.key,
      controllers: d.controllers,
      catalog: d.catalog,
      requested: this.requested,
      clusterOperatorName: d.clusterOperatorName,
      events: this.events,
      logger: this.log,
      recheckAfterMs: d.tuning.resyncMs ?? GUEST_RESYNC_MS,
      onReconciled: (name, error) => {
        this.settled.add(name);
        this.reconciled(name, error);
      },
      onStopped: (name) => {
        this.settled.delete(name);
        this.problems.delete(name);
        this.report();
      },
      onStatusDelay: (seconds) => d.metrics.statusDelay(seconds),
      runningGates: {
        periodMs: d.tuning.runningGatesPeriodMs ?? HOSTED_RUNNING_GATES_PERIOD_MS,
        lifecycle: d.gateLifecycle,
        ...(d.tuning.runningGatesOverrides ? { overrides: d.tuning.runningGatesOverrides } : {}),
        onChecked: (o) => {
          // The count first: the names (the guest's own, up to its bounds) may be cut, the count never is.
          this.runningGates = boundedText(
            'error' in o
              ? `unreadable: ${o.error}`
              : o.mismatches.length
                ? `mismatch (${o.mismatches.length}): ${o.mismatches.join(', ')}`
                : 'match',
          );
          d.metrics.runningGates(this.namespace, this.name, 'error' in o ? undefined : o.mismatches.length);
          this.report();
        },
      },
    });
  }

  /** One controller of the session finished a reconcile: its problem (or none) is noted, Warned as its follow-up says, and reported. */
  private reconciled(controller: string, error: unknown): void {
    if (this.stopping.signal.aborted) return;
    if (error === undefined) {
      this.problems.delete(controller);
    } else {
      const { problem, warn } = nextProblem(
        this.problems.get(controller),
        this.problemOf(controller, error),
        Date.now(),
        NOTIFIED_REPEAT_MS,
      );
      if (warn) this.events.event(this.involved, 'Warning', `FeatureGates${problem.reason}`, problem.message);
      this.problems.set(controller, problem);
    }
    this.report();
  }

  private problemOf(controller: string, error: unknown): GuestProblem & { reason: SyncFailureReason } {
    const terminal = errorCause(error, TerminalError);
    if (terminal) {
      return {
        reason: reasonOf(terminal.options.reason),
        message: terminal.message,
        followUp: terminal.options.pending ? 'pending' : 'notified',
      };
    }
    if (isConflict(error)) return { reason: 'WriteFailed', message: 'the guest object changed while writing; retrying', followUp: 'retry' };
    const guest = this.provider.guest;
    const where = controller === FEATURE_GATE_CONFIGMAP_CONTROLLER || !guest ? '' : `guest ${guest.server}: `;
    return { reason: 'WriteFailed', message: `${where}${apiErrorMessage(error)}`, followUp: 'retry' };
  }

  /** The status line and metrics from what every controller last said (a record only when it says something new). */
  private report(): void {
    const hcp = this.d.hcp();
    if (!hcp) return;
    const problems = orderedProblems(this.problems, PROBLEM_ORDER);
    // Engaged: its version bound, the guest answering, and every one of its controllers has run at least once.
    const connected = this.provider.guest;
    const engaged =
      this.provider.engagement?.version() !== undefined &&
      connected?.healthy() === true &&
      ENGAGED_CONTROLLERS.every((c) => this.settled.has(c));
    const state = guestSyncState(problems, engaged);
    if (!state) return; // still starting: nothing to say yet
    this.d.metrics.synced(this.namespace, this.name, state.ok, state.reason === undefined ? undefined : reasonOf(state.reason));
    const guest = connected?.synced() ? connected : undefined;
    const fg = guest?.featureGates.get(FEATURE_GATE_NAME);
    const up = guest?.clusterOperators.get(this.d.clusterOperatorName)?.status?.conditions?.find((c) => c.type === 'Upgradeable');
    const accepted = guest ? acceptedGuestVersion(guest.clusterVersions.get('version')) : undefined;
    const version = (accepted && 'version' in accepted ? accepted.version : undefined) ?? hcpReleaseVersion(hcp)?.version;
    const specFeatureSet = hostedFeatureGateSpec(hcp).featureSet ?? '';
    const featureSet = featureSetName(specFeatureSet);
    this.d.metrics.described(this.namespace, this.name, specFeatureSet, up?.status ?? 'Unknown');
    const r = guestRecord(
      {
        hcp: this.d.key,
        shard: this.d.shard,
        owner: this.d.identity,
        ...(version ? { desiredVersion: version } : {}),
        featureSet,
        versions: fg?.status?.featureGates.map((e) => e.version) ?? [],
        ...(up ? { upgradeable: { status: up.status, ...(up.reason !== undefined ? { reason: up.reason } : {}) } } : {}),
        ...(this.runningGates ? { runningGates: this.runningGates } : {}),
      },
      problems,
      state.ok,
      new Date(),
      this.last,
    );
    if (!recordIsNews(this.last, r, LAST_SYNC_REFRESH_MS)) return;
    this.last = r;
    this.d.record(r);
  }
}
