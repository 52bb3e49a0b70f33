// The one HTTP path to the Kubernetes API: REST requests with a deadline and streaming watches. Credentials
// come from the caller's ClusterAccess (ours from kube-config.ts, or a client-node KubeConfig:
// applyToHTTPSOptions, so token files and exec plugins refresh as that library does); the connection handling
// is ours, because it is what fails under faults:
//  - to an https server it speaks HTTP/2, as client-go: the requests and watches of one TLS identity are
//    streams of one connection, health-checked by pings (http2-session.ts); a server that does not agree to
//    h2, a plain-http server and DISABLE_HTTP2 get HTTP/1.1 over a pooled keep-alive agent whose sockets use
//    TCP keep-alive (30 s idle as client-go's dialer; Node then probes ten times a second apart: a dead peer is
//    noticed within 40 s). `pingsConnections` says which, for the reflector's inactivity timer;
//  - every non-watch request has one deadline for its whole life (default 10 s): connection, every attempt and
//    every Retry-After wait between them; a wait that would end past it is not waited (the server's answer is
//    the error), as client-go bounds its waits by the request's context. On expiry an HTTP/1.1 socket is
//    destroyed, never reused, and an HTTP/2 stream is cancelled and its connection pinged at once. An abort
//    signal ends it at any point;
//  - a write's fence (the leader elector's or a shard's "still holding" check) is judged immediately before
//    each attempt's bytes leave — after its connection is up, on the first send and on every resend — so a
//    process that lost its Lease while waiting sends nothing more;
//  - reads are bounded: a response body over MAX_OBJECT_BYTES (a list's over MAX_LIST_BYTES) and a watch event
//    over MAX_OBJECT_BYTES end the request with ResponseTooLargeError, and the server's error message is cut
//    to MAX_UNTRUSTED_MESSAGE_CHARS and cleaned of control characters before anything else sees it;
//  - a watch resolves once its response headers arrive (bounded by the same timeout) and then streams;
//    its liveness is the connection's pings (HTTP/2) or TCP keep-alive (HTTP/1.1) and the reflector's inactivity timer.
//  - when the server asks to be retried later — 429, or a 5xx, with a Retry-After of whole seconds (what API
//    priority-and-fairness and a starting kube-apiserver send) — the same request or watch is sent again after
//    that wait (a 5xx's capped at 1 s: retryAfterMs), up to 10 times and within the request's deadline, as
//    client-go's rest client does; each attempt is counted in the request metrics.
// Errors: ApiError for an HTTP status (with the Status body's reason and message), RequestTimeoutError
// when the deadline passed, the socket's own error (ECONNREFUSED, ECONNRESET, ...) otherwise.
import type { Agent as HttpAgent, ClientRequest, IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions } from 'node:https';
import { constants, type OutgoingHttpHeaders, type SecureClientSessionOptions } from 'node:http2';
import type { Readable } from 'node:stream';
import { createSecureContext, type SecureContext, type SecureContextOptions } from 'node:tls';
import type { ClusterAccess } from './kube-config.js';
import type { Logger } from './logger.js';
import type { Registry } from 'prom-client';
import { realClock } from './clock.js';
import { CLIENT_GO_SESSION_TIMING, NotHttp2, PingedSession, StreamRefused, type SessionTiming } from './http2-session.js';
import { boundedText } from '../api-types/untrusted-text.js';
import { countedRequest } from './metrics.js';
import { http } from './node-http.js';
import { userAgent } from './version.js';
import { lineSplitter } from './watch-lines.js';

export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** Retries of one request the server answered with a Retry-After (client-go's rest client: 10). */
export const MAX_RETRY_AFTER_RETRIES = 10;
/**
 * The largest response body read for one object, and the largest watch event: etcd takes requests of up to
 * 1.5 MiB by default (a FeatureGate with 100 versions is about 1 MiB), and an object's JSON on the wire stays
 * under twice that.
 */
export const MAX_OBJECT_BYTES = 3 * 1024 * 1024;
/** The largest list response read (a list is many objects; lists of a guest's named object use MAX_OBJECT_BYTES). */
export const MAX_LIST_BYTES = 64 * 1024 * 1024;

/** A response body or a watch event was larger than the request allows; the request was ended there. */
export class ResponseTooLargeError extends Error {
  override name = 'ResponseTooLargeError';
  constructor(readonly method: string, readonly path: string, readonly limitBytes: number, what = 'response body') {
    super(`${method} ${path}: the API server's ${what} is larger than ${limitBytes} bytes; not read further`);
  }
}

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

/** A fence refused a write, or the request's signal was aborted: never retried. */
const notRetried = (e: unknown) => !(e instanceof ApiError) && !(e instanceof StreamRefused);

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

function retryAfterHeader(headers: Record<string, string | string[] | undefined>): number | undefined {
  const v = headers['retry-after'];
  // Whole seconds only (an HTTP date is not what the API server sends; client-go ignores it too).
  return typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v.trim()) : undefined;
}

