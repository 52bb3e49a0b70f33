// The chaos scenarios and their full and short sizes (short: what `npm test` runs, ≤ 2 minutes in all).
import type { ScenarioResult } from './lib.js';
import { apiServerRestarts } from './api-restarts.js';
import { leaderFaults } from './leader-faults.js';
import { deadStart } from './dead-start.js';
import { silentPartition } from './partition.js';

export interface Scenario {
  name: string;
  run(short: boolean): Promise<ScenarioResult>;
}

export const SCENARIOS: Scenario[] = [
  { name: 'api-restarts', run: (short) => apiServerRestarts(short ? { restarts: 2, etcdOutageMs: 0 } : { restarts: 10, etcdOutageMs: 20_000 }) },
  { name: 'leader-faults', run: (short) => leaderFaults(short ? { kills: 0, stops: 1, pauseMs: 20_000 } : { kills: 5, stops: 3 }) },
  { name: 'dead-start', run: (short) => deadStart({ downMs: short ? 6_000 : 20_000 }) },
  { name: 'partition', run: (short) => silentPartition({ partitionMs: short ? 12_000 : 30_000 }) },
];
