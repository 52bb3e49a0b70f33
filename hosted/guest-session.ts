// One hosted control plane while this replica owns its shard: its guest kubeconfig Secret (from the
// replica's watch of that Secret name, guest-secrets.ts), its guest connection, and one controller (its own
// queue and rate limiter, so a failing guest backs off alone) whose sync does, in order:
//  1. guest FeatureGate/cluster spec = HCP spec.configuration.featureGate (created when missing; a change
//     the guest refuses — HyperShift's `config` admission policy, the CEL rules that keep NoUpgrade one-way —
//     is an Event and a status line, and steps 2 and 3 still run: they never wait for the spec);
//  2. guest FeatureGate status, by the single-cluster operator's own reconciler, for the guest's desired
//     version, with the guest's own ClusterVersion history and the spec the guest has (what its components
//     read) — a history longer than the cluster-version operator keeps (100) is that guest's error;
//  3. the guest ClusterOperator (default `config-operator`), by the single-cluster operator's reconciler:
//     Upgradeable=False with CCO's reason and message for a NoUpgrade set — the guest's, or the HCP's while
//     the guest refuses it — so the guest CVO reports it and HyperShift's ClusterVersionUpgradeable blocks
//     minor upgrades;
//  4. management side: the `feature-gate` ConfigMap in the HCP namespace, rendered for the HCP's spec and the
//     HCP's release (hcpReleaseVersion: never the guest's ClusterVersion, which its admin can write), for the
//     Hypershift profile — written even while the guest is unreachable (control-plane components read it).
// Every guest write passes the shard's fence (judged by the transport before each attempt). The guest
// kubeconfig is untrusted (guest-connection.ts). Problems name the HCP and what is missing; they are recorded
// (metric, status record, and an Event unless nothing has failed yet) and followed up by what they wait on:
// a first read not answered yet (the Secret watch, the guest's lists), missing or bad input (the HCP's
// status.kubeConfig, its Secret, a release or version) and a guest that does not answer (its connection
// retries on its own backoff) wake the session when they change, so they are not retried by the work queue —
// at a fleet's start that retry loop, 5 ms and doubling, made every unreachable guest an Event write a few
// times a second, and every HCP created before its kubeconfig was published a dozen — and each is a Warning
// when it starts, then every 10 minutes while it lasts, not at every resync; a failed write is retried with
// this guest's backoff.
import type { Registry } from 'prom-client';
import {
  API_VERSION, ClusterProfiles, FEATURE_GATE_CONFIGMAP, FEATURE_GATE_NAME, HCP_API_VERSION, configMapCarries, featureGateConfigMap,
  featureGatesUpgradeable, featureSetName, hcpReleaseVersion, hostedFeatureGateSpec, jsonEqual, mergeConfigMap, type ConfigMap, type ClusterVersion,
  type FeatureGate, type FeatureGateSpec, type FeatureSetRegistry, type HostedControlPlane, type HostedGuestRecord,
} from '../api-types/index.js';
import {
  BucketLimiter, ConfigMapResource, Controller, ItemExponentialLimiter, ResourceClient, apiErrorMessage, createEventRecorder,
  isConflict, silentLogger, statusCode, type ClusterAccess, type EventRecorder, type InvolvedObject, type Logger, type ReconcileResult, type ReleaseCatalog,
} from '../runtime/index.js';
import { clusterOperatorStatusReconciler } from '../controllers/cluster-operator-status.js';
import { featureGateStatusReconciler } from '../controllers/feature-gate-status.js';
import { OperatorConditions } from '../controllers/operator-conditions.js';
import { GuestConnection, GuestInputError, type GuestTuning } from './guest-connection.js';
import type { GuestSecrets } from './guest-secrets.js';
import type { HostedMetrics, SyncFailureReason } from './metrics.js';

export const RESYNC_MS = 60_000;
/**
 * A problem that is followed up by what failed (`notified`) is written as a Warning when it starts or its
 * message changes, and again this often while it lasts — well within an Event's life in the API server (1 h
 * by default), and not once per resync: 480 unreachable guests made ~8 Event writes a second that way.
 */
