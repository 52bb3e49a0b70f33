// Leader election against a fake monotonic clock and an in-memory Lease store with resourceVersion
// conflicts and injectable failures (the real-process behaviour is in test/integration/leader-election).
import { describe, expect, it } from '@jest/globals';
import { LeaderElector, NotLeaderError, validateLeaderElectionTiming, type LeadershipLoss, type LeaderElectorOptions, type Lease, type LeaseStore } from '../../runtime/index.js';
import { Registry } from 'prom-client';
import { FakeClock } from '../support/fake-clock.js';

class MemoryLeaseStore implements LeaseStore {
  lease: Lease | undefined;
  private rv = 0;
  writes: { by: string | undefined; holder: string | undefined }[] = [];
  /** Errors thrown by the next calls, in order. */
  failures: Error[] = [];
  down = false;
  /** How long the next updates take to be answered, in order (a busy server or client); past the caller's timeout they fail. */
  slow: number[] = [];

  constructor(private readonly clock: FakeClock) {}

  /** Waits the next `slow` answer time; throws as the transport does when the caller's timeout is shorter. */
  private async answerAfter(timeoutMs: number) {
    const ms = this.slow.shift();
    if (ms === undefined) return;
    await this.clock.sleep(Math.min(ms, timeoutMs));
    if (ms > timeoutMs) throw new Error(`no answer from the API server within ${timeoutMs} ms`);
  }

  private maybeFail() {
    if (this.down) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
    const f = this.failures.shift();
    if (f) throw f;
  }

  gets = 0;

  async get(_timeoutMs?: number): Promise<Lease | undefined> {
    this.gets++;
    this.maybeFail();
    return this.lease && structuredClone(this.lease);
  }

  async create(lease: Lease): Promise<Lease> {
    this.maybeFail();
    if (this.lease) throw Object.assign(new Error('exists'), { code: 409 });
    this.lease = { ...structuredClone(lease), metadata: { ...lease.metadata, resourceVersion: String(++this.rv) } };
    this.writes.push({ by: lease.spec?.holderIdentity, holder: lease.spec?.holderIdentity });
    return structuredClone(this.lease);
  }

  async update(lease: Lease, timeoutMs: number): Promise<Lease> {
    this.maybeFail();
    await this.answerAfter(timeoutMs);
    if (lease.metadata.resourceVersion !== this.lease?.metadata.resourceVersion) throw Object.assign(new Error('conflict'), { code: 409 });
    this.lease = { ...structuredClone(lease), metadata: { ...lease.metadata, resourceVersion: String(++this.rv) } };
    this.writes.push({ by: lease.spec?.holderIdentity, holder: lease.spec?.holderIdentity });
    return structuredClone(this.lease);
  }

  /** Someone else takes the lease (an external writer). */
  steal(holder: string) {
    this.lease = {
      ...this.lease!,
      spec: { ...this.lease!.spec, holderIdentity: holder, renewTime: new Date().toISOString() },
      metadata: { ...this.lease!.metadata, resourceVersion: String(++this.rv) },
    };
  }
}

/** Stops `e` as kill -9 would: no more renewals, the Lease left naming it (optionally with a fresh renewTime). */
async function crash(e: LeaderElector, store: MemoryLeaseStore, renewTime?: string) {
  const before = structuredClone(store.lease!);
  await e.release();
  store.lease = { ...store.lease!, spec: { ...before.spec, ...(renewTime ? { renewTime } : {}) } };
}

/** A leading 'a' and a follower 'b' trying to acquire, on one store and clock. */
async function leaderAndFollower() {
  const clock = new FakeClock();
  const a = setup('a', undefined, clock);
  await a.e.acquire();
  const b = setup('b', a.store, clock);
  const leads = { b: false };
  void b.e.acquire().then(() => { leads.b = true; });
  return { clock, a, b, leads };
}

