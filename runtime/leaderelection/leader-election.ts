// A Lease leader elector with client-go's guarantees and one more: writes are fenced.
//  - Timing: lease 15 s, renew deadline 10 s, retry 2 s by default (configurable; validated as client-go
//    does: lease > renew deadline > retry period).
//  - API errors at acquire or renew are logged and retried every retry period; never fatal.
//  - Leadership is judged on this process's monotonic clock from the start of its last successful renew:
//    isLeader() is false as soon as the renew deadline has passed, even if the process was paused and no
//    timer has run yet — so every write fenced by it stops on time. When the renew loop wakes past the
//    deadline it steps down without sending anything.
//  - A leader never renews a Lease whose holder is someone else: it has lost, and steps down.
//  - Followers judge expiry by their own observation of the last change to the lease record (never the
//    holder's timestamps). A change is dated to the previous look when that look was recent (at most half
//    the lease/renew margin ago), else to now — so a process that wakes from a long pause does not think a
//    fresh lease is stale. A follower retries right when the lease it watches expires.
//  - Release on shutdown writes an empty holder (only while still leader) so a follower takes over at once.
//  - A leader renews by writing its last record back (client-go's fast path: one request, no read); a 409
//    or any error falls back to reading the Lease first.
// `leader_election_master_status{name}` is 1 while leading; `featuregates_lease_renewal_delay_seconds` says how long
// after it was due each successful renewal was answered (a late wake-up — a busy or CPU-throttled process — plus the
// request): at renew deadline − renew interval the holder steps down.
import type { ClusterAccess } from '../rest/kube-config.js';
import type { Registry } from 'prom-client';
import { NotLeaderError, apiErrorMessage, isConflict } from '../rest/api-errors.js';
import { realClock, type Clock } from '../util/clock.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../rest/kube-transport.js';
import { kubeLeaseStore, microTime, type Lease, type LeaseStore } from './lease-store.js';
import { silentLogger, type Logger } from '../log/logger.js';
import { gauge, histogram } from '../metrics/metrics.js';

export interface LeaderElectionTiming {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** client-go / controller-runtime defaults. */
export const DEFAULT_LEADER_ELECTION: LeaderElectionTiming = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };
/** OpenShift's (library-go LeaderElectionDefaulting): rides out ~78 s of kube-apiserver downtime. */
export const OPENSHIFT_LEADER_ELECTION: LeaderElectionTiming = {
  leaseDurationMs: 137_000,
  renewDeadlineMs: 107_000,
  retryPeriodMs: 26_000,
};
/** OpenShift's single-node timing (LeaderElectionSNOConfig): ~180 s of downtime. */
export const OPENSHIFT_SNO_LEADER_ELECTION: LeaderElectionTiming = {
  leaseDurationMs: 270_000,
  renewDeadlineMs: 240_000,
  retryPeriodMs: 60_000,
};

/** Throws when the timing cannot guarantee a single writer (as client-go's NewLeaderElector refuses it). */
export function validateLeaderElectionTiming(t: LeaderElectionTiming): void {
  if (!(t.leaseDurationMs > t.renewDeadlineMs)) {
    throw new Error(`leader election: lease duration (${t.leaseDurationMs / 1000}s) must be greater than the renew deadline (${t.renewDeadlineMs / 1000}s)`);
  }
  if (!(t.renewDeadlineMs > t.retryPeriodMs * 1.2)) {
    throw new Error(`leader election: renew deadline (${t.renewDeadlineMs / 1000}s) must be greater than 1.2 × the retry period (${t.retryPeriodMs / 1000}s)`);
  }
  if (t.retryPeriodMs < 1 || t.leaseDurationMs % 1000 !== 0) {
    throw new Error('leader election: the retry period must be positive and the lease duration whole seconds');
  }
}

/** The timing of an elector's options, defaulted and validated (throws as the constructor would). */
export function electorTiming(o: Partial<LeaderElectionTiming> & { renewIntervalMs?: number }):
  { timing: LeaderElectionTiming; renewIntervalMs: number } {
  const t = {
    leaseDurationMs: o.leaseDurationMs ?? DEFAULT_LEADER_ELECTION.leaseDurationMs,
    renewDeadlineMs: o.renewDeadlineMs ?? DEFAULT_LEADER_ELECTION.renewDeadlineMs,
    retryPeriodMs: o.retryPeriodMs ?? DEFAULT_LEADER_ELECTION.retryPeriodMs,
  };
  validateLeaderElectionTiming(t);
  const renewIntervalMs = o.renewIntervalMs ?? t.retryPeriodMs;
  if (renewIntervalMs < t.retryPeriodMs || renewIntervalMs + t.retryPeriodMs >= t.renewDeadlineMs) {
    throw new Error(`leader election: the renew interval (${renewIntervalMs / 1000}s) must be at least the retry period and leave one retry before the renew deadline`);
  }
  return { timing: t, renewIntervalMs };
}

