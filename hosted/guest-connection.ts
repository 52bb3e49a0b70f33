// One guest cluster's connection, from the kubeconfig text its Secret holds: the guest's own pooled
// transport (every request bounded by a timeout), typed clients whose writes pass the shard's fence and are
// not sent while the guest is failing, and reflectors of FeatureGate/cluster, ClusterVersion/version and the
// coordinator's ClusterOperator (watched by name: three watch connections per guest). The reflectors back off
// on their own (a guest that is down costs a refused connection per backoff step and never touches another
// guest). The kubeconfig is untrusted data (readUntrustedKubeconfigText: inline credentials, https only,
// nothing read from this process's disk); credentials live only in memory, in the ClusterAccess. Its
// ClusterVersion is cached as the fields the controllers read (GuestClusterVersionResource). Every request
// is bounded — one deadline per call, lists and events of one object at most MAX_OBJECT_BYTES, changes at most
// GUEST_EVENT_RATE over all of a reflector's watches (a faster watch ends as a failure), and an answer that is not
// the object asked for fails its list or watch (the reflector checks each) — and stop()
// aborts whatever is in flight. This is the guest provider's half of an engagement (multicluster-runtime's
// split): guest-engagement.ts runs the operator's controllers over these caches.
import type { Registry } from 'prom-client';
import { CLUSTER_VERSION_NAME, FEATURE_GATE_NAME, type ClusterOperator, type ClusterVersion, type FeatureGate } from '../api-types/index.js';
import { ClusterOperatorResource, FeatureGateResource, GuestClusterVersionResource, KubeTransport, MAX_OBJECT_BYTES, withTransportConfig, Reflector, ResourceClient, TerminalError, readUntrustedKubeconfigText, userAgent, type ClusterAccess, type Logger } from '../runtime/index.js';
import { type FairTurns, type TurnPlaces } from './fair-turns.js';

export interface GuestTuning {
  /**
   * Guest reflector backoff (default 1 s doubling to 3 minutes: a guest that is down costs one connection
   * attempt every 1.5–3 minutes; a change of its HostedControlPlane cuts the wait short).
   */
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  relistIntervalMs?: number;
  watchTimeoutSeconds?: [number, number];
  /** Each guest request's timeout (default 10 s). */
  requestTimeoutMs?: number;
  /**
   * How often an engaged guest's controllers look again when nothing told them to (default GUEST_RESYNC_MS, 10
   * minutes). A guest that does not answer, or waits on its HCP or Secret, is looked at on their events only.
   */
  resyncMs?: number;
  /** Accept guest kubeconfigs with insecure-skip-tls-verify (test set-ups; --allow-insecure-guest-tls). */
  allowInsecureSkipTLSVerify?: boolean;
  /**
   * How often each guest kube-apiserver's running gates are checked against its FeatureGate status besides on a
   * status change (default 60 minutes; 0: never). Never more than once a minute per guest.
   */
  runningGatesPeriodMs?: number;
  /** Known, deliberate differences every guest's kube-apiserver runs with (HyperShift's): `overridden`, not a mismatch. */
  runningGatesOverrides?: ReadonlyMap<string, boolean>;
  /** More OpenShift minor → Kubernetes minor pairs ("4.22" → "1.35") for the gates-that-start check of HCP releases. */
  kubernetesVersions?: Readonly<Record<string, string>>;
}

/** The User-Agent of guest requests: names the replica, so a guest's audit log says which one wrote. */
export function guestUserAgent(identity: string): string {
  return `${userAgent('featuregates-hosted')} replica/${identity}`;
}

export const DEFAULT_GUEST_BACKOFF_MAX_MS = 3 * 60_000;
/**
 * Guest watches ask for kube-apiserver's own range for a watch that does not ask (--min-request-timeout 1800 s, up to
 * twice that), not client-go's 5–10 minutes: a replica holds hundreds of guests, three watches each, and each renewal
 * is a request (600 guests renewed ~240 watches a minute at 5–10 minutes). Their liveness does not depend on the
 * length: the HTTP/2 connection's pings (on HTTP/1.1, for a guest that refuses h2: TCP keep-alive and the reflector's
 * silence bound, 150 s; the guest's bookmarks come every minute).
 */
