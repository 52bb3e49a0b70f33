// The errors of a call to the API and their classes: ApiError for an HTTP status (with the Status body's reason
// and message, cut and cleaned: the server is untrusted), RequestTimeoutError when the call's deadline passed,
// ResponseTooLargeError when a body or watch event passed its bound; and the classification of any error by HTTP
// status (ApiError, or any error carrying a numeric `code`/`statusCode`, as @kubernetes/client-node's ApiException
// and watch errors do) and the server's message.
import { boundedText } from '../../api-types/untrusted-text.js';

/** An HTTP error status from the API server. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(readonly code: number, readonly reason: string | undefined, readonly serverMessage: string | undefined,
    readonly method: string, readonly path: string,
    /** The Retry-After header in whole seconds, when the server sent one. */
    readonly retryAfterSeconds?: number) {
    super(`${method} ${path}: HTTP ${code}${serverMessage ? `: ${serverMessage}` : ''}`);
  }
}

/** The reason is a CamelCase word in a Status; anything longer is not one. */
const MAX_REASON_CHARS = 64;

/** The ApiError of a failed exchange from its status, its error body (a Status, or any text) and Retry-After. */
export function apiErrorFromBody(code: number, body: string, method: string, path: string, retryAfterSeconds?: number): ApiError {
  let reason: string | undefined;
  let message: string | undefined;
  try {
    const s = JSON.parse(body) as { reason?: unknown; message?: unknown };
    if (typeof s.reason === 'string') reason = boundedText(s.reason, MAX_REASON_CHARS);
    if (typeof s.message === 'string') message = boundedText(s.message);
  } catch {
    message = boundedText(body, 300) || undefined;
  }
  return new ApiError(code, reason, message, method, path, retryAfterSeconds);
}

/** A write the leader fence refused: this process does not hold its Lease (the write never left). */
export class NotLeaderError extends Error {
  override name = 'NotLeaderError';
}

/** The request's deadline passed before a complete answer (connection, headers or body). */
export class RequestTimeoutError extends Error {
  override name = 'RequestTimeoutError';
  readonly code = 'ETIMEDOUT';
  constructor(readonly method: string, readonly path: string, readonly timeoutMs: number) {
    super(`${method} ${path}: no answer from the API server within ${timeoutMs} ms`);
  }
}

/** A response body or a watch event was larger than the request allows; the request was ended there. */
export class ResponseTooLargeError extends Error {
  override name = 'ResponseTooLargeError';
  constructor(readonly method: string, readonly path: string, readonly limitBytes: number, what = 'response body') {
    super(`${method} ${path}: the API server's ${what} is larger than ${limitBytes} bytes; not read further`);
  }
}

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

/** `e` or the first error of its `cause` chain (at most 8 deep) that `test` accepts (reconcilers wrap what a client threw). */
export function causeWhere(e: unknown, test: (c: unknown) => boolean): unknown {
  for (let c: unknown = e, depth = 0; c !== undefined && c !== null && depth < 8; c = c instanceof Error ? c.cause : undefined, depth++)
    if (test(c)) return c;
  return undefined;
}

/** `e` or the first error of its `cause` chain that is an instance of `type`. */
export function errorCause<T extends Error>(e: unknown, type: abstract new (...args: never[]) => T): T | undefined {
  return causeWhere(e, (c) => c instanceof type) as T | undefined;
}

/** A 409 in `e` or anywhere in its cause chain. */
export const isConflictCause = (e: unknown): boolean => causeWhere(e, isConflict) !== undefined;
