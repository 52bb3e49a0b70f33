// The Kubernetes version an API server reports (GET /version's gitVersion, "v1.36.3"): what the gate rules of the
// cluster's components are chosen by.
import type { ClusterAccess } from './kube-config.js';
import { KubeTransport } from './kube-transport.js';

/**
 * A reader of GET /version's gitVersion as a Kubernetes version ("v1.36.3+abc" → "1.36.3"); it resolves undefined when
 * the server cannot be read (never throws).
 */
export function apiServerVersion(kc: ClusterAccess, signal?: AbortSignal): () => Promise<string | undefined> {
  return async () => {
    const v = await KubeTransport.for(kc).request({ method: 'GET', path: '/version', ...(signal ? { signal } : {}) }).catch(() => undefined) as { gitVersion?: unknown } | undefined;
    return typeof v?.gitVersion === 'string' ? v.gitVersion.replace(/^v/, '').split(/[-+]/)[0] : undefined;
  };
}

/**
 * `read`, called at most once per `periodMs` (`now`: the clock); between reads, and when a read answers undefined, the
 * last value answered — an unanswered read is tried again after `retryMs` (at most `periodMs`). One of these is shared by every controller
 * that needs the cluster's version, so the API server
 * is asked once per period, not once per controller or per event.
 */
export function readAtMostEvery<T>(
  read: () => Promise<T | undefined>,
  periodMs: number,
  { retryMs = 10_000, now = Date.now }: { retryMs?: number; now?: () => number } = {},
): () => Promise<T | undefined> {
  let last: T | undefined;
  let readAt = -Infinity;
  let wait = periodMs;
  let pending: Promise<T | undefined> | undefined;
  return () => {
    if (now() - readAt < wait) return Promise.resolve(last);
    pending ??= read()
      .then((v) => {
        last = v ?? last;
        readAt = now();
        wait = v === undefined ? Math.min(retryMs, periodMs) : periodMs;
        return last;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
}
