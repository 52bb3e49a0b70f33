// Polls until `check` stops throwing (or returns a value), for asynchronous convergence.
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
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