export const NOTIFIED_REPEAT_MS = 10 * 60_000;
/** The management ConfigMap is re-read from the API this often (between, what this session wrote is trusted). */
const CONFIGMAP_RECHECK_MS = 10 * 60_000;
export const DEFAULT_GUEST_KUBECONFIG_KEY = 'kubeconfig';
/** relatedObjects namespace of the guest ClusterOperator (the namespace a guest has for cluster config). */
const GUEST_CONFIG_NAMESPACE = 'openshift-config';

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
}

/**
 * How a problem is followed up: `retry` — with the session's backoff (an Event each time, as correlated): a
 * write that failed; `notified` — an Event, then nothing until what it waits on tells the session it changed
 * (the HCP, its kubeconfig Secret, the guest's objects, the guest answering again; the minute's resync as a
 * net): bad or missing input, a guest that does not answer; `pending` — nothing has failed, a first read is
 * not answered yet: no Event, and the read wakes the session.
 */
type FollowUp = 'retry' | 'notified' | 'pending';

class Problem extends Error {
  constructor(readonly reason: SyncFailureReason, message: string, readonly followUp: FollowUp = 'retry') {
    super(message);
  }
}

/** Spec equality as the API server defaults it: absent featureSet = "", absent lists = none. */
export function sameFeatureGateSpec(a: FeatureGateSpec, b: FeatureGateSpec): boolean {
  const norm = (s: FeatureGateSpec) => ({
    featureSet: s.featureSet ?? '',
    customNoUpgrade: s.customNoUpgrade ? { enabled: s.customNoUpgrade.enabled ?? [], disabled: s.customNoUpgrade.disabled ?? [] } : null,
  });
  return jsonEqual(norm(a), norm(b));
}

/** How often a guest's own events may wake its session: a token bucket per guest (a change, then its status write's echo, fit in the burst). */
export const GUEST_WAKEUPS = { perSecond: 2, burst: 10 };

/** The most ClusterVersion history entries a guest may have (the cluster-version operator keeps 100). */
export const MAX_GUEST_HISTORY = 100;

/**
 * The feature set that decides Upgradeable while the guest's spec and the HCP's may differ: a NoUpgrade choice
 * on either side blocks minor upgrades (the HCP's is one-way even while the guest refuses it, and the control
 * plane already runs it from the ConfigMap); otherwise the guest's own.
 */
export function upgradeBlockingFeatureSet(guest: string | undefined, hcp: string | undefined): string | undefined {
  const blocks = (s: string | undefined) => featureGatesUpgradeable(s).status === 'False';
  if (blocks(guest)) return guest;
  if (blocks(hcp)) return hcp;
  return guest;
}

/** The guest's desired version: ClusterVersion status.desired, else its newest history entry. */
export function guestDesiredVersion(cv: ClusterVersion | undefined): string | undefined {
  return cv?.status?.desired?.version || cv?.status?.history[0]?.version || undefined;
}