export const GUEST_WATCH_SECONDS: [number, number] = [1800, 3600];
/** Guest reflectors relist once an hour (the single-cluster default is 10 minutes): the watches resume, the relist is only a net. */
export const GUEST_RELIST_MS = 60 * 60_000;
/**
 * How fast a guest's watched object may change before its watch is ended as a failure (and watched again after a
 * growing backoff): one change a second with a burst of 60. The cluster-version operator, a status write and its
 * echo stay far below it; a guest cycling its ClusterVersion ten times a second cost its replica ~1 s of CPU a
 * minute in decoded and paced events.
 */
export const GUEST_EVENT_RATE = { perSecond: 1, burst: 60 };

/**
 * How many guests of one replica may be in their first listing at once (the TLS handshake and three lists), and how
 * long one holds its place at most. Three fresh replicas over 2,000 existing HCPs each opened ~670 guests at once
 * (run 2010h): the lists queued past their timeout in the replicas' event loops and the guests' servers, the retries
 * and the late Lease renewals that followed kept the fleet from converging in two minutes. A guest that does not
 * answer gives its place back after `holdMs`, so slow guests cannot hold the others back for long.
 */
export const FIRST_LISTINGS: { perSecond: number; burst: number } & TurnPlaces = {
  perSecond: 200,
  burst: 200,
  maxInFlight: 16,
  holdMs: 2_000,
};

export class GuestInputError extends Error {
  override name = 'GuestInputError';
}

export class GuestConnection {
  readonly access: ClusterAccess;
  readonly featureGate: ResourceClient<FeatureGate>;
  readonly clusterOperator: ResourceClient<ClusterOperator>;
  readonly featureGates: Reflector<FeatureGate>;
  readonly clusterVersions: Reflector<ClusterVersion>;
  readonly clusterOperators: Reflector<ClusterOperator>;
  /** Resolves when every object has been listed once (never, when stopped first). */
  readonly whenSynced: Promise<void>;
  private readonly transport: KubeTransport;
  /** Aborted by stop(): every request of this guest in flight ends at once. */
  private readonly stopping = new AbortController();
  private stopped = false;

  /**
   * Throws GuestInputError when the kubeconfig cannot be used (naming `source`, never quoting credentials).
   * `onHealth` is told when the guest starts failing, answers again, or a first listing arrives. `clusterOperatorName`
   * is the coordinator's own ClusterOperator in the guest (the one object of that kind it watches). `firstListings`:
   * the replica's places for guests in their first listing (FIRST_LISTINGS); none: listed at once.
   */
  constructor(readonly kubeconfigText: string, source: string, identity: string, fence: () => void,
    onHealth: () => void, tuning: GuestTuning, clusterOperatorName: string, metrics: Registry | undefined, logger: Logger,
    firstListings?: FairTurns) {
    let untrusted: ClusterAccess | undefined;
    try {
      untrusted = readUntrustedKubeconfigText(kubeconfigText, source, {
        allowInsecureSkipTLSVerify: tuning.allowInsecureSkipTLSVerify === true,
      });
    } catch (e) {
      throw new GuestInputError((e as Error).message);
    }
    // HTTP/2 where the guest agrees, as the rest of the project: a guest's watches and writes share one TLS connection
    // (on HTTP/1.1 each watch held one of its own), which with hundreds of live guests is a replica's memory, its idle
    // CPU and its take-over handshakes (docs/hosted.md § "Guests over HTTP/2").
    const access = withTransportConfig(untrusted, {
      userAgent: guestUserAgent(identity), ...(tuning.requestTimeoutMs !== undefined ? { timeoutMs: tuning.requestTimeoutMs } : {}),
    });
    this.access = access;
    this.transport = KubeTransport.for(access);
    // Every list of a guest is of one named object: its answer is never larger than one object may be.
    const bounds = { signal: this.stopping.signal, maxListBytes: MAX_OBJECT_BYTES };
    // A write passes the shard's fence and is not sent to a guest whose lists or watches fail now (its last
    // copies may be stale): the guest answering again wakes every controller of its engagement.
    const writes = {
      fence: () => {
        fence();
        if (this.failing()) throw new TerminalError(this.notReadyReason(), { reason: 'GuestUnreachable' });
      },
      ...bounds,
    };
    this.featureGate = new ResourceClient(access, FeatureGateResource, metrics, writes);
    this.clusterOperator = new ResourceClient(access, ClusterOperatorResource, metrics, writes);
    let failedFirst!: () => void;
    const firstFailure = new Promise<void>((resolve) => { failedFirst = resolve; });
    const options = {
      logger, ...(metrics ? { metrics } : {}),
      backoffInitialMs: tuning.backoffInitialMs ?? 1_000, backoffMaxMs: tuning.backoffMaxMs ?? DEFAULT_GUEST_BACKOFF_MAX_MS,
      relistIntervalMs: tuning.relistIntervalMs ?? GUEST_RELIST_MS, watchTimeoutSeconds: tuning.watchTimeoutSeconds ?? GUEST_WATCH_SECONDS,
      onFailing: () => { failedFirst(); onHealth(); }, onRecovered: onHealth, maxEventRate: GUEST_EVENT_RATE,
    };
    this.featureGates = new Reflector(this.featureGate, { ...options, name: FEATURE_GATE_NAME });
    this.clusterVersions = new Reflector(new ResourceClient(access, GuestClusterVersionResource, metrics, bounds), {
      ...options,
      name: CLUSTER_VERSION_NAME,
    });
    this.clusterOperators = new Reflector(this.clusterOperator, { ...options, name: clusterOperatorName });
    // ClusterVersion first: while the guest cannot be reached only that one reflector tries (one connection
    // attempt per backoff step, not three); the others start once the guest has answered.
    // Each first listing is reported even when it lists nothing (no listener hears an empty one).
    void this.clusterVersions.synced.then(() => {
      if (this.stopped) return;
      this.featureGates.start();
      this.clusterOperators.start();
      onHealth();
    });
    this.whenSynced = Promise.all(this.reflectors().map((r) => r.synced)).then(() => undefined);
    void this.whenSynced.then(() => { if (!this.stopped) onHealth(); });
    // The place is given back once every object is listed, the guest fails or stops, or (the places' own bound, on
    // their clock) holdMs passed.
    const stopped = new Promise<void>((resolve) => this.stopping.signal.addEventListener('abort', () => resolve(), { once: true }));
    const listFirst = async () => {
      if (this.stopped) return;
      this.clusterVersions.start();
      await Promise.race([this.whenSynced, firstFailure, stopped]);
    };
    if (firstListings) firstListings.ask(listFirst);
    else void listFirst();
  }