/** Why a request was aborted: the signal's reason when it is an Error. */
function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('request aborted');
}

/**
 * `attempt` again while it fails with a Retry-After, or at once when its HTTP/2 stream was refused (the request
 * was not processed; the refusing connection takes no new streams), at most MAX_RETRY_AFTER_RETRIES times and
 * never past `deadlineAt` (epoch ms): a wait that would end after it is not started, the error is thrown.
 * Each attempt gets the time left.
 */
async function withRetryAfter<T>(attempt: (remainingMs: number | undefined) => Promise<T>, signal: AbortSignal | undefined,
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

/** The epoch ms a request with this timeout must end by (undefined: no bound, as kubectl's --request-timeout=0). */
function deadlineFor(timeoutMs: number): number | undefined {
  return timeoutMs > 0 && Number.isFinite(timeoutMs) ? Date.now() + timeoutMs : undefined;
}

/** The request's deadline passed before a complete answer (connection, headers or body). */
export class RequestTimeoutError extends Error {
  override name = 'RequestTimeoutError';
  readonly code = 'ETIMEDOUT';
  constructor(readonly method: string, readonly path: string, readonly timeoutMs: number) {
    super(`${method} ${path}: no answer from the API server within ${timeoutMs} ms`);
  }
}

export interface KubeRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  /** The bound of the whole call, retries and their waits included. Default: the transport's timeout (10 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * Judged immediately before each attempt's bytes leave (after its connection is up); throws to refuse the
   * write — the refusal is the call's error and nothing is sent. Writes pass their leader or shard fence here.
   */
  fence?: () => void;
  /** The largest body read. Default: MAX_LIST_BYTES for a LIST (metricMethod), else MAX_OBJECT_BYTES. */
  maxBodyBytes?: number;
  /** Told the size of the JSON body read (a paginated list counts its pages against one budget). */
  onBodyBytes?: (chars: number) => void;
  /** The Accept header (default application/json). */
  accept?: string;
  /**
   * Read the body as text lines instead of JSON (`/metrics`): each line (at most MAX_TEXT_LINE_BYTES) is handed
   * on as it arrives and nothing is kept, so a large body costs no memory; the call resolves undefined.
   */
  onLine?: (line: string) => void;
  /** With onLine: only the lines that start with one of these are decoded and handed on (the others are skipped as bytes). */
  linePrefixes?: readonly string[];
  /** For rest_client_requests_total{resource}. */
  resource?: string;
  /** The method label for metrics (LIST for a collection GET). */
  metricMethod?: string;
  metrics?: Registry;
}

export interface WatchHandle {
  abort(): void;
}

export interface WatchRequest {
  path: string;
  query: Record<string, string | number | boolean | undefined>;
  /** Bound on the time until the response headers arrive, Retry-After waits included. */
  timeoutMs?: number;
  /** Ends the start of the watch, or a wait the server asked for (Retry-After) before it is sent again. */
  signal?: AbortSignal;
  /** The largest watch event (one line) read. Default MAX_OBJECT_BYTES. */
  maxEventBytes?: number;
  resource?: string;
  metrics?: Registry;
  /** Every decoded watch event. */
  onEvent(type: string, object: unknown): void;
  /** The stream ended: cleanly (undefined) or with an error. Called at most once, never after abort(). */
  onEnd(err?: Error): void;
}

function queryString(q: KubeRequest['query']): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q ?? {})) if (v !== undefined && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** The body, up to `limit` bytes: a longer one is not read further (the stream is destroyed) and rejects with `tooLarge`. */
function readBody(res: Readable, limit: number, tooLarge: () => Error): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        chunks.length = 0;
        reject(tooLarge());
        res.destroy();
        return;
      }
      chunks.push(c);
    });
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
    res.on('aborted', () => reject(new Error('response aborted')));
  });
}

