// One hosted control plane while this replica owns its shard. Two small controllers of its own, each with its
// own queue and backoff (a failing guest backs off alone), and the guest's engagement:
//  - GuestConnectionController (the guest provider): the HCP's kubeconfig Secret (from the replica's watch of
//    that Secret name, guest-secrets.ts) → a GuestConnection (the kubeconfig is untrusted data,
//    guest-connection.ts) and its GuestEngagement (guest-engagement.ts: the single-cluster operator's own
//    controllers over that guest's caches); a new kubeconfig re-engages. A guest that fails is reported here,
//    once, and its engagement sends nothing until it answers again;
//  - FeatureGateConfigMapController (management side): the `feature-gate` ConfigMap in the HCP namespace,
//    rendered for the HCP's spec and the HCP's release (hcpReleaseVersion: never the guest's ClusterVersion,
//    which its admin can write), for HyperShift's profile (ibm-cloud-managed) — written even while the guest
//    is unreachable (control-plane components read it).
// Every write passes the shard's fence (judged by the transport before each attempt). How each reconcile of
// these controllers ended makes the HCP's status line, its metrics and its Events (this file's report, over the
// pure api-types/hosted-guest-report.ts):
// a TerminalError (runtime/controller.ts) is waited on, not retried — missing or bad input and a guest that
// does not answer are a Warning when they start, then every 10 minutes while they last; a first read not
// answered yet is no Warning at all — and any other error is a Warning each time the controller's backoff
// retries it.
import type { Registry } from 'prom-client';
import {
  ClusterProfiles, FEATURE_GATE_CONFIGMAP, FEATURE_GATE_NAME, GateRulesError, HCP_API_VERSION, checkSpecGates, configMapCarries, featureGateConfigMap, featureSetName,
  kubernetesOfOpenShift,
  boundedText, guestRecord, guestSyncState, hcpReleaseVersion, hostedFeatureGateSpec, mergeConfigMap, nextProblem, orderedProblems, recordIsNews,
  type ConfigMap, type FeatureGateSpec, type FeatureSetRegistry, type GuestProblem, type HostedControlPlane, type HostedGuestRecord, type GateLifecycle,
} from '../api-types/index.js';
import {
  ConfigMapResource, Controller, ItemExponentialLimiter, ResourceClient, TerminalError, apiErrorMessage, createEventRecorder, errorCause,
  isConflict, silentLogger, type ClusterAccess, type ControllerSpec, type EventRecorder, type InvolvedObject, type Logger, type ReconcileResult,
  type ReleaseCatalog, type WatchSource,
} from '../runtime/index.js';
import { GuestConnection, GuestInputError, type GuestTuning } from './guest-connection.js';
import { CLUSTER_OPERATOR_STATUS_CONTROLLER } from '../controllers/cluster-operator-status.js';
import { FEATURE_GATE_CONTROLLER } from '../controllers/feature-gate-status.js';
import { RUNNING_GATES_CONTROLLER } from '../controllers/running-gates.js';
import { UPGRADEABLE_CONTROLLER } from '../controllers/upgradeable.js';
import { GUEST_VERSION_CONTROLLER, GuestEngagement, acceptedGuestVersion } from './guest-engagement.js';
import { GUEST_SPEC_CONTROLLER } from './guest-spec.js';
import type { GuestSecrets } from './guest-secrets.js';
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
/** The management ConfigMap is re-read from the API this often (between, what this session wrote is trusted). */
const CONFIGMAP_RECHECK_MS = 10 * 60_000;
export const DEFAULT_GUEST_KUBECONFIG_KEY = 'kubeconfig';
export const GUEST_CONNECTION_CONTROLLER = 'GuestConnectionController';
export const FEATURE_GATE_CONFIGMAP_CONTROLLER = 'FeatureGateConfigMapController';

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
  private readonly events: EventRecorder;
  /** The HCP as a watch source: its changes (poke) reach every controller of the session. */
  private readonly hcpListeners = new Set<(name: string) => void>();
  private readonly hcpSource: WatchSource = { addListener: (fn) => { this.hcpListeners.add(fn); return () => this.hcpListeners.delete(fn); } };
  private readonly controllers: Controller[];
  private readonly connection: Controller;
  private readonly problems = new Map<string, GuestProblem>();
  /** The Secret name whose first listing will wake this session (one wake-up attached per name). */
  private wakeOnListing: string | undefined;
  private readonly stopping = new AbortController();
  private guest: GuestConnection | undefined;
  private engagement: GuestEngagement | undefined;
  /** Which controllers of the engagement have reconciled at least once (the status line says "synced" only after all). */
  private settled = new Set<string>();
  private configMap: { cm: ConfigMap; checkedAt: number } | undefined;
  private rendered: { key: string; cm: ConfigMap } | undefined;
  private last: HostedGuestRecord | undefined;
  /** The last running-gate check's verdict for the record (undefined: not checked yet). */
  private runningGates: string | undefined;
  private readonly namespace: string;
  private readonly name: string;
  /** The HCP as Events name it. */
  private readonly involved: InvolvedObject;
  /** The management-side `feature-gate` ConfigMap of this HCP namespace, written through the shard's fence. */
  private readonly configMaps: ResourceClient<ConfigMap>;

  constructor(private readonly d: GuestSessionDeps) {
    [this.namespace, this.name] = d.key.split('/') as [string, string];
    this.log = (d.logger ?? silentLogger).with({ hcp: d.key, shard: d.shard });
    const uid = d.hcp()?.metadata.uid;
    this.involved = { apiVersion: HCP_API_VERSION, kind: 'HostedControlPlane', name: this.name, namespace: this.namespace, ...(uid ? { uid } : {}) };
    this.events = createEventRecorder(d.management, {
      namespace: this.namespace, component: 'featuregate-coordinator', logger: this.log, fence: d.fence, regarding: this.involved,
    });
    this.configMaps = new ResourceClient(d.management, ConfigMapResource, d.registry, { namespace: this.namespace, fence: d.fence, signal: this.stopping.signal });
    const onHcp = [{ source: this.hcpSource, keys: () => [d.key] }];
    this.connection = this.controller({ name: GUEST_CONNECTION_CONTROLLER, reconcile: () => this.connect(), watches: onHcp, initialKeys: [d.key] });
    this.controllers = [this.connection,
      this.controller({ name: FEATURE_GATE_CONFIGMAP_CONTROLLER, reconcile: () => this.syncConfigMap(), watches: onHcp, initialKeys: [d.key] })];
  }

  start(): void {
    for (const c of this.controllers) c.start();
  }

  /** Something this guest depends on changed (its HCP, its Secret): every controller looks now, and a failing guest is tried again now. */
  poke(): void {
    if (this.guest?.failing()) this.guest.retryNow();
    for (const fn of [...this.hcpListeners]) fn(this.d.key);
  }

  async stop(): Promise<void> {
    this.stopping.abort(new Error(`session ${this.d.key} stopped`));
    await this.disengage(); // aborts the guest requests in flight
    await Promise.all(this.controllers.map((c) => c.stop()));
    await this.events.flush();
    this.d.metrics.forget(this.namespace, this.name);
  }

  private controller(spec: ControllerSpec): Controller {
    return new Controller(spec, {
      logger: this.log, rateLimiter: new ItemExponentialLimiter(5, 5 * 60_000),
      onReconciled: (_key, error) => this.reconciled(spec.name, error),
    });
  }

  private get recheckAfterMs(): number {
    return this.d.tuning.resyncMs ?? GUEST_RESYNC_MS;
  }

  /**
   * The spec the HCP asks for, as a watch source of the engagement — unless its control plane would refuse to start
   * with the gates it resolves to: then the last spec that passed (none yet: nothing is pushed to the guest), as the
   * management ConfigMap stays on its last good set (syncConfigMap reports why).
   */
  private readonly requested = {
    spec: (): FeatureGateSpec | undefined => {
      const hcp = this.d.hcp();
      if (!hcp) return undefined;
      const spec = hostedFeatureGateSpec(hcp);
      const release = hcpReleaseVersion(hcp)?.version;
      if (release && this.gatesRefusal(spec, release)) return this.lastStartingSpec;
      this.lastStartingSpec = spec;
      return spec;
    },
    addListener: (fn: (name: string) => void) => this.hcpSource.addListener(fn),
  };
  /** The last HCP spec whose gates its control plane starts with (what the guest was last given). */
  private lastStartingSpec: FeatureGateSpec | undefined;
  /** The last gates-that-start verdict, by spec and release (a render's worth of work, not redone per look). */
  private startVerdict: { key: string; refusal: string | undefined } | undefined;

  /**
   * Why the HCP's control plane (the Kubernetes minor of its release) would refuse to start with the gates `spec`
   * resolves to, or undefined when it would start or cannot be judged (a release whose Kubernetes minor is not known:
   * --kubernetes-versions names more; a spec that does not resolve is syncConfigMap's MissingRelease or the guest's).
   */
  private gatesRefusal(spec: FeatureGateSpec, release: string): string | undefined {
    const key = JSON.stringify([spec, release]);
    if (this.startVerdict?.key === key) return this.startVerdict.refusal;
    let refusal: string | undefined;
    try {
      const kube = kubernetesOfOpenShift(release, this.d.tuning.kubernetesVersions);
      const check = checkSpecGates(spec, this.d.catalog.registry(release, ClusterProfiles.IBMCloudManaged), release, kube);
      if (!check.starts) {
        refusal = `HostedControlPlane ${this.d.key}: its kube-apiserver (Kubernetes ${kube}, release ${release}) would refuse to start with the gates of ` +
          `spec.configuration.featureGate: ${check.problems.map((p) => `${p.gate} (${p.kind}): ${p.message}; ${p.fix}`).join('; ')}. ` +
          'The feature-gate ConfigMap and the guest FeatureGate keep their last set that starts';
      }
    } catch (e) {
      if (!(e instanceof GateRulesError)) refusal = undefined; // resolution errors are reported where the spec is rendered
    }
    this.startVerdict = { key, refusal };
    return refusal;
  }

  /** GuestConnectionController: the guest connection and engagement for the HCP's kubeconfig, (re)made when the Secret's text changes. */
  private async connect(): Promise<ReconcileResult> {
    const hcp = this.d.hcp();
    if (!hcp) return {};
    const kubeconfig = this.kubeconfig(hcp);
    if ('missing' in kubeconfig) {
      // A Secret deleted, its key removed or its reference withdrawn revokes: the connection, its watches and its
      // writes end now, as they do for a kubeconfig that cannot be used. (A Secret not read yet revokes nothing.)
      if (kubeconfig.revoked && this.guest) {
        await this.disengage();
        this.log.info('guest connection ended: its kubeconfig was revoked', { why: kubeconfig.missing.message });
      }
      throw kubeconfig.missing;
    }
    const { text, where } = kubeconfig;
    if (this.guest?.kubeconfigText !== text) {
      await this.disengage();
      if (this.stopping.signal.aborted) return {};
      try {
        this.guest = new GuestConnection(text, where, this.d.identity, this.d.fence, this.onGuestHealth, this.d.tuning, this.d.clusterOperatorName,
          this.d.registry, this.log);
      } catch (e) {
        throw new TerminalError(e instanceof GuestInputError ? e.message : `${where}: ${(e as Error).message}`,
          { reason: 'MissingKubeconfig', recheckAfterMs: EVENTED_RECHECK_MS });
      }
      this.log.info('guest connection made', { server: this.guest.server });
      this.engagement = new GuestEngagement({
        guest: this.guest, hcpKey: this.d.key, catalog: this.d.catalog, requested: this.requested, clusterOperatorName: this.d.clusterOperatorName,
        events: this.events, logger: this.log, recheckAfterMs: this.recheckAfterMs,
        onReconciled: (name, error) => { this.settled.add(name); this.reconciled(name, error); },
        onStopped: (name) => { this.settled.delete(name); this.problems.delete(name); this.report(); },
        onStatusDelay: (seconds) => this.d.metrics.statusDelay(seconds),
        runningGates: {
          periodMs: this.d.tuning.runningGatesPeriodMs ?? HOSTED_RUNNING_GATES_PERIOD_MS, lifecycle: this.d.gateLifecycle,
          ...(this.d.tuning.runningGatesOverrides ? { overrides: this.d.tuning.runningGatesOverrides } : {}),
          onChecked: (o) => {
            // The count first: the names (the guest's own, up to its bounds) may be cut, the count never is.
            this.runningGates = boundedText('error' in o ? `unreadable: ${o.error}`
              : o.mismatches.length ? `mismatch (${o.mismatches.length}): ${o.mismatches.join(', ')}` : 'match');
            this.d.metrics.runningGates(this.namespace, this.name, 'error' in o ? undefined : o.mismatches.length);
            this.report();
          },
        },
      });
    }
    const guest = this.guest!;
    if (!guest.healthy()) {
      throw new TerminalError(guest.notReadyReason(), { reason: 'GuestUnreachable', pending: !guest.failing(), recheckAfterMs: EVENTED_RECHECK_MS });
    }
    return { requeueAfterMs: EVENTED_RECHECK_MS };
  }

  /** The guest failed, answered again, or listed for the first time: the provider looks, and a guest that answers again is looked at by every controller. */
  private readonly onGuestHealth = (): void => {
    if (this.stopping.signal.aborted) return;
    this.connection.enqueue(this.d.key);
    if (this.guest?.healthy()) this.engagement?.resync();
  };

  private async disengage(): Promise<void> {
    const [engagement, guest] = [this.engagement, this.guest];
    this.engagement = undefined;
    this.guest = undefined;
    await Promise.all([engagement?.stop(), guest?.stop()]);
    // What the old engagement's controllers said (until they stopped) no longer holds.
    for (const name of this.settled) this.problems.delete(name);
    this.settled = new Set();
  }

  /**
   * The kubeconfig text of the HCP's Secret, or a TerminalError naming what is missing — `revoked` when the
   * management cluster says there is none (no reference, no Secret, no key), not when it has not answered yet.
   */
  private kubeconfig(hcp: HostedControlPlane): { text: string; where: string } | { missing: TerminalError; revoked: boolean } {
    const revoked = (message: string) => ({ missing: new TerminalError(message, { reason: 'MissingKubeconfig', recheckAfterMs: EVENTED_RECHECK_MS }), revoked: true });
    const ref = this.d.secretOverride
      ? { name: this.d.secretOverride.name, key: this.d.secretOverride.key ?? DEFAULT_GUEST_KUBECONFIG_KEY }
      : hcp.status?.kubeConfig;
    if (!ref) return revoked(`HostedControlPlane ${this.d.key} has no status.kubeConfig (the guest kubeconfig Secret is not published yet)`);
    const where = `Secret ${this.namespace}/${ref.name}`;
    const reflector = this.d.secrets.named(ref.name);
    if (!reflector.hasSynced()) {
      // Its first listing wakes this session: one wake-up per session and Secret name, however many reconciles wait
      // (each would otherwise attach a closure holding the session until the listing comes).
      if (this.wakeOnListing !== ref.name) {
        this.wakeOnListing = ref.name;
        void reflector.synced.then(() => { if (!this.stopping.signal.aborted) this.connection.enqueue(this.d.key); });
      }
      const error = reflector.lastError();
      const message = `${where} not read yet${error ? `: ${error}` : ''}`;
      return { missing: new TerminalError(message, { reason: 'MissingKubeconfig', pending: !error, recheckAfterMs: EVENTED_RECHECK_MS }), revoked: false };
    }
    const secret = reflector.get(`${this.namespace}/${ref.name}`);
    if (!secret) return revoked(`${where} (the guest kubeconfig) does not exist`);
    const b64 = secret.data?.[ref.key];
    if (b64 === undefined) return revoked(`${where} has no key ${JSON.stringify(ref.key)} (keys: ${Object.keys(secret.data ?? {}).join(', ') || 'none'})`);
    return { text: Buffer.from(b64, 'base64').toString('utf8'), where: `${where} key ${ref.key}` };
  }

  /** FeatureGateConfigMapController: management side, from management-side input only (the HCP's spec and release). */
  private async syncConfigMap(): Promise<ReconcileResult> {
    const hcp = this.d.hcp();
    if (!hcp) return {};
    const release = hcpReleaseVersion(hcp);
    if (!release) {
      // Nothing has failed: HyperShift names the release once the control plane rolls out (a status line, no Warning).
      throw new TerminalError(`HostedControlPlane ${this.d.key} names no release version yet (status.controlPlaneVersion, status.version); ` +
        'the feature-gate ConfigMap waits for it', { reason: 'MissingVersion', pending: true, recheckAfterMs: EVENTED_RECHECK_MS });
    }
    let registry: FeatureSetRegistry;
    try {
      registry = this.d.catalog.registry(release.version, ClusterProfiles.IBMCloudManaged);
    } catch (e) {
      throw new TerminalError(`HostedControlPlane release ${release.version}: ${(e as Error).message}`, { reason: 'MissingRelease', recheckAfterMs: EVENTED_RECHECK_MS });
    }
    const spec = hostedFeatureGateSpec(hcp);
    const refusal = this.gatesRefusal(spec, release.version);
    if (refusal) throw new TerminalError(refusal, { reason: 'GatesRefused', recheckAfterMs: EVENTED_RECHECK_MS });
    const desired = this.desiredConfigMap(spec, registry, release.version);
    const known = this.configMap;
    // Its inputs (the HCP) are watched; what the API server has is re-read every CONFIGMAP_RECHECK_MS, so that is
    // its resync too (a minute's resync of every HCP's ConfigMap was a third of an idle replica's reconciles).
    if (known && Date.now() - known.checkedAt < CONFIGMAP_RECHECK_MS && configMapCarries(known.cm, desired)) return { requeueAfterMs: this.configMapResyncMs(known.checkedAt) };
    try {
      const { stored, written } = await this.configMaps.upsert(FEATURE_GATE_CONFIGMAP,
        (cm) => (!cm ? desired : configMapCarries(cm, desired) ? undefined : mergeConfigMap(cm, desired)));
      this.configMap = { cm: (written ?? stored)!, checkedAt: Date.now() };
      if (written) this.log.info('feature-gate ConfigMap written', { version: release.version });
    } catch (e) {
      throw new Error(`ConfigMap ${this.namespace}/${FEATURE_GATE_CONFIGMAP}: ${apiErrorMessage(e)}`, { cause: e });
    }
    return { requeueAfterMs: this.configMapResyncMs(Date.now()) };
  }

  /** When the ConfigMap is next looked at without a change: when its last read is due again (never later than a test's shorter resync). */
  private configMapResyncMs(checkedAt: number): number {
    return Math.max(1, Math.min(this.d.tuning.resyncMs ?? CONFIGMAP_RECHECK_MS, CONFIGMAP_RECHECK_MS - (Date.now() - checkedAt)));
  }

  /** The desired `feature-gate` ConfigMap, rendered once per spec and version (the render is most of a sync's CPU). */
  private desiredConfigMap(spec: FeatureGateSpec, registry: FeatureSetRegistry, version: string): ConfigMap {
    const key = JSON.stringify([spec, version]);
    if (this.rendered?.key !== key) this.rendered = { key, cm: featureGateConfigMap(this.namespace, spec, registry, version) };
    return this.rendered.cm;
  }

  /** One controller of the session finished a reconcile: its problem (or none) is noted, Warned as its follow-up says, and reported. */
  private reconciled(controller: string, error: unknown): void {
    if (this.stopping.signal.aborted) return;
    if (error === undefined) {
      this.problems.delete(controller);
    } else {
      const { problem, warn } = nextProblem(this.problems.get(controller), this.problemOf(controller, error), Date.now(), NOTIFIED_REPEAT_MS);
      if (warn) this.events.event(this.involved, 'Warning', `FeatureGates${problem.reason}`, problem.message);
      this.problems.set(controller, problem);
    }
    this.report();
  }

  private problemOf(controller: string, error: unknown): GuestProblem & { reason: SyncFailureReason } {
    const terminal = errorCause(error, TerminalError);
    if (terminal) {
      return { reason: reasonOf(terminal.options.reason), message: terminal.message, followUp: terminal.options.pending ? 'pending' : 'notified' };
    }
    if (isConflict(error)) return { reason: 'WriteFailed', message: 'the guest object changed while writing; retrying', followUp: 'retry' };
    const where = controller === FEATURE_GATE_CONFIGMAP_CONTROLLER || !this.guest ? '' : `guest ${this.guest.server}: `;
    return { reason: 'WriteFailed', message: `${where}${apiErrorMessage(error)}`, followUp: 'retry' };
  }

  /** The status line and metrics from what every controller last said (a record only when it says something new). */
  private report(): void {
    const hcp = this.d.hcp();
    if (!hcp) return;
    const problems = orderedProblems(this.problems, PROBLEM_ORDER);
    // Engaged: its version bound, the guest answering, and every one of its controllers has run at least once.
    const engaged = this.engagement?.version() !== undefined && this.guest?.healthy() === true && ENGAGED_CONTROLLERS.every((c) => this.settled.has(c));
    const state = guestSyncState(problems, engaged);
    if (!state) return; // still starting: nothing to say yet
    this.d.metrics.synced(this.namespace, this.name, state.ok, state.reason === undefined ? undefined : reasonOf(state.reason));
    const guest = this.guest?.synced() ? this.guest : undefined;
    const fg = guest?.featureGates.get(FEATURE_GATE_NAME);
    const up = guest?.clusterOperators.get(this.d.clusterOperatorName)?.status?.conditions?.find((c) => c.type === 'Upgradeable');
    const accepted = guest ? acceptedGuestVersion(guest.clusterVersions.get('version')) : undefined;
    const version = (accepted && 'version' in accepted ? accepted.version : undefined) ?? hcpReleaseVersion(hcp)?.version;
    const featureSet = featureSetName(hostedFeatureGateSpec(hcp).featureSet ?? '');
    this.d.metrics.described(this.namespace, this.name, featureSet, up?.status ?? 'Unknown');
    const r = guestRecord({
      hcp: this.d.key, shard: this.d.shard, owner: this.d.identity, ...(version ? { desiredVersion: version } : {}), featureSet,
      versions: fg?.status?.featureGates.map((e) => e.version) ?? [],
      ...(up ? { upgradeable: { status: up.status, ...(up.reason !== undefined ? { reason: up.reason } : {}) } } : {}),
      ...(this.runningGates ? { runningGates: this.runningGates } : {}),
    }, problems, state.ok, new Date(), this.last);
    if (!recordIsNews(this.last, r, LAST_SYNC_REFRESH_MS)) return;
    this.last = r;
    this.d.record(r);
  }
}
