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
