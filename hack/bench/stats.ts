// Small timing helpers for the benchmarks in hack/bench (results go to docs/benchmarks.md).
export function percentile(samples: number[], p: number): number {
  const s = [...samples].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[i] as number;
}

export function median(samples: number[]): number {
  return percentile(samples, 50);
}

export const ms = (n: number) => `${n.toFixed(n < 10 ? 3 : 1)} ms`;

export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** "min / median / max" of per-run figures. */
export function spread(values: number[], fmt: (n: number) => string): string {
  return `${fmt(Math.min(...values))} / ${fmt(median(values))} / ${fmt(Math.max(...values))}`;
}
