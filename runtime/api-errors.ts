// HTTP status of errors thrown by @kubernetes/client-node (ApiException, watch errors, fetch errors).
import { ApiException } from '@kubernetes/client-node';

export function statusCode(e: unknown): number | undefined {
  if (e instanceof ApiException) return e.code;
  const o = e as { statusCode?: unknown; code?: unknown } | null;
  if (o && typeof o.statusCode === 'number') return o.statusCode;
  return undefined;
}

export const isNotFound = (e: unknown) => statusCode(e) === 404;
export const isConflict = (e: unknown) => statusCode(e) === 409;
export const isGone = (e: unknown) => statusCode(e) === 410;

/** The API server's message (from a Status body) or the error's own message. */
export function apiErrorMessage(e: unknown): string {
  if (e instanceof ApiException) {
    try {
      const body = typeof e.body === 'string' ? JSON.parse(e.body) : e.body;
      if (body && typeof body.message === 'string') return `HTTP ${e.code}: ${body.message}`;
    } catch { /* not JSON */ }
    return `HTTP ${e.code}`;
  }
  return e instanceof Error ? e.message : String(e);
}