/** The longest line a text body (`/metrics`) may have. */
export const MAX_TEXT_LINE_BYTES = 64 * 1024;

/**
 * A text body line by line, up to `limit` bytes in all and MAX_TEXT_LINE_BYTES a line; nothing is kept.
 * `tooLarge` is told which bound was passed and what it bounds.
 */
function readLines(res: Readable, limit: number, onLine: (line: string) => void, tooLarge: (bytes: number, what: string) => Error,
  prefixes?: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const fail = (e: Error) => { reject(e); res.destroy(); };
    const feed = lineSplitter(MAX_TEXT_LINE_BYTES, () => fail(tooLarge(MAX_TEXT_LINE_BYTES, 'response line')), (line) => { onLine(line); }, prefixes);
    res.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) return fail(tooLarge(limit, 'response body'));
      feed(c);
    });
    res.on('end', () => { feed('\n'); resolve(); });
    res.on('error', reject);
    res.on('aborted', () => reject(new Error('response aborted')));
  });
}

/** An error body is read up to this much (a Status is a few hundred bytes; its message is cut further). */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** The reason is a CamelCase word in a Status; anything longer is not one. */
const MAX_REASON_CHARS = 64;

function apiError(code: number, body: string, method: string, path: string, retryAfterSeconds?: number): ApiError {
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

/** The error body of a failed exchange (never more than MAX_ERROR_BODY_BYTES; a longer one reads as its start). */
async function errorBody(res: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  return new Promise((resolve, reject) => {
    res.on('data', (c: Buffer) => {
      if (size >= MAX_ERROR_BODY_BYTES) return;
      chunks.push(c);
      size += c.length;
      if (size >= MAX_ERROR_BODY_BYTES) {
        res.destroy();
        resolve(Buffer.concat(chunks).toString('utf8', 0, MAX_ERROR_BODY_BYTES));
      }
    });
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

const transports = new WeakMap<ClusterAccess, KubeTransport>();

/** How a transport talks to its server, fixed when it is made (client-go's rest.Config: UserAgent, Timeout, …). */
export interface TransportConfig {
  /** The timeout of requests that do not pass their own (default 10 s; 0 or Infinity: none). */
  timeoutMs?: number;
  /** Sent with every request (default `featuregates/<version> …`; the operator, the SDK and hosted mode name themselves). */
  userAgent?: string;
  /** Speak HTTP/2 where the server agrees (default true; false: HTTP/1.1 always). */
  http2?: boolean;
  /** The HTTP/2 health check of new connections (default client-go's 30 s read-idle, 15 s ping timeout). */
  http2Timing?: SessionTiming;
  /** Where the transport says what it decided on its own (a server spoken to over HTTP/1.1 because it refused h2). */
  logger?: Logger;
}

/** client-go's switch: a non-empty DISABLE_HTTP2 makes every connection HTTP/1.1. */
export const http2Disabled = (): boolean => Boolean(process.env.DISABLE_HTTP2);

/** A response on its way: its status line and headers, then its body as a stream. */
interface Exchange {
  response: Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Readable }>;
  /** Gives up on the exchange (a timeout or an abort): the HTTP/1.1 socket is destroyed, an HTTP/2 stream cancelled. */
  cancel(): void;
}

interface Target {
  url: URL;
  method: string;
  headers: Record<string, string | number>;
  secure: boolean;
  key: string;
  tls: Record<string, unknown>;
}

/**
 * The same cluster and credentials with a transport of their own built from `config` — client-go's copy of a
 * rest.Config with its own UserAgent and Timeout: the operator, the SDK, a hosted guest and the CLI each make
 * theirs, so none changes another's (the SDK no longer overwrites the User-Agent a component set).
 */
export function withTransportConfig(kc: ClusterAccess, config: TransportConfig): ClusterAccess {
  const access: ClusterAccess = {
    getCurrentCluster: () => kc.getCurrentCluster(),
    applyToHTTPSOptions: (opts) => kc.applyToHTTPSOptions(opts),
  };
  transports.set(access, new KubeTransport(access, config));
  return access;
}

export class KubeTransport {
  private readonly agents = new Map<string, HttpAgent>();
  private readonly contexts = new Map<string, SecureContext>();
  /** Per identity, its HTTP/2 connections: more than one when the streams of one exceed the server's limit. */
  private readonly sessions = new Map<string, PingedSession[]>();
  /** Identities whose server did not agree to HTTP/2: spoken to over HTTP/1.1 from then on. */
  private readonly http1Only = new Set<string>();
  private lastKey: { secure: boolean; tls: Record<string, unknown>; key: string } | undefined;
  private lastProtocol: 'h2' | 'http/1.1' | undefined;

  /** The timeout of requests that do not pass their own (0 or Infinity: none, as kubectl's --request-timeout=0). */
  readonly defaultTimeoutMs: number;
  /** Sent with every request. */
  readonly userAgent: string;
  /** Speak HTTP/2 where the server agrees (false: HTTP/1.1 always, as DISABLE_HTTP2 for this transport only). */
  readonly http2: boolean;
  /** The HTTP/2 health check of new connections. */
  readonly http2Timing: SessionTiming;
  private readonly logger: Logger | undefined;

  /** Settings are given here, once (client-go's rest.Config), and never changed afterwards. */
  constructor(private readonly kc: ClusterAccess, config: TransportConfig = {}) {
    this.defaultTimeoutMs = config.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.userAgent = config.userAgent ?? userAgent('featuregates');
    this.http2 = config.http2 ?? true;
    this.http2Timing = config.http2Timing ?? CLIENT_GO_SESSION_TIMING;
    this.logger = config.logger;
  }

  /** One transport (one connection pool) per ClusterAccess object: the defaults, or withTransportConfig's. */
  static for(kc: ClusterAccess): KubeTransport {
    let t = transports.get(kc);
    if (!t) {
      t = new KubeTransport(kc);
      transports.set(kc, t);
    }
    return t;
  }

  get server(): string {
    const server = this.kc.getCurrentCluster()?.server;
    if (!server) throw new Error('the kubeconfig has no current cluster');
    return server;
  }

  /**
   * True when the last exchange went over HTTP/2, whose connections are health-checked by pings: a watch on it
   * may stay silent until its timeout (on HTTP/1.1 the reflector ends one silent past UNPINGED_SILENCE_MS).
   */
  get pingsConnections(): boolean {
    return this.lastProtocol === 'h2';
  }

  /** Closes pooled idle connections; open requests finish (an HTTP/2 connection takes no new streams). */
  close(): void {
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
    for (const pool of this.sessions.values()) for (const s of pool) s.close();
    this.sessions.clear();
    this.lastKey = undefined;
  }

  private async target(method: string, path: string): Promise<Target> {
    const url = new URL(path, this.server);
    const opts: RequestOptions = { method, headers: {} };
    await this.kc.applyToHTTPSOptions(opts);
    const secure = url.protocol === 'https:';
    const tls = { ca: opts.ca, cert: opts.cert, key: opts.key, pfx: opts.pfx, passphrase: opts.passphrase,
      rejectUnauthorized: opts.rejectUnauthorized, servername: opts.servername };
    const headers = { ...(opts.headers as Record<string, string>), 'User-Agent': this.userAgent, Accept: 'application/json' };
    return { url, method, headers, secure, tls, key: this.identityKey(secure, tls) };
  }

  /**
   * The serialized TLS material is the identity's key (no need to hash it). Our kubeconfig reader hands out
   * the same Buffers on every request, so the last identity is kept and compared by reference first: no
   * serialization on the hot path. (client-node's KubeConfig reads files anew each time.)
   */
  private identityKey(secure: boolean, tls: Record<string, unknown>): string {
    const last = this.lastKey;
    if (last && last.secure === secure && Object.keys(tls).every((k) => tls[k] === last.tls[k])) return last.key;
    const key = JSON.stringify([secure, tls], (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString('base64') : v));
    this.lastKey = { secure, tls, key };
    return key;
  }

  /** The TLS material of an identity, as connection options with one secure context made once per identity. */
  private tlsOptions(t: Target): Record<string, unknown> {
    const set = Object.fromEntries(Object.entries(t.tls).filter(([, v]) => v !== undefined));
    const { ca, cert, key: privateKey, pfx, passphrase, ...connect } = set as Record<string, string | Buffer | boolean | undefined>;
    // One TLS context per identity: otherwise every new connection builds its own (parsing the CA and key
    // again), which was most of the CPU a hosted replica spent retrying unreachable guests.
    let secureContext = this.contexts.get(t.key);
    if (!secureContext) {
      secureContext = createSecureContext({ ca, cert, key: privateKey, pfx, passphrase } as SecureContextOptions);
      this.contexts.set(t.key, secureContext);
    }
    return { ...connect, secureContext };
  }

  private agentFor(t: Target): HttpAgent {
    let agent = this.agents.get(t.key);
    if (!agent) {
      // Idle keep-alive sockets kept: enough for a burst of concurrent requests (the hosted coordinator renews
      // its shard Leases together). With 4, the rest of each burst's sockets were closed and every burst paid
      // new TLS handshakes — most of an idle replica's CPU.
      const common = { keepAlive: true, keepAliveMsecs: 30_000, maxFreeSockets: 32, scheduling: 'lifo' as const };
      agent = t.secure ? new HttpsAgent({ ...common, ...this.tlsOptions(t) }) : new http.Agent(common);
      this.agents.set(t.key, agent);
    }
    return agent;
  }

  /**
   * An HTTP/2 connection of the identity with room for one more stream — a new one when none has (as Go's
   * HTTP/2 transport opens another connection when one is at the server's stream limit).
   */
  private sessionFor(t: Target): PingedSession {
    let pool = this.sessions.get(t.key);
    if (!pool) this.sessions.set(t.key, pool = []);
    const free = pool.find((s) => s.hasRoom);
    if (free) return free;
    const made: PingedSession = new PingedSession(t.url.origin, this.tlsOptions(t) as SecureClientSessionOptions, () => {
      const i = pool.indexOf(made);
      if (i >= 0) pool.splice(i, 1);
    }, this.http2Timing);
    pool.push(made);
    return made;
  }

  /**
   * Sends one exchange: over HTTP/2 unless the URL is plain HTTP, DISABLE_HTTP2 is set, `http2` is off or this
   * identity's server did not agree to it (then HTTP/1.1, on the pooled keep-alive agent). `deadline` bounds the wait for
   * an HTTP/2 connection (a connect into a black hole never finishes). `fence` is judged once the connection is
   * up, immediately before the request is written; when it throws nothing is written.
   */
  private async exchange(t: Target, body: Buffer | undefined, waitForConnection: Promise<never>, fence?: () => void): Promise<Exchange> {
    if (t.secure && this.http2 && !this.http1Only.has(t.key) && !http2Disabled()) {
      const session = this.sessionFor(t);
      session.hold();
      try {
        await Promise.race([session.ready, waitForConnection]);
      } catch (e) {
        if (!(e instanceof NotHttp2)) {
          if (e instanceof RequestTimeoutError) session.destroy(); // a connection that never came up
          throw e;
        }
        if (!this.http1Only.has(t.key)) {
          this.http1Only.add(t.key);
          // Once per server and identity: its watches lose the pings that find a dead connection (runtime/reflector.ts
          // bounds their silence instead), which is worth knowing when a server was expected to speak h2.
          this.logger?.info('the server did not agree to HTTP/2; speaking HTTP/1.1 to it from now on', { server: t.url.origin, why: e.message });
        }
        return this.exchange(t, body, waitForConnection, fence);
      } finally {
        session.release();
      }
      this.lastProtocol = 'h2';
      fence?.();
      return http2Exchange(session, t, body);
    }
    this.lastProtocol = 'http/1.1';
    return http1Exchange(t, this.agentFor(t), body, fence);
  }

  /** One REST call; resolves with the decoded JSON body (undefined when empty). */
  request(r: KubeRequest): Promise<unknown> {
    const metricMethod = r.metricMethod ?? r.method;
    const timeoutMs = r.timeoutMs ?? this.defaultTimeoutMs;
    const timeoutError = () => new RequestTimeoutError(r.method, r.path, timeoutMs);
    return withRetryAfter((left) => countedRequest(r.metrics, metricMethod, r.resource ?? '', () => this.requestOnce(r, left, timeoutError)),
      r.signal, deadlineFor(timeoutMs), timeoutError);
  }

  private async requestOnce(r: KubeRequest, leftMs: number | undefined, timeoutError: () => Error): Promise<unknown> {
    const path = `${r.path}${queryString(r.query)}`;
    const started = Date.now();
    const t = await this.target(r.method, path);
    if (r.accept) t.headers.Accept = r.accept;
    const body = r.body === undefined ? undefined : Buffer.from(JSON.stringify(r.body));
    if (body) {
      t.headers['Content-Type'] = r.contentType ?? 'application/json';
      t.headers['Content-Length'] = body.length;
    }
    r.signal?.throwIfAborted();
    const deadline = new Deadline(leftMs === undefined ? undefined : Math.max(1, leftMs - (Date.now() - started)), timeoutError, r.signal);
    const limit = r.maxBodyBytes ?? (r.metricMethod === 'LIST' ? MAX_LIST_BYTES : MAX_OBJECT_BYTES);
    let x: Exchange | undefined;
    let cancel = false;
    try {
      x = await this.exchange(t, body, deadline.expired, r.fence);
      const res = await Promise.race([x.response, deadline.expired]);
      if (res.status < 200 || res.status >= 300) {
        const text = await Promise.race([errorBody(res.body), deadline.expired]);
        throw apiError(res.status, text, r.method, r.path, retryAfterHeader(res.headers));
      }
      if (r.onLine) {
        await Promise.race([readLines(res.body, limit, r.onLine, (bytes, what) => {
          cancel = true;
          return new ResponseTooLargeError(r.method, r.path, bytes, what);
        }, r.linePrefixes), deadline.expired]);
        return undefined;
      }
      const text = await Promise.race([readBody(res.body, limit, () => {
        cancel = true;
        return new ResponseTooLargeError(r.method, r.path, limit);
      }), deadline.expired]);
      r.onBodyBytes?.(text.length);
      try {
        return text ? JSON.parse(text) as unknown : undefined;
      } catch {
        throw new Error(`${r.method} ${r.path}: the API server answered with malformed JSON`);
      }
    } catch (e) {
      if (deadline.fired || cancel) x?.cancel();
      throw e;
    } finally {
      deadline.clear();
    }
  }

  /** Starts a watch; resolves once the server accepted it (HTTP 200), rejects on an error status or timeout. */
  watch(w: WatchRequest): Promise<WatchHandle> {
    const timeoutMs = w.timeoutMs ?? this.defaultTimeoutMs;
    const timeoutError = () => new RequestTimeoutError('WATCH', w.path, timeoutMs);
    return withRetryAfter((left) => countedRequest(w.metrics, 'WATCH', w.resource ?? '', () => this.watchOnce(w, left, timeoutError)),
      w.signal, deadlineFor(timeoutMs), timeoutError);
  }

  private async watchOnce(w: WatchRequest, leftMs: number | undefined, timeoutError: () => Error): Promise<WatchHandle> {
    const path = `${w.path}${queryString({ ...w.query, watch: true })}`;
    const t = await this.target('GET', path);
    const deadline = new Deadline(leftMs === undefined ? undefined : Math.max(1, leftMs), timeoutError, w.signal);
    let x: Exchange | undefined;
    let res: Awaited<Exchange['response']>;
    try {
      x = await this.exchange(t, undefined, deadline.expired);
      res = await Promise.race([x.response, deadline.expired]);
      if (res.status !== 200) throw apiError(res.status, await Promise.race([errorBody(res.body), deadline.expired]), 'WATCH', w.path, retryAfterHeader(res.headers));
    } catch (e) {
      if (deadline.fired) x?.cancel();
      throw e;
    } finally {
      deadline.clear();
    }
    const exchange = x;
    let aborted = false;
    let ended = false;
    const end = (err?: Error) => {
      if (ended || aborted) return;
      ended = true;
      exchange.cancel();
      w.onEnd(err);
    };
    const stream = res.body;
    const maxEventBytes = w.maxEventBytes ?? MAX_OBJECT_BYTES;
    stream.on('data', lineSplitter(maxEventBytes, () => {
      end(new ResponseTooLargeError('WATCH', w.path, maxEventBytes, 'watch event'));
    }, (line) => {
      if (aborted) return;
      let ev: { type?: unknown; object?: unknown };
      try {
        ev = JSON.parse(line) as { type?: unknown; object?: unknown };
      } catch {
        end(new Error(`WATCH ${w.path}: malformed watch event`));
        return false;
      }
      if (typeof ev.type !== 'string') return;
      try {
        w.onEvent(ev.type, ev.object);
      } catch (e) {
        // A fault in the handling of one event ends this watch (its owner restarts it), never the process.
        end(new Error(`WATCH ${w.path}: handling an event failed: ${(e as Error)?.message ?? String(e)}`, { cause: e }));
        return false;
      }
    }));
    stream.on('end', () => end());
    stream.on('aborted', () => end(new Error(`WATCH ${w.path}: connection closed mid-stream`)));
    stream.on('error', (e: Error) => end(e));
    stream.on('close', () => end());
    return { abort: () => { aborted = true; exchange.cancel(); } };
  }
}

/**
 * The bound of one attempt: `expired` rejects with the timeout's error when `ms` pass (or with the abort's
 * reason when the signal fires); it never settles when there is no bound.
 */
class Deadline {
  readonly expired: Promise<never>;
  fired = false;
  private timer: NodeJS.Timeout | undefined;
  private detach: (() => void) | undefined;

  constructor(ms: number | undefined, timeoutError: () => Error, signal?: AbortSignal) {
    this.expired = new Promise<never>((_resolve, reject) => {
      if (ms !== undefined) this.timer = setTimeout(() => { this.fired = true; reject(timeoutError()); }, ms);
      if (signal) {
        const onAbort = () => { this.fired = true; reject(abortReason(signal)); };
        signal.addEventListener('abort', onAbort, { once: true });
        this.detach = () => signal.removeEventListener('abort', onAbort);
      }
    });
    this.expired.catch(() => undefined);
  }

  clear(): void {
    clearTimeout(this.timer);
    this.detach?.();
  }
}

/**
 * An HTTP/1.1 exchange. Nothing is written until the request has a connected socket (a pooled one, or a new one
 * after its TLS handshake); then `fence` is judged and the request written at once — or, when it throws, the
 * request is destroyed unsent and the response rejects with the fence's error.
 */
function http1Exchange(t: Target, agent: HttpAgent, body: Buffer | undefined, fence?: () => void): Exchange {
  const req: ClientRequest = (t.secure ? httpsRequest : http.request)(t.url, { method: t.method, headers: t.headers, agent });
  let refuse: (e: unknown) => void = () => undefined;
  const response = new Promise<Awaited<Exchange['response']>>((resolve, reject) => {
    let res: IncomingMessage | undefined;
    refuse = reject;
    // An error after the response arrived is the body's (a connection reset mid-stream).
    req.on('error', (e) => (res ? res.destroy(e) : reject(e)));
    req.on('response', (r) => {
      res = r;
      resolve({ status: r.statusCode ?? 0, headers: r.headers, body: r });
    });
  });
  response.catch(() => undefined);
  const send = () => {
    try {
      fence?.();
    } catch (e) {
      refuse(e);
      req.destroy();
      return;
    }
    req.end(body);
  };
  if (!fence) {
    req.end(body);
  } else {
    req.once('socket', (socket) => {
      if (!socket.connecting) send();
      else socket.once(t.secure ? 'secureConnect' : 'connect', send);
    });
  }
  return { response, cancel: () => req.destroy() };
}

function http2Exchange(session: PingedSession, t: Target, body: Buffer | undefined): Exchange {
  const headers: OutgoingHttpHeaders = { [constants.HTTP2_HEADER_METHOD]: t.method, [constants.HTTP2_HEADER_PATH]: `${t.url.pathname}${t.url.search}` };
  for (const [k, v] of Object.entries(t.headers)) headers[k.toLowerCase()] = v;
  const stream = session.request(headers);
  const response = new Promise<Awaited<Exchange['response']>>((resolve, reject) => {
    let answered = false;
    stream.on('error', (e) => { if (!answered) reject(stream.rstCode === constants.NGHTTP2_REFUSED_STREAM ? new StreamRefused(t.method, t.url.pathname) : e); });
    stream.on('close', () => { if (!answered) reject(new Error(`${t.method} ${t.url.pathname}: the HTTP/2 stream closed before a response (code ${stream.rstCode})`)); });
    stream.on('response', (h) => {
      answered = true;
      resolve({ status: Number(h[constants.HTTP2_HEADER_STATUS]), headers: h as Record<string, string | string[] | undefined>, body: stream });
    });
  });
  response.catch(() => undefined);
  stream.end(body);
  return {
    response,
    cancel: () => {
      if (!stream.closed) stream.close(constants.NGHTTP2_CANCEL);
      session.check(); // a connection that swallowed this exchange may be dead: find out within the ping timeout
    },
  };
}