  get server(): string {
    return this.access.getCurrentCluster()?.server ?? '(no server)';
  }

  private reflectors(): Reflector<{ metadata: { name?: string } }>[] {
    return [this.featureGates, this.clusterVersions, this.clusterOperators] as Reflector<{ metadata: { name?: string } }>[];
  }

  /** Try the guest again now (its HostedControlPlane changed: it may be back). */
  retryNow(): void {
    for (const r of this.reflectors()) r.retryNow();
  }

  /** Every object listed at least once. */
  synced(): boolean {
    return this.reflectors().every((r) => r.hasSynced());
  }

  /** Listed, and no list/watch failing right now (a guest that went away keeps its last copies but is not written to). */
  healthy(): boolean {
    return this.synced() && this.reflectors().every((r) => r.lastError() === undefined);
  }

  /** The response bytes read from this guest so far (its transport's count). */
  bytesRead(): number {
    return this.transport.bytesRead;
  }

  /** A list or watch of the guest is failing now (its reflectors retry on their own backoff and say when it answers). */
  failing(): boolean {
    return this.reflectors().some((r) => r.lastError() !== undefined);
  }

  /** Why the guest's objects are not readable yet, naming the API that failed. */
  notReadyReason(): string {
    const parts: string[] = [];
    const say = (what: string, r: Reflector<{ metadata: { name?: string } }>) => {
      const err = r.lastError();
      if (r.hasSynced() && err === undefined) return;
      if (err?.includes('HTTP 404')) parts.push(`the guest does not serve ${what} (is its CRD installed?)`);
      else parts.push(`${what}: ${err ?? 'not read yet'}`);
    };
    say('clusterversions.config.openshift.io', this.clusterVersions);
    if (this.clusterVersions.hasSynced()) {
      say('featuregates.config.openshift.io', this.featureGates);
      say('clusteroperators.config.openshift.io', this.clusterOperators);
    }
    return `guest API ${this.server}: ${parts.join('; ')}`;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort(new Error('guest session stopped'));
    await Promise.all(this.reflectors().map((r) => r.stop()));
    this.transport.close();
  }
}
