// The timing helpers of test/ and hack/ (benchmarks, the chaos suite), defined once: sleep, the two ways to
// wait for a condition (eventually: until a check stops throwing; until: until it returns true, with the
// time it took), and percentiles of samples.

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` stops throwing (or returns a value), for asynchronous convergence. */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 20_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      return await check();
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      throw new Error(`condition not met within ${timeoutMs} ms: ${last instanceof Error ? last.message : String(last)}`);
    }
    await sleep(intervalMs);
  }
}

/** Polls `check` every `intervalMs` until it returns true; resolves with the elapsed ms, or rejects after `timeoutMs` naming `what`. */
export async function until(what: string, check: () => Promise<boolean>, timeoutMs: number, intervalMs = 50): Promise<number> {
  const t0 = performance.now();
  let last = '';
  while (performance.now() - t0 < timeoutMs) {
    try {
      if (await check()) return performance.now() - t0;
    } catch (e) {
      last = (e as Error).message;
    }
    await sleep(intervalMs);
  }
  throw new Error(`${what}: not within ${timeoutMs} ms${last ? ` (last error: ${last})` : ''}`);
}

/** The nearest-rank p-th percentile (NaN for no samples; never indexes outside them). */
export function percentile(samples: readonly number[], p: number): number {
  const s = [...samples].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] as number;
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}
