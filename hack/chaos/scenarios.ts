// The chaos scenarios and their full and short sizes (short: what `npm test` runs, ≤ 2 minutes in all).
import type { ScenarioResult } from './lib.js';
import { apiServerRestarts } from './api-restarts.js';

export interface Scenario {
  name: string;
  run(short: boolean): Promise<ScenarioResult>;
}

export const SCENARIOS: Scenario[] = [
  { name: 'api-restarts', run: (short) => apiServerRestarts(short ? { restarts: 2, etcdOutageMs: 0 } : { restarts: 10, etcdOutageMs: 20_000 }) },
];