export interface LeaderElectorOptions extends Partial<LeaderElectionTiming> {
  namespace: string;
  name: string;
  identity: string;
  /** Bound on each Lease request (default 10 s; a renew is also bounded by the time left to its deadline). */
  requestTimeoutMs?: number;
  metrics?: Registry;
  logger?: Logger;
  /**
   * Called once when leadership is lost (not on release), with why (LeadershipLoss). The operator stops and
   * exits non-zero here.
   */
  onStoppedLeading?: (reason: string, cause: LeadershipLoss) => void;
  /** Where the Lease lives (default: the API server through kc). */
  store?: LeaseStore;
  clock?: Clock;
  /** Wall clock for the Lease's timestamps (informational: nobody judges expiry by them). */
  wallClock?: () => Date;
  random?: () => number;
  /**
   * What this process already saw of the Lease, and when (on `clock`): a caller that watched the record
   * before making the elector (the hosted shard manager lists every Lease each retry period) passes it, so
   * expiry is judged from that first sight instead of from the elector's own first read. Only this process's
   * own observation may be passed: the rule stays "never judge by the holder's timestamps".
   */
  observedSince?: { lease: Lease; at: number };
  /**
   * How often the holder renews while renewals succeed (default: the retry period, as client-go). A longer
   * interval — at least one retry period must still fit before the renew deadline — cuts Lease writes; a
   * failed renewal is retried every retry period until the deadline.
   */
  renewIntervalMs?: number;
  /**
   * Told every time the horizon of isLeader() moves: after each successful acquire or renewal (the monotonic time on
   * `clock` until which this process leads, and how late the renewal was answered, seconds), and -Infinity when
   * leadership ends (lost or released). The lease thread publishes it to the threads that fence writes.
   */
  onHorizon?: (leadsUntil: number, renewalDelayS?: number) => void;
}

/** What the operator and the shard manager hold a Lease through: this file's LeaderElector, or one on the lease thread. */
export interface Elector {
  readonly timing: LeaderElectionTiming;
  isLeader(): boolean;
  fence(): void;
  acquire(signal?: AbortSignal): Promise<void>;
  release(): Promise<void>;
}

/**
 * Why leadership ended: no successful renewal within the renew deadline while the Lease has not expired yet
 * (nobody else can have taken it: a busy process whose renewals came late), no renewal for a whole lease
 * duration (a long pause or partition: others may have taken over), or the Lease now names another holder
 * (or is gone).
 */
export type LeadershipLoss = 'renew-deadline' | 'expired' | 'taken';

class LostLeadership extends Error {}

/** How long after it was due each successful renewal was answered, by every elector of the process (seconds). */
export function renewalDelayHistogram(registry: Registry) {
  return histogram(registry, 'featuregates_lease_renewal_delay_seconds',
    'How long after it was due each successful Lease renewal was answered: the wake-up\'s lateness (a busy or CPU-throttled process) plus the request',
    [], [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8]).labels({});
}

/** `leader_election_master_status{name}` (client-go's): 1 while this process leads the Lease. */
export function leaderStatusGauge(registry: Registry, name: string) {
  return gauge(registry, 'leader_election_master_status',
    'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.', ['name']).labels({ name });
}

export class LeaderElector implements Elector {
  private readonly store: LeaseStore;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly t: LeaderElectionTiming;
  private readonly requestTimeoutMs: number;
  private readonly renewIntervalMs: number;
  private readonly stop = new AbortController();
  /** The last change of the lease record we saw, and when (monotonic) we date it. */
  private observed: { key: string; at: number; durationMs: number } | undefined;
  private lastPollAt: number | undefined;
  private lease: Lease | undefined;
  private leading = false;
  private lost = false;
  /** Monotonic start of the last successful acquire/renew. */
  private lastRenewAt = -Infinity;
  private renewing: Promise<void> | undefined;
  private readonly status;
  private readonly renewalDelay;

  constructor(kc: ClusterAccess | undefined, private readonly options: LeaderElectorOptions) {
    ({ timing: this.t, renewIntervalMs: this.renewIntervalMs } = electorTiming(options));
    if (!options.store && !kc) throw new Error('LeaderElector needs a KubeConfig or a LeaseStore');
    this.store = options.store ?? kubeLeaseStore(kc!, options.namespace, options.name, options.metrics);
    this.clock = options.clock ?? realClock;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.log = (options.logger ?? silentLogger).with({ lease: `${options.namespace}/${options.name}`, identity: options.identity });
    this.status = options.metrics && leaderStatusGauge(options.metrics, options.name);
    this.status?.set(0);
    this.renewalDelay = options.metrics && renewalDelayHistogram(options.metrics);
    const seen = options.observedSince;
    if (seen) {
      this.observed = {
        key: this.recordKey(seen.lease),
        at: seen.at,
        durationMs: (seen.lease.spec?.leaseDurationSeconds ?? this.t.leaseDurationMs / 1000) * 1000,
      };
    }
  }

