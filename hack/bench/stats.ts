// Formatting helpers for the benchmarks in hack/bench (results go to docs/benchmarks.md); percentiles and
// waiting are test/support/timing.ts's, shared with the tests and the chaos suite.
import { median } from '../../test/support/timing.js';

export { median, percentile } from '../../test/support/timing.js';

export const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

export const ms = (n: number) => `${n.toFixed(n < 10 ? 3 : 1)} ms`;

export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** "min / median / max" of per-run figures. */
export function spread(values: number[], fmt: (n: number) => string): string {
  return `${fmt(Math.min(...values))} / ${fmt(median(values))} / ${fmt(Math.max(...values))}`;
}