/** An elector on `store` (a new one by default) and `clock`; `lost` and `causes` are what onStoppedLeading was told. */
const setup = (identity = 'a', store?: MemoryLeaseStore, clock = new FakeClock(), extra: Partial<LeaderElectorOptions> = {}) => {
  const s = store ?? new MemoryLeaseStore(clock);
  const lost: string[] = [];
  const causes: LeadershipLoss[] = [];
  const e = new LeaderElector(undefined, {
    namespace: 'ns', name: 'lock', identity, store: s, clock, random: () => 0, onStoppedLeading: (r, cause) => { lost.push(r); causes.push(cause); }, ...extra,
  });
  return { e, store: s, clock, lost, causes };
};

describe('LeaderElector', () => {
  it('refuses timing that cannot guarantee one writer', () => {
    expect(() => validateLeaderElectionTiming({ leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2000 })).toThrow(/lease duration/);
    expect(() => validateLeaderElectionTiming({ leaseDurationMs: 15_000, renewDeadlineMs: 2000, retryPeriodMs: 2000 })).toThrow(/retry period/);
    expect(() => validateLeaderElectionTiming({ leaseDurationMs: 137_000, renewDeadlineMs: 107_000, retryPeriodMs: 26_000 })).not.toThrow();
  });

  it('retries API errors at acquire (refused, 5xx, 429) every retry period, never fails', async () => {
    const { e, store, clock } = setup();
    store.failures = [
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('HTTP 500'), { code: 500 }),
      Object.assign(new Error('storage is (re)initializing'), { code: 429 }),
    ];
    let acquired = false;
    void e.acquire().then(() => { acquired = true; });
    await clock.advance(1999);
    expect(acquired).toBe(false);
    await clock.advance(2 * 2000 + 1);
    expect(acquired).toBe(true);
    expect(e.isLeader()).toBe(true);
    expect(store.lease?.spec?.holderIdentity).toBe('a');
    await e.release();
  });

  it('renews every retry period and stays leader while the store answers', async () => {
    const { e, store, clock, lost } = setup();
    await e.acquire();
    await clock.advance(60_000);
    expect(e.isLeader()).toBe(true);
    expect(lost).toEqual([]);
    expect(store.writes.length).toBeGreaterThanOrEqual(30);
    await e.release();
    expect(store.lease?.spec?.holderIdentity).toBe('');
  });

  it('a leader renews with one write and no read (client-go\'s fast path); a conflict makes it read and judge', async () => {
    const { e, store, clock, lost } = setup();
    await e.acquire();
    const [gets, writes] = [store.gets, store.writes.length];
    await clock.advance(20_000);
    expect(store.writes.length - writes).toBe(10);
    expect(store.gets - gets).toBe(0);
    store.steal('b');
    await clock.advance(2_000);
    expect(store.gets - gets).toBe(1);
    expect(lost).toEqual(['the Lease is now held by "b"']);
  });

  it('with a renew interval: renews that often while it succeeds, every retry period after a failure, and still stops at the deadline', async () => {
    const { e, store, clock, lost } = setup('a', undefined, undefined, { renewIntervalMs: 5_000 });
    await e.acquire();
    const writes = store.writes.length;
    await clock.advance(30_000);
    expect(store.writes.length - writes).toBe(6);
    store.down = true;
    await clock.advance(5_000); // the renewal at 35 s fails; tries follow every 2 s
    expect(e.isLeader()).toBe(true);
    store.down = false;
    await clock.advance(2_000);
    expect(store.writes.length - writes).toBe(7);
    expect(e.isLeader()).toBe(true);
    store.down = true;
    await clock.advance(10_000);
    expect(e.isLeader()).toBe(false);
    await clock.advance(2_000);
    expect(lost[0]).toMatch(/renew deadline/);
    expect(() => new LeaderElector(undefined, { namespace: 'ns', name: 'x', identity: 'a', store, clock, renewIntervalMs: 9_000 })).toThrow(/renew interval/);
  });

  it('a slow answer does not eat the next renewal\'s margin: renewals are due from the start of the last one that succeeded', async () => {
    // The hosted fleet's start: a replica busy starting its guests saw its renewals answered seconds late; the
    // next renewal was then due a renew interval after that late answer, left with too little time to its
    // deadline, and the replica lost its membership although the API server had answered every request.
    const { e, store, clock, lost } = setup('a', undefined, undefined, { renewIntervalMs: 5_000 });
    await e.acquire();
    const writes = () => store.writes.length;
    const acquired = writes();
    store.slow = [2_000, 4_500]; // the renewal sent at 5 s is answered at 7 s; the next one takes 4.5 s
    await clock.advance(7_000);
    expect(writes() - acquired).toBe(1);
    await clock.advance(2_999); // 9.999 s: not yet due (due 5 s after the 5 s renewal started, not after its answer)
    expect(writes() - acquired).toBe(1);
    await clock.advance(4_501); // sent at 10 s, answered at 14.5 s: within its deadline (15 s)
    expect(writes() - acquired).toBe(2);
    expect(e.isLeader()).toBe(true);
    await clock.advance(10_000);
    expect(lost).toEqual([]);
    expect(e.isLeader()).toBe(true);
  });

  it('exports how long after it was due each renewal was answered: a late wake-up (a busy process) plus the request', async () => {
    const metrics = new Registry();
    const { e, store, clock } = setup('a', undefined, undefined, { metrics });
    await e.acquire();
    await clock.advance(2_000); // due at 2 s, answered at once
    clock.jump(3_500); // busy: the renewal due at 4 s wakes at 5.5 s …
    store.slow = [500]; // … and is answered at 6 s
    await clock.advance(0);
    await clock.advance(500);
    const text = await metrics.metrics();
    const bucket = (le: string) => Number(new RegExp(`featuregates_lease_renewal_delay_seconds_bucket\\{le="${le.replace('+', '\\+')}"\\} (\\d+)`).exec(text)?.[1]);
    expect([bucket('0.005'), bucket('1'), bucket('2'), bucket('+Inf')]).toEqual([1, 1, 2, 2]);
    expect(text).toMatch(/featuregates_lease_renewal_delay_seconds_sum 2\n/);
    await e.release();
  });

  it('a renewal that must read the Lease first (its write was refused) reads within the time left to the deadline', async () => {
    const { e, store, clock } = setup();
    await e.acquire();
    const timeouts: number[] = [];
    const get = store.get.bind(store);
    store.get = async (timeoutMs: number) => { timeouts.push(timeoutMs); return get(); };
    store.slow = [1_500];
    store.steal('a'); // a write by someone else under our name: the fast path's write is refused (409), then a read
    await clock.advance(2_000);
    await clock.advance(1_500);
    expect(timeouts).toHaveLength(1);
    expect(timeouts[0]).toBeLessThanOrEqual(10_000 - 2_000 - 1_500 + 1);
  });

  it('says why leadership was lost: the renew deadline passed (Lease not expired yet), no renewal for a lease duration, or the Lease was taken or deleted', async () => {
    const a = setup();
    const { store, clock } = a;
    const elector = () => setup('a', store, clock);
    await a.e.acquire();
    store.down = true;
    await clock.advance(12_000);
    store.down = false;
    const b = elector();
    await b.e.acquire();
    store.steal('other');
    await clock.advance(2_000);
    const c = elector();
    store.lease = undefined;
    await c.e.acquire();
    store.lease = undefined;
    await clock.advance(2_000);
    const d = elector();
    await d.e.acquire();
    clock.jump(15_000); // paused for the whole lease duration
    await clock.advance(0);
    expect([a, b, c, d].flatMap((x) => x.causes)).toEqual(['renew-deadline', 'taken', 'taken', 'expired']);
  });

  it('stops being leader exactly at the renew deadline while renewals fail, and steps down', async () => {
    const { e, store, clock, lost } = setup();
    await e.acquire();
    store.down = true;
    await clock.advance(9_999);
    expect(e.isLeader()).toBe(true);
    await clock.advance(1);
    expect(e.isLeader()).toBe(false);
    expect(() => e.fence()).toThrow(NotLeaderError);
    await clock.advance(2_000);
    expect(lost).toHaveLength(1);
    expect(lost[0]).toMatch(/renew deadline/);
  });

  it('after a pause past the deadline: fenced before any timer runs, and steps down without writing', async () => {
    const { e, store, clock, lost } = setup();
    await e.acquire();
    await clock.advance(4_000);
    const writes = store.writes.length;
    clock.jump(25_000); // SIGSTOP for 25 s: no timer ran
    expect(e.isLeader()).toBe(false);
    expect(() => e.fence()).toThrow(/not the leader/);
    await clock.advance(0); // SIGCONT: the overdue renew timer runs first
    expect(lost).toHaveLength(1);
    expect(store.writes.length).toBe(writes); // the Lease was not renewed as if nothing happened
    await clock.advance(10_000);
    expect(store.writes.length).toBe(writes);
    await e.release(); // no release write either: no longer leader
    expect(store.writes.length).toBe(writes);
  });

  it('never renews a Lease whose holder is someone else: steps down instead', async () => {
    const { e, store, clock, lost } = setup();
    await e.acquire();
    store.steal('b');
    const writes = store.writes.length;
    await clock.advance(2_000);
    expect(lost).toEqual(['the Lease is now held by "b"']);
    expect(store.lease?.spec?.holderIdentity).toBe('b');
    expect(store.writes.length).toBe(writes);
  });

  it('a follower takes over when the lease it observed expires, and counts the transition', async () => {
    const { clock, a, b, leads } = await leaderAndFollower();
    await clock.advance(10_000);
    expect(leads.b).toBe(false);
    a.store.down = true; // a can no longer renew (b's reads fail too for a moment)
    await clock.advance(3_000);
    a.store.down = false;
    const killedAt = clock.now();
    await crash(a.e, a.store);
    for (let t = 0; t < 30_000 && !leads.b; t += 100) await clock.advance(100);
    expect(leads.b).toBe(true);
    expect(clock.now() - killedAt).toBeLessThanOrEqual(17_000);
    expect(b.store.lease?.spec?.leaseTransitions).toBe(1);
    await b.e.release();
  });

  it('an elector made late starts from the caller\'s own earlier sight of the record (observedSince)', async () => {
    const clock = new FakeClock();
    const a = setup('a', undefined, clock);
    await a.e.acquire();
    await crash(a.e, a.store);
    const seenAt = clock.now();
    await clock.advance(16_000);
    // Seen unchanged for 16 s already: taken at the first attempt, not a lease duration after the elector's first read.
    const stale = new LeaderElector(undefined, { namespace: 'ns', name: 'lock', identity: 'b', store: a.store, clock, random: () => 0, observedSince: { lease: structuredClone(a.store.lease!), at: seenAt } });
    await stale.acquire();
    expect(clock.now() - seenAt).toBe(16_000);
    await stale.release();
    // A sight of a different record (renewed since) is no help: the change is dated to the elector's own read.
    const b = setup('b2', a.store, clock);
    const fresh = new LeaderElector(undefined, { namespace: 'ns', name: 'lock', identity: 'c', store: a.store, clock, random: () => 0,
      observedSince: { lease: { metadata: { name: 'lock', namespace: 'ns' }, spec: { holderIdentity: 'someone', renewTime: 'old' } }, at: seenAt } });
    await b.e.acquire();
    const t0 = clock.now();
    let led = false;
    void fresh.acquire().then(() => { led = true; });
    await clock.advance(14_000);
    expect(led).toBe(false);
    await crash(b.e, a.store);
    for (let t = 0; t < 20_000 && !led; t += 100) await clock.advance(100);
    expect(led).toBe(true);
    expect(clock.now() - t0).toBeGreaterThanOrEqual(15_000);
    await fresh.release();
  });

  it('a follower waking from a long pause does not mistake a live lease for an expired one', async () => {
    const { clock, a, b, leads } = await leaderAndFollower();
    await clock.advance(4_000);
    clock.jump(25_000); // b paused; a's timers are paused too in this fake, so renew a by hand below
    await crash(a.e, a.store, 'renewed-just-now');
    await clock.advance(100); // b looks: the record changed, but it dates the change to now, not to 25 s ago
    expect(leads.b).toBe(false);
    await clock.advance(14_000);
    expect(leads.b).toBe(false);
    await clock.advance(3_000);
    expect(leads.b).toBe(true);
    await b.e.release();
  });
});