  get timing(): LeaderElectionTiming {
    return { ...this.t };
  }

  /** True only while leading and the last successful renew started less than the renew deadline ago. */
  isLeader(): boolean {
    return this.leading && !this.lost && this.clock.now() - this.lastRenewAt < this.t.renewDeadlineMs;
  }

  /** Throws NotLeaderError unless isLeader(): call it synchronously right before every write. */
  fence(): void {
    if (!this.isLeader()) {
      throw new NotLeaderError(`not the leader of Lease ${this.options.namespace}/${this.options.name}: write refused`);
    }
  }

  /** Resolves once this process holds the lease; then renews it in the background. Errors are retried. */
  async acquire(signal?: AbortSignal): Promise<void> {
    this.log.info('attempting to acquire leader lease');
    const aborted = () => this.stop.signal.aborted || signal?.aborted === true;
    const wake = signal ? AbortSignal.any([this.stop.signal, signal]) : this.stop.signal;
    while (!aborted()) {
      try {
        if (await this.tryAcquireOrRenew(this.requestTimeoutMs)) {
          if (aborted()) break;
          this.leading = true;
          this.status?.set(1);
          this.options.onHorizon?.(this.lastRenewAt + this.t.renewDeadlineMs);
          this.log.info('successfully acquired lease');
          this.renewing = this.renewLoop();
          return;
        }
      } catch (e) {
        this.log.warn('error retrieving or updating the leader Lease; retrying', { error: apiErrorMessage(e), retryInMs: this.t.retryPeriodMs });
      }
      await this.clock.sleep(this.nextAttemptDelay(), wake);
    }
    throw new Error('leader election stopped before the lease was acquired');
  }

  /** Stops renewing and, if still leader, gives the lease up so another replica takes over at once. */
  async release(): Promise<void> {
    const wasLeader = this.isLeader();
    this.options.onHorizon?.(-Infinity);
    this.stop.abort();
    await this.renewing;
    if (!this.leading) return;
    this.leading = false;
    this.status?.set(0);
    if (!wasLeader || this.lost || !this.lease?.spec) return;
    try {
      const now = microTime(this.wallClock());
      await this.store.update({ ...this.lease, spec: { ...this.lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now, acquireTime: now } }, this.requestTimeoutMs);
      this.log.info('released leader lease');
    } catch (e) {
      this.log.warn('could not release leader lease', { error: apiErrorMessage(e) });
    }
  }

  private wallClock(): Date {
    return this.options.wallClock?.() ?? new Date();
  }

  /** The retry period (+0–10 % jitter), or less when the observed lease expires sooner. */
  private nextAttemptDelay(): number {
    const retry = this.t.retryPeriodMs * (1 + (this.options.random ?? Math.random)() * 0.1);
    if (!this.observed) return retry;
    const untilExpiry = this.observed.at + this.observed.durationMs - this.clock.now() + 20;
    return Math.max(0, Math.min(retry, untilExpiry));
  }

  /**
   * Renews a renew interval after the *start* of the last successful renewal (so an answer that came late does
   * not shorten the next attempt's time to the deadline), and after a failed attempt every retry period
   * until the deadline.
   */
  private async renewLoop(): Promise<void> {
    const missed = `failed to renew the lease within the renew deadline (${this.t.renewDeadlineMs / 1000}s)`;
    // Due a renew interval after the start of the last successful renewal.
    const untilDue = () => Math.max(0, this.lastRenewAt + this.renewIntervalMs - this.clock.now());
    let wait = untilDue();
    while (!this.stop.signal.aborted) {
      const dueAt = this.clock.now() + wait;
      await this.clock.sleep(wait, this.stop.signal);
      if (this.stop.signal.aborted) return;
      const left = this.lastRenewAt + this.t.renewDeadlineMs - this.clock.now();
      if (left <= 0) return this.lose(missed, this.missedCause());
      const renewedBefore = this.lastRenewAt;
      wait = this.t.retryPeriodMs;
      try {
        await this.tryAcquireOrRenew(Math.min(this.requestTimeoutMs, left));
        if (this.lastRenewAt !== renewedBefore) {
          const delayS = Math.max(0, this.clock.now() - dueAt) / 1000;
          this.renewalDelay?.observe(delayS);
          this.options.onHorizon?.(this.lastRenewAt + this.t.renewDeadlineMs, delayS);
          wait = untilDue();
        }
      } catch (e) {
        if (e instanceof LostLeadership) return this.lose(e.message, 'taken');
        if (this.stop.signal.aborted) return;
        this.log.warn('failed to renew the leader Lease; retrying', { error: apiErrorMessage(e), deadlineInMs: Math.round(left) });
      }
      if (this.clock.now() - this.lastRenewAt >= this.t.renewDeadlineMs) return this.lose(missed, this.missedCause());
    }
  }

