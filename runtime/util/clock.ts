// A monotonic clock for timing logic (leader election, rate limiters): wall-clock jumps and a process
// that was paused are judged by elapsed monotonic time. Tests pass a fake one.

export interface Clock {
  /** Monotonic milliseconds (performance.now() for the real clock). */
  now(): number;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) => new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => { clearTimeout(t); signal?.removeEventListener('abort', done); resolve(); };
    const t = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener('abort', done, { once: true });
  }),
};

/**
 * The real clock on the process's monotonic time (process.hrtime), which every thread of the process reads alike
 * (performance.now() counts from each thread's own start): for times one thread publishes and another judges.
 */
export const processClock: Clock = {
  now: () => Number(process.hrtime.bigint()) / 1e6,
  sleep: realClock.sleep,
};
