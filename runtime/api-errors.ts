// Classifying errors from the API: HTTP status (ApiError from our transport, or any error carrying a
// numeric `code`/`statusCode`, as @kubernetes/client-node's ApiException and watch errors do) and the
// server's message.
import { ApiError } from './kube-transport.js';

export function statusCode(e: unknown): number | undefined {
  const o = e as { statusCode?: unknown; code?: unknown } | null;
  if (o && typeof o.code === 'number') return o.code;
  if (o && typeof o.statusCode === 'number') return o.statusCode;
  return undefined;
}

export const isNotFound = (e: unknown) => statusCode(e) === 404;
export const isConflict = (e: unknown) => statusCode(e) === 409;
export const isGone = (e: unknown) => statusCode(e) === 410;

/** The API server's message (from a Status body) or the error's own message. */
export function apiErrorMessage(e: unknown): string {
  if (e instanceof ApiError) return `HTTP ${e.code}${e.serverMessage ? `: ${e.serverMessage}` : ''}`;
  const o = e as { code?: unknown; body?: unknown } | null;
  if (o && typeof o.code === 'number' && 'body' in o) {
    try {
      const body = typeof o.body === 'string' ? JSON.parse(o.body) as { message?: unknown } : o.body as { message?: unknown };
      if (body && typeof body.message === 'string') return `HTTP ${o.code}: ${body.message}`;
    } catch { /* not JSON */ }
    return `HTTP ${o.code}`;
  }
  return e instanceof Error ? e.message : String(e);
}

/** `e` or the first error of its `cause` chain that is an instance of `type` (reconcilers wrap what a client threw). */
export function errorCause<T extends Error>(e: unknown, type: abstract new (...args: never[]) => T): T | undefined {
  for (let c: unknown = e, depth = 0; c instanceof Error && depth < 8; c = c.cause, depth++) if (c instanceof type) return c;
  return undefined;
}
