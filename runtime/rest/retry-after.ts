// When a request is sent again (client-go's rest/with_retry.go): the server asked for it with a Retry-After —
// 429 from API priority-and-fairness, or a 5xx from a starting kube-apiserver — or an HTTP/2 stream was refused
// (not processed). At most MAX_RETRY_AFTER_RETRIES times, never past the request's deadline; each attempt is the
// caller's (counted in its metrics).
import { ApiError } from './api-errors.js';
import { realClock } from '../util/clock.js';
import { abortReason } from './deadline.js';
import { StreamRefused } from './http2-session.js';

/** Retries of one request the server answered with a Retry-After (client-go's rest client: 10). */
export const MAX_RETRY_AFTER_RETRIES = 10;

/** The most a 5xx's Retry-After is waited (a 429's is waited in full). */
export const MAX_5XX_RETRY_AFTER_MS = 1000;

/**
 * The wait before this error's request is sent again, if the server asked for one (client-go's checkWait):
 * a 429's Retry-After in full — that is priority-and-fairness shedding load — and a 5xx's up to 1 s. The cap is
 * a deliberate difference from client-go, which waits a 5xx's in full: kube-apiserver answers 503 with
 * Retry-After: 5 for the moment after a start when its paths are not installed yet, and waiting all of it
 * kept SDK accessors 3.9 s behind a change after a restart instead of 0.6 s (docs/reliability.md).
 */
export function retryAfterMs(e: unknown): number | undefined {
  if (!(e instanceof ApiError) || e.retryAfterSeconds === undefined) return undefined;
  if (e.code === 429) return e.retryAfterSeconds * 1000;
  return e.code >= 500 ? Math.min(e.retryAfterSeconds * 1000, MAX_5XX_RETRY_AFTER_MS) : undefined;
}

/** A response's Retry-After in whole seconds (an HTTP date is not what the API server sends; client-go ignores it too). */
export function retryAfterHeader(headers: Record<string, string | string[] | undefined>): number | undefined {
  const v = headers['retry-after'];
  return typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v.trim()) : undefined;
}

/** A fence refused a write, or the request's signal was aborted: never retried. */
const notRetried = (e: unknown) => !(e instanceof ApiError) && !(e instanceof StreamRefused);

/**
 * `attempt` again while it fails with a Retry-After, or at once when its HTTP/2 stream was refused (the request
 * was not processed; the refusing connection takes no new streams), at most MAX_RETRY_AFTER_RETRIES times and
 * never past `deadlineAt` (epoch ms): a wait that would end after it is not started, the error is thrown.
 * Each attempt gets the time left.
 */
export async function withRetryAfter<T>(attempt: (remainingMs: number | undefined) => Promise<T>, signal: AbortSignal | undefined,
  deadlineAt: number | undefined, timeoutError: () => Error): Promise<T> {
  const remaining = () => (deadlineAt === undefined ? undefined : deadlineAt - Date.now());
  for (let retries = 0; ; retries++) {
    signal?.throwIfAborted();
    const left = remaining();
    if (left !== undefined && left <= 0) throw timeoutError();
    try {
      return await attempt(left);
    } catch (e) {
      if (notRetried(e)) throw e;
      const wait = e instanceof StreamRefused ? 0 : retryAfterMs(e);
      if (wait === undefined || retries >= MAX_RETRY_AFTER_RETRIES) throw e;
      const after = remaining();
      if (after !== undefined && wait >= after) throw e; // the server's wait would outlive the request
      await realClock.sleep(wait, signal); // resolves early on abort
      if (signal?.aborted) throw abortReason(signal);
    }
  }
}
