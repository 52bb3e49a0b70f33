// A Lease leader elector with client-go semantics: lease 15 s, renew deadline 10 s, retry 2 s; expiry is
// judged by the locally observed time of the last change to the lease (not the holder's clock), and a
// follower retries right when the lease it watches expires, so it takes over ~15 s after a crash; writes
// carry the lease's resourceVersion, so a 409 means someone else won; leaseTransitions counts holder
// changes; release on shutdown empties the holder. `leader_election_master_status{name}` is 1 while
// leading.
import { CoordinationV1Api, V1MicroTime, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import { isConflict, isNotFound, apiErrorMessage } from './api-errors.js';
import { silentLogger, type Logger } from './logger.js';
import { countedRequest, gauge } from './metrics.js';

export interface LeaderElectorOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  metrics?: Registry;
  logger?: Logger;
  /** Called once when leadership is lost (not on release). The operator exits here. */
  onStoppedLeading?: () => void;
}

function timeOf(v: unknown): number {
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'string') return Date.parse(v);
  return 0;
}

export class LeaderElector {
  private readonly api: CoordinationV1Api;
  private readonly log: Logger;
  private readonly leaseMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryMs: number;
  private observed: { key: string; at: number } | undefined;
  private observedDurationMs = 15_000;
  private lastPollAt: number | undefined;
  private lease: V1Lease | undefined;
  private leading = false;
  private stopped = false;
  private renewTimer: NodeJS.Timeout | undefined;
  private readonly status;

  constructor(kc: KubeConfig, private readonly options: LeaderElectorOptions) {
    this.api = kc.makeApiClient(CoordinationV1Api);
    this.log = (options.logger ?? silentLogger).with({ lease: `${options.namespace}/${options.name}`, identity: options.identity });
    this.leaseMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryMs = options.retryPeriodMs ?? 2_000;
    this.status = options.metrics
      ? gauge(options.metrics, 'leader_election_master_status', 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.', ['name']).labels({ name: options.name })
      : undefined;
    this.status?.set(0);
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** Resolves once this process holds the lease; then renews it in the background. */
  async acquire(signal?: AbortSignal): Promise<void> {
    this.log.info('attempting to acquire leader lease');
    while (!this.stopped && !signal?.aborted) {
      if (await this.tryAcquireOrRenew()) {
        this.leading = true;
        this.status?.set(1);
        this.log.info('successfully acquired lease');
        this.scheduleRenew(Date.now());
        return;
      }
      await new Promise((r) => setTimeout(r, this.nextAttemptDelay()));
    }
    throw new Error('leader election stopped before the lease was acquired');
  }

  /** Stops renewing and, if leading, gives the lease up so another replica takes over at once. */
  async release(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.renewTimer);
    if (!this.leading || !this.lease?.spec) return;
    this.leading = false;
    this.status?.set(0);
    try {
      const lease = structuredClone(this.lease);
      lease.spec = { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: new V1MicroTime(), acquireTime: new V1MicroTime() };
      await this.request('PUT', () => this.api.replaceNamespacedLease({ name: this.options.name, namespace: this.options.namespace, body: lease }));
      this.log.info('released leader lease');
    } catch (e) {
      this.log.warn('could not release leader lease', { error: apiErrorMessage(e) });
    }
  }

  /** The retry period, or less when the observed lease expires sooner (take over on time, not a poll later). */
  private nextAttemptDelay(): number {
    const retry = this.retryMs * (1 + Math.random() * 0.1);
    if (!this.observed) return retry;
    const untilExpiry = this.observed.at + this.observedDurationMs - Date.now() + 20;
    return Math.max(0, Math.min(retry, untilExpiry));
  }

  private request<T>(method: string, call: () => Promise<T>): Promise<T> {
    return countedRequest(this.options.metrics, method, 'leases', call);
  }

  private scheduleRenew(lastRenew: number): void {
    this.renewTimer = setTimeout(async () => {
      if (this.stopped) return;
      let ok = false;
      try {
        ok = await this.tryAcquireOrRenew();
      } catch (e) {
        this.log.warn('lease renewal failed', { error: apiErrorMessage(e) });
      }
      if (this.stopped) return;
      if (ok) {
        this.scheduleRenew(Date.now());
      } else if (Date.now() - lastRenew >= this.renewDeadlineMs) {
        this.leading = false;
        this.status?.set(0);
        this.log.error('leader election lost');
        this.options.onStoppedLeading?.();
      } else {
        this.scheduleRenew(lastRenew);
      }
    }, this.retryMs);
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { namespace, name, identity } = this.options;
    const now = new V1MicroTime();
    const leaseSeconds = Math.round(this.leaseMs / 1000);
    let current: V1Lease;
    try {
      current = await this.request('GET', () => this.api.readNamespacedLease({ name, namespace }));
    } catch (e) {
      if (!isNotFound(e)) throw e;
      try {
        this.lease = await this.request('POST', () => this.api.createNamespacedLease({
          namespace,
          body: {
            metadata: { name, namespace },
            spec: { holderIdentity: identity, leaseDurationSeconds: leaseSeconds, acquireTime: now, renewTime: now, leaseTransitions: 0 },
          },
        }));
        this.observed = { key: this.recordKey(this.lease), at: Date.now() };
        return true;
      } catch (err) {
        if (isConflict(err)) return false;
        throw err;
      }
    }
    const key = this.recordKey(current);
    const polledAt = Date.now();
    // The holder changed the lease some time after our previous look; dating the change to that look
    // is safe because a holder that cannot renew steps down after renewDeadline (< leaseDuration).
    if (!this.observed || this.observed.key !== key) this.observed = { key, at: this.lastPollAt ?? polledAt };
    this.lastPollAt = polledAt;
    const spec = current.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const duration = (spec.leaseDurationSeconds ?? leaseSeconds) * 1000;
    this.observedDurationMs = duration;
    if (holder !== '' && holder !== identity && this.observed.at + duration > Date.now()) return false;
    const next = structuredClone(current);
    next.spec = {
      ...spec,
      holderIdentity: identity,
      leaseDurationSeconds: leaseSeconds,
      renewTime: now,
      acquireTime: holder === identity ? new V1MicroTime(timeOf(spec.acquireTime) || Date.now()) : now,
      leaseTransitions: holder === identity ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + 1,
    };
    try {
      this.lease = await this.request('PUT', () => this.api.replaceNamespacedLease({ name, namespace, body: next }));
      this.observed = { key: this.recordKey(this.lease), at: Date.now() };
      return true;
    } catch (e) {
      if (isConflict(e)) return false;
      throw e;
    }
  }

  private recordKey(lease: V1Lease): string {
    const s = lease.spec ?? {};
    return JSON.stringify([s.holderIdentity, timeOf(s.renewTime), timeOf(s.acquireTime), s.leaseDurationSeconds, s.leaseTransitions]);
  }
}
