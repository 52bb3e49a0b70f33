// The chaos scenarios and their full and short sizes (short: what `npm test` runs, ≤ 2 minutes in all).
import type { ScenarioResult } from './lib.js';
import { parseCpuMillis } from '../../test/support/cgroup.js';
import { apiServerRestarts } from './api-restarts.js';
import { leaderFaults } from './leader-faults.js';
import { deadStart } from './dead-start.js';
import { silentPartition } from './partition.js';
import { openshiftTimingOutage } from './openshift-timing.js';
import { concurrentWriters } from './writers.js';
import { sdkAcrossRestarts } from './sdk-restarts.js';
import { eventSpam } from './events.js';
import { throttledLeader } from './throttled-leader.js';
import { throttledShard } from './throttled-shard.js';
import { hostileTenants } from './hostile-tenants.js';
import { ASSUMED_CPU_LIMIT, underLimits } from './limits.js';

export interface Scenario {
  name: string;
  run(short: boolean): Promise<ScenarioResult>;
}

export const SCENARIOS: Scenario[] = [
  { name: 'api-restarts', run: (short) => apiServerRestarts(short ? { restarts: 2, etcdOutageMs: 0 } : { restarts: 10, etcdOutageMs: 20_000 }) },
  { name: 'leader-faults', run: (short) => leaderFaults(short ? { kills: 0, stops: 1, pauseMs: 20_000 } : { kills: 5, stops: 3 }) },
  { name: 'dead-start', run: (short) => deadStart({ downMs: short ? 6_000 : 20_000 }) },
  { name: 'partition', run: (short) => silentPartition({ partitionMs: short ? 12_000 : 30_000 }) },
  { name: 'openshift-timing', run: (short) => openshiftTimingOutage({ downMs: short ? 15_000 : 60_000 }) },
  { name: 'writers', run: (short) => concurrentWriters(short ? { writers: 30, writesEach: 2 } : { writers: 200, writesEach: 2 }) },
  { name: 'sdk-restarts', run: (short) => sdkAcrossRestarts(short ? { accessors: 10, restarts: 1 } : { accessors: 50, restarts: 3 }) },
  { name: 'events', run: (short) => eventSpam({ changes: short ? 40 : 100 }) },
  { name: 'throttled-leader', run: (short) => throttledLeader({ pauseMs: 20_000, retryAfterSeconds: 3, rounds: short ? 1 : 3 }) },
  { name: 'throttled-shard', run: (short) => throttledShard({ pauseMs: 7_000, retryAfterSeconds: 3, rounds: short ? 1 : 3 }) },
  // Short: test/integration/hosted-tenants.test.ts is the npm-test version of this one.
  // Short: the single-cluster operator at a quarter of the assumed CPU limit; full: at the limit and a quarter, then the hosted fleets.
  {
    name: 'limits',
    run: (short) => underLimits(short
      ? { cpu: [`${parseCpuMillis(ASSUMED_CPU_LIMIT) / 4}m`], changes: 20, holdMs: 20_000, fleets: false }
      : { cpu: [ASSUMED_CPU_LIMIT, `${parseCpuMillis(ASSUMED_CPU_LIMIT) / 4}m`], changes: 100, holdMs: 300_000, fleets: true }),
  },
  { name: 'hostile-tenants', run: (short) => hostileTenants(short ? { rounds: 6, everyMs: 2_000 } : { rounds: 60, everyMs: 10_000 }) },
];