export class GuestSession {
  private readonly log: Logger;
  private readonly controller: Controller;
  private readonly conditions = OperatorConditions.atStart();
  private readonly events: EventRecorder;
  private readonly listeners = new Set<(name: string) => void>();
  /** Paces the wake-ups the guest's own events cause (see changed). */
  private readonly wakeups = new BucketLimiter(GUEST_WAKEUPS.perSecond, GUEST_WAKEUPS.burst);
  private wakeTimer: NodeJS.Timeout | undefined;
  /** The Secret name whose first listing will wake this session (one wake-up attached per name). */
  private wakeOnListing: string | undefined;
  /** Aborted by stop(): the management-side write in flight ends at once. */
  private readonly stopping = new AbortController();
  private guest: GuestConnection | undefined;
  private configMap: { cm: ConfigMap; checkedAt: number } | undefined;
  private rendered: { key: string; cm: ConfigMap } | undefined;
  /** The FeatureGate status reconciler of this guest, version and registry: kept between syncs, so its resolution cache is. */
  private status: { guest: GuestConnection; version: string; registry: FeatureSetRegistry; reconcile: (key: string) => Promise<ReconcileResult> } | undefined;
  private last: HostedGuestRecord | undefined;
  /** The message of the problems this session now waits on (logged when it changes). */
  private waitingOn: string | undefined;
  /** The last Warning written for a `notified` problem, and when. */
  private notified: { message: string; at: number } | undefined;
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
    this.controller = new Controller({
      name: `hosted:${d.key}`,
      reconcile: () => this.sync(),
      watches: [{ source: { addListener: (fn) => { this.listeners.add(fn); return () => this.listeners.delete(fn); } }, keys: () => [d.key] }],
      initialKeys: [d.key],
    }, { logger: this.log, rateLimiter: new ItemExponentialLimiter(5, 5 * 60_000) });
  }

  start(): void {
    this.controller.start();
  }

  /** Something this guest depends on changed (its HCP, its Secret): sync now, and try a failing guest again now. */
  poke(): void {
    if (this.guest && !this.guest.healthy()) this.guest.retryNow();
    this.controller.enqueue(this.d.key);
  }

  /**
   * The guest's objects changed (or it failed or recovered): sync. A guest's events wake its session at most
   * GUEST_WAKEUPS.perSecond times a second after a burst of GUEST_WAKEUPS.burst — events in between join the one
   * wake-up scheduled — so a tenant whose API server streams changes cannot set the replica's pace.
   */
  private changed = (): void => {
    if (this.wakeTimer || this.stopping.signal.aborted) return;
    const delay = this.wakeups.when();
    const wake = () => { for (const fn of this.listeners) fn(this.d.key); };
    if (delay <= 0) {
      wake();
      return;
    }
    this.wakeTimer = setTimeout(() => { this.wakeTimer = undefined; wake(); }, delay);
  };

  async stop(): Promise<void> {
    this.stopping.abort(new Error(`session ${this.d.key} stopped`));
    clearTimeout(this.wakeTimer);
    const guestStopped = this.guest?.stop(); // aborts the guest requests of a sync in flight
    await this.controller.stop();
    await guestStopped;
    this.guest = undefined;
    await this.events.flush();
    this.d.metrics.forget(this.namespace, this.name);
  }

  private async sync(): Promise<ReconcileResult> {
    const hcp = this.d.hcp();
    if (!hcp) return {};
    const problems: Problem[] = [];
    const note = (e: unknown) => {
      if ((e as Error).name === 'NotLeaderError') throw e;
      problems.push(e instanceof Problem ? e : new Problem('WriteFailed', apiErrorMessage(e)));
    };
    let guest: GuestConnection | undefined;
    try {
      guest = this.connect(hcp);
    } catch (e) {
      note(e);
    }
    const cv = guest?.synced() ? guest.clusterVersions.get('version') : undefined;
    // Two versions, from two sides: the guest's own (its ClusterVersion: what its components run, so its
    // FeatureGate status and ClusterOperator follow it — a guest admin changing it reaches only that guest) and
    // the management side's (the HCP's release: what the control-plane components on the management cluster
    // run, so the `feature-gate` ConfigMap follows it, never the guest).
    const release = hcpReleaseVersion(hcp);
    const guestVersion = guestDesiredVersion(cv);
    const version = guestVersion ?? release?.version;
    const spec = hostedFeatureGateSpec(hcp);
    let versions: string[] = (guest?.synced() ? guest.featureGates.get(FEATURE_GATE_NAME)?.status?.featureGates.map((e) => e.version) : undefined) ?? [];
    let upgradeable: string | undefined;
    const registryOf = (v: string, whose: string) => {
      try {
        return this.d.catalog.registry(v, ClusterProfiles.IBMCloudManaged);
      } catch (e) {
        problems.push(new Problem('MissingRelease', `${whose}: ${(e as Error).message}`, 'notified'));
        return undefined;
      }
    };
    const releaseRegistry = () => (release ? registryOf(release.version, `HostedControlPlane release ${release.version}`) : undefined);
    let registry;
    if (guest?.synced()) {
      const tooLong = (cv?.status?.history.length ?? 0) > MAX_GUEST_HISTORY;
      if (tooLong) {
        // The guest's error, not the replica's memory: the CVO keeps at most 100 entries.
        problems.push(new Problem('GuestInputRejected', `the guest ClusterVersion/version has ${cv?.status?.history.length} history entries, ` +
          `more than the ${MAX_GUEST_HISTORY} the cluster-version operator keeps; its FeatureGate status is not written until it has at most ${MAX_GUEST_HISTORY}`, 'notified'));
      } else if (!guestVersion) {
        problems.push(new Problem('MissingVersion', 'the guest ClusterVersion/version has no desired version or history yet', 'notified'));
      } else {
        registry = registryOf(guestVersion, `guest version ${guestVersion}`);
      }
    }
    const resync: ReconcileResult = { requeueAfterMs: this.d.tuning.resyncMs ?? RESYNC_MS };
    let result = resync;
    if (guest && registry && guestVersion && guest.healthy()) {
      try {
        let wrote = false;
        try {
          wrote = await this.syncSpec(guest, spec);
        } catch (e) {
          // A refused spec (HyperShift's `config` admission policy, a NoUpgrade set's one-way rule) is reported; the
          // status of the guest's versions and its ClusterOperator are still kept, from the spec the guest has.
          if (!(e instanceof Problem)) throw e;
          problems.push(e);
        }
        if (wrote) {
          // The guest's watch brings the new object back and syncs again; the ConfigMap follows the HCP now.
          const cmRegistry = releaseRegistry();
          if (release && cmRegistry) await this.syncConfigMap(this.desiredConfigMap(spec, cmRegistry, release.version)).catch(() => undefined);
          return {};
        }
        const fgResult = await this.statusReconciler(guest, guestVersion, registry)(FEATURE_GATE_NAME);
        if (fgResult.requeue) result = { requeue: true };
        const fg = guest.featureGates.get(FEATURE_GATE_NAME);
        this.conditions.set(featureGatesUpgradeable(upgradeBlockingFeatureSet(fg?.spec.featureSet, spec.featureSet)));
        const stored = await guest.readClusterOperator(this.d.clusterOperatorName);
        let co = stored;
        await clusterOperatorStatusReconciler({
          name: this.d.clusterOperatorName, operatorVersion: guestVersion, namespace: GUEST_CONFIG_NAMESPACE,
          clusterOperators: { get: () => stored, addListener: () => () => undefined }, featureGates: guest.featureGates,
          client: {
            create: async (o) => (co = await guest.clusterOperator.create(o)),
            replaceStatus: async (o) => (co = await guest.clusterOperator.replaceStatus(o)),
          },
          conditions: this.conditions,
        })();
        const up = co?.status?.conditions?.find((c) => c.type === 'Upgradeable');
        upgradeable = up ? (up.status === 'True' ? 'True' : `${up.status}: ${up.reason ?? ''}`) : undefined;
        versions = fg?.status?.featureGates.map((e) => e.version) ?? versions;
      } catch (e) {
        note(isConflict(e) ? new Problem('WriteFailed', 'the guest object changed while writing; retrying') : e instanceof Problem ? e : new Problem('WriteFailed', `guest ${guest.server}: ${apiErrorMessage(e)}`));
      }
    } else if (guest && !guest.healthy()) {
      problems.push(new Problem('GuestUnreachable', guest.notReadyReason(), guest.failing() ? 'notified' : 'pending'));
    }
    // The management ConfigMap last: the guest's status is what a watcher waits for. It does not wait for the
    // guest, and it is rendered from management-side input only (the HCP's spec and release).
    const cmRegistry = releaseRegistry();
    if (release && cmRegistry) {
      try {
        await this.syncConfigMap(this.desiredConfigMap(spec, cmRegistry, release.version));
      } catch (e) {
        note(new Problem('WriteFailed', `ConfigMap ${this.namespace}/${FEATURE_GATE_CONFIGMAP}: ${apiErrorMessage(e)}`));
      }
    } else if (!release && guest?.synced()) {
      problems.push(new Problem('MissingVersion', `HostedControlPlane ${this.d.key} names no release version yet (status.controlPlaneVersion, status.version); ` +
        'the feature-gate ConfigMap waits for it', 'notified'));
    }
    const ok = problems.length === 0;
    const message = problems.map((p) => p.message).join('; ');
    this.d.metrics.synced(this.namespace, this.name, ok, problems[0]?.reason);
    this.report({
      hcp: this.d.key, shard: this.d.shard, owner: this.d.identity, ...(version ? { desiredVersion: version } : {}),
      featureSet: featureSetName(spec.featureSet ?? ''), versions, ...(upgradeable ? { upgradeable } : {}),
      ...(ok ? { lastSync: new Date().toISOString() } : this.last?.lastSync ? { lastSync: this.last.lastSync } : {}),
      ...(ok ? {} : { lastError: message }),
    });
    if (!ok) {
      const reason = problems[0]?.reason ?? 'WriteFailed';
      const retry = problems.some((p) => p.followUp === 'retry');
      if (retry || (problems.some((p) => p.followUp === 'notified') && this.notifyDue(message))) {
        this.events.event(this.involved, 'Warning', `FeatureGates${reason}`, message);
      }
      if (retry) throw new Error(`${this.d.key}: ${message}`);
      if (message !== this.waitingOn) this.log.info('waiting', { reason, message });
      this.waitingOn = message;
      return resync;
    }
    this.waitingOn = undefined;
    this.notified = undefined;
    return result;
  }

  /** The single-cluster operator's FeatureGate status reconciler over this guest's reflectors, made anew only when they or the version change. */
  private statusReconciler(guest: GuestConnection, version: string, registry: FeatureSetRegistry): (key: string) => Promise<ReconcileResult> {
    const s = this.status;
    if (s?.guest === guest && s.version === version && s.registry === registry) return s.reconcile;
    const reconcile = featureGateStatusReconciler({
      operatorVersion: version, registry, featureGates: guest.featureGates, clusterVersions: guest.clusterVersions,
      client: guest.featureGate, conditions: this.conditions, events: this.events, logger: this.log,
    });
    this.status = { guest, version, registry, reconcile };
    return reconcile;
  }

  /** A `notified` problem's Warning is due: new, changed, or last written NOTIFIED_REPEAT_MS ago. */
  private notifyDue(message: string): boolean {
    const now = Date.now();
    if (this.notified?.message === message && now - this.notified.at < NOTIFIED_REPEAT_MS) return false;
    this.notified = { message, at: now };
    return true;
  }

  /** The guest connection for the HCP's kubeconfig Secret, (re)made when the Secret changes. */
  private connect(hcp: HostedControlPlane): GuestConnection {
    const ref = this.d.secretOverride
      ? { name: this.d.secretOverride.name, key: this.d.secretOverride.key ?? DEFAULT_GUEST_KUBECONFIG_KEY }
      : hcp.status?.kubeConfig;
    if (!ref) throw new Problem('MissingKubeconfig', `HostedControlPlane ${this.d.key} has no status.kubeConfig (the guest kubeconfig Secret is not published yet)`, 'notified');
    const where = `Secret ${this.namespace}/${ref.name}`;
    const reflector = this.d.secrets.named(ref.name);
    if (!reflector.hasSynced()) {
      // Its first listing wakes this session: one wake-up per session and Secret name, however many syncs wait
      // (each would otherwise attach a closure holding the session until the listing comes).
      if (this.wakeOnListing !== ref.name) {
        this.wakeOnListing = ref.name;
        void reflector.synced.then(() => { if (!this.stopping.signal.aborted) this.controller.enqueue(this.d.key); });
      }
      const error = reflector.lastError();
      throw new Problem('MissingKubeconfig', `${where} not read yet${error ? `: ${error}` : ''}`, error ? 'notified' : 'pending');
    }
    const secret = reflector.get(`${this.namespace}/${ref.name}`);
    if (!secret) throw new Problem('MissingKubeconfig', `${where} (the guest kubeconfig) does not exist`, 'notified');
    const b64 = secret.data?.[ref.key];
    if (b64 === undefined) {
      throw new Problem('MissingKubeconfig', `${where} has no key ${JSON.stringify(ref.key)} (keys: ${Object.keys(secret.data ?? {}).join(', ') || 'none'})`, 'notified');
    }
    const text = Buffer.from(b64, 'base64').toString('utf8');
    if (this.guest?.kubeconfigText !== text) {
      void this.guest?.stop();
      this.guest = undefined;
      try {
        this.guest = new GuestConnection(text, `${where} key ${ref.key}`, this.d.identity, this.d.fence, this.changed,
          this.d.tuning, this.d.registry, this.log);
        this.log.info('guest connection made', { server: this.guest.server });
      } catch (e) {
        throw new Problem('MissingKubeconfig', e instanceof GuestInputError ? e.message : `${where}: ${(e as Error).message}`, 'notified');
      }
    }
    return this.guest;
  }

  /** Guest spec = HCP spec. True when something was written. */
  private async syncSpec(guest: GuestConnection, spec: FeatureGateSpec): Promise<boolean> {
    const fg = guest.featureGates.get(FEATURE_GATE_NAME);
    try {
      if (!fg) {
        await guest.featureGate.create({ apiVersion: API_VERSION, kind: 'FeatureGate', metadata: { name: FEATURE_GATE_NAME }, spec });
        this.log.info('guest FeatureGate created', { featureSet: spec.featureSet ?? '' });
        return true;
      }
      if (sameFeatureGateSpec(fg.spec, spec)) return false;
      const next: FeatureGate = { ...fg, spec: { ...spec } };
      await guest.featureGate.replace(next);
      this.log.info('guest FeatureGate spec set from the HostedControlPlane', { from: fg.spec.featureSet ?? '', to: spec.featureSet ?? '' });
      this.events.event({ apiVersion: API_VERSION, kind: 'FeatureGate', name: FEATURE_GATE_NAME }, 'Normal', 'FeatureGateSpecUpdated',
        `guest FeatureGate/cluster spec set to featureSet=${JSON.stringify(spec.featureSet ?? '')} from HostedControlPlane ${this.d.key}`);
      return true;
    } catch (e) {
      if (isConflict(e) && fg) throw e;
      if (statusCode(e) === 422 || statusCode(e) === 400) {
        throw new Problem('SpecRejected', `the guest refused FeatureGate/cluster spec featureSet=${JSON.stringify(spec.featureSet ?? '')} ` +
          `(from HostedControlPlane ${this.d.key} spec.configuration.featureGate): ${apiErrorMessage(e)}`, 'notified');
      }
      throw e;
    }
  }

  /** The desired `feature-gate` ConfigMap, rendered once per spec and version (the render is most of a sync's CPU). */
  private desiredConfigMap(spec: FeatureGateSpec, registry: FeatureSetRegistry, version: string): ConfigMap {
    const key = JSON.stringify([spec, version]);
    if (this.rendered?.key !== key) this.rendered = { key, cm: featureGateConfigMap(this.namespace, spec, registry, version) };
    return this.rendered.cm;
  }

  private async syncConfigMap(desired: ConfigMap): Promise<void> {
    const known = this.configMap;
    if (known && Date.now() - known.checkedAt < CONFIGMAP_RECHECK_MS && configMapCarries(known.cm, desired)) return;
    let created = false;
    const stored = await this.configMaps.getOrCreate(FEATURE_GATE_CONFIGMAP, () => { created = true; return desired; });
    const replace = !configMapCarries(stored, desired);
    const cm = replace ? await this.configMaps.replace(mergeConfigMap(stored, desired)) : stored;
    this.configMap = { cm, checkedAt: Date.now() };
    if (created || replace) this.log.info('feature-gate ConfigMap written', { version: desired.metadata.annotations });
  }

  /** Hands the record on when it says something new (or the last one is 5 minutes old). */
  private report(r: HostedGuestRecord): void {
    const prior = this.last;
    this.last = r;
    const same = prior && jsonEqual({ ...prior, lastSync: undefined }, { ...r, lastSync: undefined });
    const fresh = prior?.lastSync && r.lastSync && Date.parse(r.lastSync) - Date.parse(prior.lastSync) < 5 * 60_000;
    if (same && (fresh || !r.lastSync)) {
      this.last = prior;
      return;
    }
    this.d.record(r);
  }

}