  /** A missed deadline: the Lease not yet expired (judged from the start of the last successful renewal), or expired. */
  private missedCause(): LeadershipLoss {
    return this.clock.now() - this.lastRenewAt < this.t.leaseDurationMs ? 'renew-deadline' : 'expired';
  }

  private lose(reason: string, cause: LeadershipLoss): void {
    if (this.lost) return;
    this.lost = true;
    this.leading = false;
    this.options.onHorizon?.(-Infinity);
    this.status?.set(0);
    this.log.error('leader election lost', { reason });
    this.options.onStoppedLeading?.(reason, cause);
  }

  /** Records what we saw of the lease at monotonic time `at`. */
  private observe(lease: Lease, at: number, ours: boolean): void {
    const key = this.recordKey(lease);
    const durationMs = (lease.spec?.leaseDurationSeconds ?? this.t.leaseDurationMs / 1000) * 1000;
    if (ours || !this.observed || this.observed.key !== key) {
      const safeGap = Math.min(this.t.retryPeriodMs * 1.25, (this.t.leaseDurationMs - this.t.renewDeadlineMs) / 2);
      const datedEarlier = !ours && this.lastPollAt !== undefined && at - this.lastPollAt <= safeGap;
      this.observed = { key, at: datedEarlier ? this.lastPollAt! : at, durationMs };
    }
    this.lastPollAt = at;
  }

  /** One attempt; true when this process now holds (or renewed) the lease, false when someone else does. */
  private async tryAcquireOrRenew(timeoutMs: number): Promise<boolean> {
    const { identity } = this.options;
    const started = this.clock.now();
    const deadline = started + timeoutMs;
    const remaining = () => Math.max(1, deadline - this.clock.now());
    const leaseSeconds = Math.round(this.t.leaseDurationMs / 1000);
    const now = microTime(this.wallClock());
    if (this.leading && this.lease?.spec?.holderIdentity === identity) {
      // client-go's fast path: the leader renews the record it wrote last, without reading it first. The
      // write carries that record's resourceVersion, so if anyone wrote since, it is refused (409) and the
      // slow path below reads the Lease and judges it.
      try {
        const renewed = { ...this.lease, spec: { ...this.lease.spec, leaseDurationSeconds: leaseSeconds, renewTime: now } };
        if (await this.write(started, () => this.store.update(renewed, remaining()))) return true;
      } catch (e) {
        this.log.debug('optimistic renew failed; reading the Lease', { error: apiErrorMessage(e) });
      }
    }
    const current = await this.store.get(remaining());
    if (this.stop.signal.aborted) return false;
    if (!current) {
      if (this.leading) throw new LostLeadership('the Lease was deleted while this process held it');
      return this.write(started, () => this.store.create({
        metadata: { name: this.options.name, namespace: this.options.namespace },
        spec: { holderIdentity: identity, leaseDurationSeconds: leaseSeconds, acquireTime: now, renewTime: now, leaseTransitions: 0 },
      }, remaining()));
    }
    this.observe(current, this.clock.now(), false);
    const spec = current.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    if (this.leading && holder !== identity) {
      throw new LostLeadership(`the Lease is now held by ${holder ? JSON.stringify(holder) : 'nobody'}`);
    }
    const o = this.observed!;
    if (!this.leading && holder !== '' && holder !== identity && o.at + o.durationMs > this.clock.now()) return false;
    const next: Lease = {
      ...current,
      spec: {
        ...spec,
        holderIdentity: identity,
        leaseDurationSeconds: leaseSeconds,
        renewTime: now,
        acquireTime: holder === identity && spec.acquireTime ? spec.acquireTime : now,
        leaseTransitions: holder === identity ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + 1,
      },
    };
    return this.write(started, () => this.store.update(next, remaining()));
  }

  /** A create or update of the Lease that started at `started`: false on 409 (someone else wrote first). */
  private async write(started: number, send: () => Promise<Lease>): Promise<boolean> {
    try {
      this.lease = await send();
    } catch (e) {
      if (isConflict(e)) return false;
      throw e;
    }
    this.lastRenewAt = started;
    this.observe(this.lease, this.clock.now(), true);
    return true;
  }

  private recordKey(lease: Lease): string {
    const s = lease.spec ?? {};
    return JSON.stringify([s.holderIdentity, s.renewTime, s.acquireTime, s.leaseDurationSeconds, s.leaseTransitions]);
  }
}
