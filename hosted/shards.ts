// Shards of the fleet as Leases, planned over the live replicas (balanced, moving as little as it can: api-types/shard.ts).
//  - Each replica holds its own membership Lease (`featuregates-hosted-member-<identity>`) through the
//    same LeaderElector as the single-cluster operator. Membership only says who is alive, for the hashing;
//    every write is fenced by its shard's own Lease. So a renewal that came late — past the renew deadline,
//    or past the whole lease duration (a replica short of CPU, or paused: others may have judged it gone and
//    taken its shards through their Leases, which its own fences already refuse) — is not fatal: the replica
//    rejoins at once (a new elector on the same record) instead of exiting into a restart, whose start burst
//    would make the next renewal late again. A membership Lease taken by another holder (two replicas with
//    one identity) or deleted is fatal: the caller exits and the Deployment restarts the replica.
//  - Every retry period one LIST of the Leases in the namespace tells who is alive (judged on this
//    process's monotonic clock, api-types/shard.ts) and, by the shard plan over them and the shards' holders,
//    which shards this replica should own. For each, a LeaderElector on `featuregates-hosted-shard-NN` acquires it (reads only while
//    someone else holds it; expiry is judged from this replica's first sight of the record in the listings,
//    so a dead replica's shards move one lease duration after it stopped, not two); a shard it holds but
//    should no longer own is handed back: its guests are
//    stopped first (onLost), then the Lease released (empty holder), so the new owner takes it at once.
//  - A shard Lease taken by another holder (or deleted) stops its guests the same way. A renewal that only came
//    late (past the renew deadline, or the whole lease: a replica short of CPU) lapses the shard instead: its
//    guests keep their connections and caches, every write refused by the lapsed fence, and a new elector claims
//    the shard at once; when it holds the Lease again the guests go on under the new fence (onAcquired, resumed).
//    Stopping ~60 guests at each late renewal and starting them again at the reacquire was the work that made the
//    next renewals late (the 2,010-HCP fleet never settled). A lapse ends in onLost when the Lease names another
//    holder, the shard is no longer ours by the hashing, or one lease duration passes without the Lease.
//    Every write to a guest goes through its shard's fence.
// The Leases are renewed on a thread of their own when the caller gives one (runtime's LeaseThread: the coordinator
// does), so that the guests' work on this event loop cannot make a renewal late; the fences read the horizon that
// thread publishes.
// Lease writes: one per held shard and one per replica per third of a lease duration (renewInterval),
// whatever the number of HCPs.
import type { Registry } from 'prom-client';
import { MemberLiveness, isShardName, shardName, shardPlan, type MemberRecord } from '../api-types/index.js';
import {
  LeaderElector, LeaseResource, ResourceClient, apiErrorMessage, gauge, realClock, silentLogger, type Clock, type ClusterAccess,
  type Elector, type Lease, type LeaseThread, type LeaderElectionTiming, type LeaderElectorOptions, type Logger,
} from '../runtime/index.js';

export const MEMBER_LEASE_PREFIX = 'featuregates-hosted-member-';

