// One guest cluster's connection, from the kubeconfig text its Secret holds: the guest's own pooled
// transport (every request bounded by a timeout), typed clients whose writes pass the shard's fence, and
// reflectors of FeatureGate/cluster and ClusterVersion/version (two watch connections per guest; the
// coordinator's ClusterOperator, which only it writes, is read when a sync needs it). The reflectors back off on their own (a guest that is down costs a refused connection per backoff step and
// never touches another guest). The kubeconfig is untrusted data (readUntrustedKubeconfigText: inline
// credentials, https only, nothing read from this process's disk); credentials live only in memory, in the
// ClusterAccess. Every request is bounded — one deadline per call, lists and events of one object at most
// MAX_OBJECT_BYTES — and stop() aborts whatever is in flight.
import type { Registry } from 'prom-client';
import { CLUSTER_VERSION_NAME, FEATURE_GATE_NAME, type ClusterOperator, type ClusterVersion, type FeatureGate } from '../api-types/index.js';
import {
  ClusterOperatorResource, ClusterVersionResource, FeatureGateResource, KubeTransport, MAX_OBJECT_BYTES, Reflector, ResourceClient, isNotFound,
  readUntrustedKubeconfigText, userAgent,
  type ClusterAccess, type Logger,
} from '../runtime/index.js';

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
  /** How often a session syncs when nothing told it to (default 60 s). */
  resyncMs?: number;
  /** Accept guest kubeconfigs with insecure-skip-tls-verify (test set-ups; --allow-insecure-guest-tls). */
  allowInsecureSkipTLSVerify?: boolean;
}

/** The User-Agent of guest requests: names the replica, so a guest's audit log says which one wrote. */
export function guestUserAgent(identity: string): string {
  return `${userAgent('featuregates-hosted')} replica/${identity}`;
}

export const DEFAULT_GUEST_BACKOFF_MAX_MS = 3 * 60_000;

export class GuestInputError extends Error {
  override name = 'GuestInputError';
}

export class GuestConnection {
  readonly access: ClusterAccess;
  readonly featureGate: ResourceClient<FeatureGate>;
  readonly clusterOperator: ResourceClient<ClusterOperator>;
  readonly featureGates: Reflector<FeatureGate>;
  readonly clusterVersions: Reflector<ClusterVersion>;
  private readonly transport: KubeTransport;
  /** Aborted by stop(): every request of this guest in flight ends at once. */
  private readonly stopping = new AbortController();
  private stopped = false;

  /** Throws GuestInputError when the kubeconfig cannot be used (naming `source`, never quoting credentials). */
  constructor(readonly kubeconfigText: string, source: string, identity: string, fence: () => void,
    onChange: () => void, tuning: GuestTuning, metrics: Registry | undefined, logger: Logger) {
    let access: ClusterAccess | undefined;
    try {
      access = readUntrustedKubeconfigText(kubeconfigText, source, { allowInsecureSkipTLSVerify: tuning.allowInsecureSkipTLSVerify === true });
    } catch (e) {
      throw new GuestInputError((e as Error).message);
    }
    this.access = access;
    this.transport = KubeTransport.for(access);
    this.transport.userAgent = guestUserAgent(identity);
    // Guests stay on HTTP/1.1 (short watches, pooled sockets): on HTTP/2 the fleet benchmark measured ~1 MB of RSS
    // per reachable guest (0.09 MB on HTTP/1.1) and a slower fleet start, not yet explained (docs/hosted.md).
    this.transport.http2 = false;
    if (tuning.requestTimeoutMs !== undefined) this.transport.defaultTimeoutMs = tuning.requestTimeoutMs;
    // Every list of a guest is of one named object: its answer is never larger than one object may be.
    const bounds = { signal: this.stopping.signal, maxListBytes: MAX_OBJECT_BYTES };
    const writes = { fence, ...bounds };
    this.featureGate = new ResourceClient(access, FeatureGateResource, metrics, writes);
    this.clusterOperator = new ResourceClient(access, ClusterOperatorResource, metrics, writes);
    const options = {
      logger, ...(metrics ? { metrics } : {}),
      backoffInitialMs: tuning.backoffInitialMs ?? 1_000, backoffMaxMs: tuning.backoffMaxMs ?? DEFAULT_GUEST_BACKOFF_MAX_MS,
      ...(tuning.relistIntervalMs !== undefined ? { relistIntervalMs: tuning.relistIntervalMs } : {}),
      ...(tuning.watchTimeoutSeconds ? { watchTimeoutSeconds: tuning.watchTimeoutSeconds } : {}),
      onFailing: onChange, onRecovered: onChange,
    };
    this.featureGates = new Reflector(this.featureGate, { ...options, name: FEATURE_GATE_NAME });
    this.clusterVersions = new Reflector(new ResourceClient(access, ClusterVersionResource, metrics, bounds), { ...options, name: CLUSTER_VERSION_NAME });
    for (const r of this.reflectors()) r.addListener(onChange);
    // ClusterVersion first: while the guest cannot be reached only that one reflector tries (one connection
    // attempt per backoff step, not two); FeatureGate starts once the guest has answered.
    // Each first listing is reported even when it lists nothing (no listener hears an empty one).
    this.clusterVersions.start();
    void this.clusterVersions.synced.then(() => { if (!this.stopped) { this.featureGates.start(); onChange(); } });
    void this.featureGates.synced.then(() => { if (!this.stopped) onChange(); });
  }

  get server(): string {
    return this.access.getCurrentCluster()?.server ?? '(no server)';
  }

  private reflectors(): Reflector<{ metadata: { name?: string } }>[] {
    return [this.featureGates, this.clusterVersions] as Reflector<{ metadata: { name?: string } }>[];
  }

  /** The coordinator's ClusterOperator as the guest has it now (undefined: not created yet). */
  async readClusterOperator(name: string): Promise<ClusterOperator | undefined> {
    try {
      return await this.clusterOperator.get(name);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  /** Try the guest again now (its HostedControlPlane changed: it may be back). */
  retryNow(): void {
    for (const r of this.reflectors()) r.retryNow();
  }

  /** Every object listed at least once. */
  synced(): boolean {
    return this.featureGates.hasSynced() && this.clusterVersions.hasSynced();
  }

  /** Listed, and no list/watch failing right now (a guest that went away keeps its last copies but is not written to). */
  healthy(): boolean {
    return this.synced() && this.reflectors().every((r) => r.lastError() === undefined);
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
    if (this.clusterVersions.hasSynced()) say('featuregates.config.openshift.io', this.featureGates);
    return `guest API ${this.server}: ${parts.join('; ')}`;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort(new Error('guest session stopped'));
    await Promise.all(this.reflectors().map((r) => r.stop()));
    this.transport.close();
  }
}
