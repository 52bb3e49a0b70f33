// The fleet benchmark's reading of a run under limits: Lease losses from a replica's JSON log (the messages
// hosted/shards.ts logs) and the renewal-delay histogram from its /metrics.
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { leaseLosses, limitsFromFlags, renewalDelays, shedding } from '../../hack/bench/fleet-limits.js';
import { packageRoot } from '../../runtime/util/version.js';

const line = (msg: string, extra: Record<string, unknown> = {}) => JSON.stringify({ level: 'warn', msg, ...extra });

describe('fleet under limits', () => {
  test('Lease losses: shard lapses, shards lost and membership rejoins, whatever else the log says', () => {
    const log = [
      line('shard renewal late; its guests keep running, their writes refused, while the shard is claimed again', { shard: 3 }),
      line('shard lost', { shard: 3, reason: 'not held again within a lease duration' }),
      line('membership renewal missed its deadline before the Lease expired; rejoining (shard writes stay fenced by their own Leases)'),
      line('membership not renewed for its whole Lease (others may have taken its shards; their Leases fence its writes); rejoining'),
      line('shard acquired', { shard: 4 }),
      line('handing shard back', { shard: 5, why: 'stopping' }),
      '{"msg":"shard lost"', // a line cut by a kill -9
      'not json: shard lost',
    ].join('\n');
    expect(leaseLosses(log)).toEqual({ shardsLate: 1, shardsLost: 1, membershipLate: 2 });
  });

  test('the messages counted are the ones hosted/shards.ts logs', () => {
    const source = readFileSync(join(packageRoot(), 'hosted', 'shards.ts'), 'utf8');
    for (const msg of ["'shard renewal late", "'shard lost'", "'membership renewal missed", "'membership not renewed"]) expect(source).toContain(msg);
  });

  test('the memory budget from the log: its size, each shed and its guests, each guest taken back', () => {
    const log = [
      line('memory budget', { budgetBytes: 68 * 2 ** 20, budgetMiB: 68 }),
      line('memory over budget: shedding guests', { rssBytes: 1, budgetBytes: 1, guests: ['ns/a', 'ns/b'] }),
      line('memory over budget: shedding guests', { rssBytes: 1, budgetBytes: 1, guests: ['ns/a', 7] }),
      line('memory under budget again: engaging a shed guest', { hcp: 'ns/a' }),
      '{"msg":"memory over budget: shedding', // a line cut by a kill -9
    ].join('\n');
    expect(shedding(log)).toEqual({ budgetMiB: 68, sheds: 2, guestsShed: ['ns/a', 'ns/b', 'ns/a'], readmitted: 1 });
    expect(shedding(line('no memory budget: no container memory limit found and none given (--memory-budget)')).budgetMiB).toBeUndefined();
    const source = ['coordinator.ts', 'memory-budget.ts'].map((f) => readFileSync(join(packageRoot(), 'hosted', f), 'utf8')).join('');
    for (const msg of ["'memory budget'", "'memory over budget: shedding guests'", "'memory under budget again: engaging a shed guest'"]) expect(source).toContain(msg);
  });

  test('renewal delays from the histogram: count, mean, the bucket the slowest fits under, those over 1 s', () => {
    const text = ['0.005 5', '0.01 7', '0.1 8', '1 8', '2 9', '4 10', '8 10', '+Inf 10']
      .map((b) => { const [le, n] = b.split(' '); return `featuregates_lease_renewal_delay_seconds_bucket{le="${le}"} ${n}`; })
      .concat(['featuregates_lease_renewal_delay_seconds_sum 5.5', 'featuregates_lease_renewal_delay_seconds_count 10']).join('\n');
    expect(renewalDelays(text)).toEqual({ count: 10, meanS: 0.55, maxUnderS: 4, over1s: 2 });
    expect(renewalDelays('')).toEqual({ count: 0, meanS: 0, maxUnderS: Infinity, over1s: 0 });
  });

  test('the flags as Kubernetes quantities; neither given: no limits', () => {
    expect(limitsFromFlags('250m', '768Mi')).toEqual({ cpuMillis: 250, memoryBytes: 805306368 });
    expect(limitsFromFlags(undefined, '256Mi')).toEqual({ memoryBytes: 268435456 });
    expect(limitsFromFlags(undefined, undefined)).toBeUndefined();
    expect(() => limitsFromFlags('lots', undefined)).toThrow(/CPU limit "lots"/);
  });
});