/** A Lease name for an identity: DNS-1123 (lower case, [a-z0-9.-]), bounded. */
export function memberLeaseName(identity: string): string {
  const safe = identity.toLowerCase().replace(/[^a-z0-9.-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '') || 'replica';
  return `${MEMBER_LEASE_PREFIX}${safe}`.slice(0, 253);
}

/**
 * How often a held Lease (a shard's or the membership) is renewed while renewals succeed: every third of the
 * lease duration, as long as a retry still fits before the renew deadline (else every retry period, as
 * client-go). Followers still judge expiry by the full lease duration and the holder's fence by the renew
 * deadline, so this only thins the writes: 32 shards at 15 s are 6.4 writes a second instead of 16.
 */
export function renewInterval(t: LeaderElectionTiming): number {
  const third = Math.floor(t.leaseDurationMs / 3);
  return third >= t.retryPeriodMs && third + t.retryPeriodMs < t.renewDeadlineMs ? third : t.retryPeriodMs;
}

export interface ShardManagerOptions {
  kubeConfig: ClusterAccess;
  namespace: string;
  identity: string;
  shards: number;
  timing: LeaderElectionTiming;
  /**
   * The shard is held: its guests may be started; `fence` throws once it is not held any more. `resumed`: the shard
   * had lapsed (a late renewal) and was not given up: its guests are still running and go on under this fence.
   */
  onAcquired(shard: number, fence: () => void, resumed: boolean): void;
  /** The shard is going (handed back or lost): stop its guests; resolves when nothing of it runs. */
  onLost(shard: number): Promise<void>;
  /** The membership Lease was taken by another holder or deleted: the replica must stop (exit non-zero). */
  onLostMembership(reason: string): void;
  /** Shards may be claimed (default: always). The coordinator joins while it lists its HCPs and claims once they are listed. */
  claimable?: () => boolean;
  metrics?: Registry;
  logger?: Logger;
  clock?: Clock;
  /**
   * Where the Leases are renewed: on this thread of their own (runtime's LeaseThread; the coordinator's default), so
   * that no guest's work delays a renewal. None: on the caller's event loop.
   */
  leaseThread?: LeaseThread;
}

interface ShardElector {
  shard: number;
  elector: Elector;
  abort: AbortController;
  held: boolean;
  /** Settles when the acquire attempt (and any hand-back) is over. */
  done: Promise<void>;
}

export class ShardManager {
  private readonly log: Logger;
  private readonly clock: Clock;
  private member: Elector;
  private readonly leases: ResourceClient<Lease>;
  private readonly liveness = new MemberLiveness();
  /** Every shard Lease record as first seen unchanged (monotonic), from the listings: a new elector starts from it. */
  private readonly shardSeen = new Map<string, { lease: Lease; at: number }>();
  private readonly electors = new Map<number, ShardElector>();
  /** Shards being handed back (guests stopping, then the Lease released). */
  private readonly handingBack = new Set<ShardElector>();
  /** Shards whose renewal came late, their guests kept until the shard is held again or given up; aborting ends the grace. */
  private readonly lapsed = new Map<number, AbortController>();
  private readonly stopping = new AbortController();
  private members: string[] = [];
  /** The owner of every shard as last planned (shardPlan). */
  private plan: (string | undefined)[] = [];
  private loop: Promise<void> | undefined;
  /** Ends the wait for the next look at the Leases (nudge()). */
  private wake: AbortController | undefined;
  /** A nudge came during a look (its listing may predate the reason): the next look follows at once. */
  private nudged = false;
  private readonly heldGauge;
  private readonly membersGauge;

  constructor(private readonly o: ShardManagerOptions) {
    this.log = (o.logger ?? silentLogger).with({ identity: o.identity });
    this.clock = o.clock ?? realClock;
    this.member = this.memberElector();
    this.leases = new ResourceClient(o.kubeConfig, LeaseResource, o.metrics, { namespace: o.namespace });
    this.heldGauge = o.metrics && gauge(o.metrics, 'featuregates_hosted_shards_held', 'Shards whose Lease this replica holds', []);
    this.membersGauge = o.metrics && gauge(o.metrics, 'featuregates_hosted_members', 'Live coordinator replicas seen by this one', []);
    // The configured shard count, so that "shards held by nobody" is one expression (alert HostedShardsNotHeld).
    if (o.metrics) gauge(o.metrics, 'featuregates_hosted_shards', 'Shards the HCPs are spread over (--shards)', []).set(o.shards);
  }

  /** Joins (acquires the membership Lease), then keeps the shard set in line every retry period. */
  async start(): Promise<void> {
    await this.member.acquire(this.stopping.signal);
    this.log.info('joined the coordinator fleet', { namespace: this.o.namespace, shards: this.o.shards });
    this.loop = this.run(this.clock.now());
  }

  /**
   * The membership elector: a renewal that came late (past the renew deadline, or the Lease expired) makes a new
   * one that acquires the same record again (it still names this replica: one read and one write); a record
   * taken by another holder or deleted ends the replica.
   */
  private memberElector(): Elector {
    return this.elector(memberLeaseName(this.o.identity), {
      onStoppedLeading: (reason, cause) => {
        if (cause === 'taken') return this.o.onLostMembership(reason);
        if (this.stopping.signal.aborted) return;
        this.log.warn(cause === 'expired'
          ? 'membership not renewed for its whole Lease (others may have taken its shards; their Leases fence its writes); rejoining'
          : 'membership renewal missed its deadline before the Lease expired; rejoining (shard writes stay fenced by their own Leases)', { reason });
        this.member = this.memberElector();
        this.member.acquire(this.stopping.signal).then(
          () => this.log.info('rejoined the coordinator fleet'),
          () => undefined, /* stopping */
        );
      },
    });
  }

  /** Looks at the Leases now instead of at the next retry period (`claimable` has just become true). */
  nudge(): void {
    this.nudged = true;
    this.wake?.abort();
  }

  /** Shards held right now. */
  held(): number[] {
    return [...this.electors].filter(([, e]) => e.held && e.elector.isLeader()).map(([s]) => s).sort((a, b) => a - b);
  }

  private async run(joinedAt: number): Promise<void> {
    // Looks only observe until a retry period after joining: replicas started together (a rollout, a fresh
    // install) see each other before anyone claims, instead of each claiming every shard and handing two
    // thirds back. Then a look claims whenever the caller says shards may be claimed.
    const period = this.o.timing.retryPeriodMs;
    while (!this.stopping.signal.aborted) {
      const observing = this.clock.now() - joinedAt < period;
      this.nudged = false;
      try {
        await this.tick(!observing && (this.o.claimable?.() ?? true));
      } catch (e) {
        this.log.warn('could not list the coordinator Leases; keeping the current shards', { error: apiErrorMessage(e) });
      }
      this.wake = new AbortController();
      const wait = observing ? Math.max(0, joinedAt + period - this.clock.now()) : this.nudged ? 0 : period;
      await this.clock.sleep(wait, AbortSignal.any([this.stopping.signal, this.wake.signal]));
    }
  }

  /** One look at the Leases: who is alive, which shards are ours, acquire or hand back. */
  async tick(claim = true): Promise<void> {
    const { items } = await this.leases.list();
    const records = new Map<string, MemberRecord>();
    const now = this.clock.now();
    for (const l of items) {
      const name = l.metadata.name;
      if (isShardName(name)) {
        if (this.shardSeen.get(name)?.lease.metadata.resourceVersion !== l.metadata.resourceVersion)
          this.shardSeen.set(name, { lease: l, at: now });
        continue;
      }
      if (!name.startsWith(MEMBER_LEASE_PREFIX)) continue;
      records.set(name, {
        holder: l.spec?.holderIdentity ?? '',
        version: `${l.metadata.resourceVersion ?? ''}/${l.spec?.renewTime ?? ''}`,
        leaseDurationMs: (l.spec?.leaseDurationSeconds ?? this.o.timing.leaseDurationMs / 1000) * 1000,
      });
    }
    const live = this.liveness.observe(records, now);
    if (!live.includes(this.o.identity) && this.member.isLeader()) live.push(this.o.identity);
    live.sort();
    if (live.join(',') !== this.members.join(',')) this.log.info('coordinator members', { members: live });
    this.members = live;
    this.membersGauge?.set(live.length);
    for (const s of [...this.lapsed.keys()]) {
      const holder = this.shardSeen.get(shardName(s))?.lease.spec?.holderIdentity;
      if (holder && holder !== this.o.identity) void this.giveUpLapsed(s, `its Lease is held by ${holder} now`);
    }
    // Who holds each shard: this replica's own electors know its shards; the listing tells the others'.
    const holders = new Map<number, string>();
    for (let s = 0; s < this.o.shards; s++) {
      const holder = this.electors.get(s)?.held ? this.o.identity : this.shardSeen.get(shardName(s))?.lease.spec?.holderIdentity;
      if (holder) holders.set(s, holder);
    }
    this.plan = shardPlan(this.o.shards, live, holders);
    for (let s = 0; s < this.o.shards && claim; s++) {
      const ours = this.plan[s] === this.o.identity;
      const e = this.electors.get(s);
      if (ours && !e && !this.isHandingBack(s)) this.claim(s);
      else if (!ours && e) this.handBack(s, e, 'another replica owns it now');
      if (!ours) void this.giveUpLapsed(s, 'another replica owns it now');
    }
    this.heldGauge?.set(this.held().length);
  }

  /** An elector of one of this replica's Leases (its membership or a shard), renewed every renewInterval. */
  private elector(name: string, extra: Pick<LeaderElectorOptions, 'observedSince' | 'onStoppedLeading'>): Elector {
    const o = this.o;
    const options: LeaderElectorOptions = {
      namespace: o.namespace, name, identity: o.identity, ...o.timing, renewIntervalMs: renewInterval(o.timing),
      ...(o.metrics ? { metrics: o.metrics } : {}), logger: this.log, clock: this.clock, ...extra,
    };
    return o.leaseThread ? o.leaseThread.elector(o.kubeConfig, options) : new LeaderElector(o.kubeConfig, options);
  }

  private claim(shard: number): void {
    const abort = new AbortController();
    const seen = this.shardSeen.get(shardName(shard));
    const entry: ShardElector = {
      shard, abort, held: false, done: Promise.resolve(),
      elector: this.elector(shardName(shard), {
        ...(seen ? { observedSince: seen } : {}),
        onStoppedLeading: (reason, cause) => {
          // The fence already refuses the shard's writes. Taken: its guests stop. Late: the shard lapses, claimed again now.
          entry.held = false;
          if (this.electors.get(shard) === entry) this.electors.delete(shard);
          if (cause === 'taken' || this.stopping.signal.aborted) {
            this.log.warn('shard lost', { shard, reason });
            void this.o.onLost(shard);
            return;
          }
          this.log.warn('shard renewal late; its guests keep running, their writes refused, while the shard is claimed again', { shard, reason });
          this.lapse(shard);
          // Claimed now by the members last seen, not at the next look: a look's listing waits for the same busy API server.
          const ours = this.plan[shard] === this.o.identity && (this.o.claimable?.() ?? true);
          if (ours && !this.isHandingBack(shard)) this.claim(shard);
          else this.nudge();
        },
      }),
    };
    this.electors.set(shard, entry);
    entry.done = entry.elector.acquire(AbortSignal.any([abort.signal, this.stopping.signal])).then(() => {
      if (abort.signal.aborted || this.stopping.signal.aborted) return;
      entry.held = true;
      const grace = this.lapsed.get(shard);
      this.lapsed.delete(shard);
      grace?.abort();
      this.log.info(grace ? 'shard acquired again; its guests go on' : 'shard acquired', { shard });
      this.heldGauge?.set(this.held().length);
      this.o.onAcquired(shard, () => entry.elector.fence(), grace !== undefined);
    }, () => undefined /* aborted before it was acquired */);
  }

  /** The shard is being handed back (its guests stopping, then its Lease released): not claimed again until that is over. */
  private isHandingBack(shard: number): boolean {
    return [...this.handingBack].some((h) => h.shard === shard);
  }

  /** A shard whose renewal came late: its guests are kept for one lease duration at most, waiting for the shard to be held again. */
  private lapse(shard: number): void {
    const grace = new AbortController();
    this.lapsed.set(shard, grace);
    void this.clock.sleep(this.o.timing.leaseDurationMs, AbortSignal.any([grace.signal, this.stopping.signal])).then(() => {
      if (!grace.signal.aborted && !this.stopping.signal.aborted) void this.giveUpLapsed(shard, 'not held again within a lease duration');
    });
  }

  /** A lapsed shard is given up: its guests stop (resolves when nothing of it runs). Nothing to do when it is not lapsed. */
  private async giveUpLapsed(shard: number, why: string): Promise<void> {
    const grace = this.lapsed.get(shard);
    if (!grace) return;
    this.lapsed.delete(shard);
    grace.abort();
    this.log.warn('shard lost', { shard, reason: why });
    await this.o.onLost(shard);
  }

  private handBack(shard: number, e: ShardElector, why: string): void {
    this.electors.delete(shard);
    e.abort.abort();
    const wasHeld = e.held;
    e.held = false;
    e.done = e.done.then(async () => {
      if (wasHeld) {
        this.log.info('handing shard back', { shard, why });
        await this.o.onLost(shard);
      }
      await e.elector.release();
    }).finally(() => this.handingBack.delete(e));
    this.handingBack.add(e);
  }

  /** Stops the guests of every shard, releases the shard Leases and then the membership Lease. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.loop;
    for (const [s, e] of [...this.electors]) this.handBack(s, e, 'stopping');
    await Promise.all([...[...this.handingBack].map((e) => e.done), ...[...this.lapsed.keys()].map((s) => this.giveUpLapsed(s, 'stopping'))]);
    await this.member.release();
  }
}
