// The hosted coordinator's ShardManager against the real API server's Leases, its looks at them timed by a
// fake clock: after joining it only observes for a retry period (replicas started together see each other
// before anyone claims), it claims only once its caller says so (the coordinator: its HCPs are listed), and
// nudge() claims at once then, without waiting for the next retry period.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { LeaseResource, ResourceClient, type Lease } from '../../runtime/index.js';
import { MEMBER_LEASE_PREFIX, ShardManager } from '../../hosted/shards.js';
import { shardName } from '../../api-types/index.js';
import { ensureNamespace } from '../../sdk/testing/index.js';
import { kubeConfig } from '../support/cluster.js';
import { eventually, sleep } from '../support/eventually.js';
import { FakeClock } from '../support/fake-clock.js';
import { uniqueName } from '../support/objects.js';

const SHARDS = 4;
const TIMING = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

describe('ShardManager', () => {
  const kc = kubeConfig('ours');
  const namespace = uniqueName('shards');
  const leases = new ResourceClient<Lease>(kc, LeaseResource, undefined, { namespace });
  const managers: ShardManager[] = [];

  beforeAll(async () => {
    await ensureNamespace(kc, namespace);
  });
  afterAll(async () => {
    await Promise.all(managers.map((m) => m.stop()));
  });

  const manager = (identity: string, clock: FakeClock, claimable: () => boolean, acquired: number[]) => {
    const m = new ShardManager({
      kubeConfig: kc, namespace, identity, shards: SHARDS, timing: TIMING, clock, claimable,
      onAcquired: (shard) => acquired.push(shard), onLost: async () => undefined, onLostMembership: () => undefined,
    });
    managers.push(m);
    return m;
  };
  const shardHolders = async () => (await leases.list()).items
    .filter((l) => !l.metadata.name.startsWith(MEMBER_LEASE_PREFIX)).map((l) => `${l.metadata.name}=${l.spec?.holderIdentity ?? ''}`).sort();
  /** The manager's loop is waiting for its next look. */
  const sleeping = (clock: FakeClock) => eventually(() => expect(clock.pending).toBeGreaterThan(0));

  it('claims nothing before its caller says so, and everything at once when nudged then', async () => {
    const clock = new FakeClock();
    let listed = false;
    const acquired: number[] = [];
    const m = manager('early', clock, () => listed, acquired);
    await m.start();
    await sleeping(clock);
    await clock.advance(TIMING.retryPeriodMs); // the observing period is over: this look could claim, but nothing is listed yet
    await sleeping(clock);
    await sleep(300);
    expect(acquired).toEqual([]);
    expect(await shardHolders()).toEqual([]);
    listed = true;
    m.nudge(); // the clock does not move: only the nudge can make this look happen
    await eventually(() => expect([...acquired].sort()).toEqual([0, 1, 2, 3]));
    expect(await shardHolders()).toEqual([0, 1, 2, 3].map((s) => `${shardName(s)}=early`));
    await m.stop();
    expect(await shardHolders()).toEqual([0, 1, 2, 3].map((s) => `${shardName(s)}=`)); // released
  });

  it('a caller that may claim from the start still waits one retry period after joining', async () => {
    const clock = new FakeClock();
    const acquired: number[] = [];
    const m = manager('patient', clock, () => true, acquired);
    await m.start();
    await sleeping(clock);
    m.nudge(); // a nudge inside the observing period claims nothing either
    await sleeping(clock);
    await clock.advance(TIMING.retryPeriodMs - 1);
    await sleep(300);
    expect(acquired).toEqual([]);
    await clock.advance(1);
    await eventually(() => expect([...acquired].sort()).toEqual([0, 1, 2, 3]));
    await m.stop();
  });
});
