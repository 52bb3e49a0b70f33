// The one HTTP path to the Kubernetes API: REST requests with a deadline and streaming watches, over a
// pooled keep-alive agent per cluster identity. Credentials come from the caller's ClusterAccess (ours from
// kube-config.ts, or a client-node KubeConfig: applyToHTTPSOptions, so token files and exec plugins refresh
// as that library does); the connection
// handling is ours, because it is what fails under faults:
//  - every non-watch request has a timeout (default 10 s); on expiry the socket is destroyed, never reused;
//  - sockets use TCP keep-alive (30 s, like client-go's dialer), so a dead peer is found by the kernel;
//  - a watch resolves once its response headers arrive (bounded by the same timeout) and then streams;
//    its liveness is the reflector's business (it knows the bookmark cadence).
//  - when the server asks to be retried later — 429, or a 5xx, with a Retry-After of whole seconds (what API
//    priority-and-fairness and a starting kube-apiserver send) — the same request or watch is sent again after
//    that wait (a 5xx's capped at 1 s: retryAfterMs), up to 10 times, as client-go's rest client does; each
//    attempt has its own timeout and is counted in the request metrics; an abort signal ends the wait.
// Errors: ApiError for an HTTP status (with the Status body's reason and message), RequestTimeoutError
// when the deadline passed, the socket's own error (ECONNREFUSED, ECONNRESET, ...) otherwise.
import type { Agent as HttpAgent, ClientRequest, IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions } from 'node:https';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import type { ClusterAccess } from './kube-config.js';
import type { Registry } from 'prom-client';
import { realClock } from './clock.js';
import { countedRequest } from './metrics.js';
import { http } from './node-http.js';
import { userAgent } from './version.js';
import { lineSplitter } from './watch-lines.js';

export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** Retries of one request the server answered with a Retry-After (client-go's rest client: 10). */
export const MAX_RETRY_AFTER_RETRIES = 10;

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

function retryAfterHeader(res: IncomingMessage): number | undefined {
  const v = res.headers['retry-after'];
  // Whole seconds only (an HTTP date is not what the API server sends; client-go ignores it too).
  return typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v.trim()) : undefined;
}

/** Why a request was aborted: the signal's reason when it is an Error. */
function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('request aborted');
}

/** `attempt` again while it fails with a Retry-After, at most MAX_RETRY_AFTER_RETRIES times. */
async function withRetryAfter<T>(attempt: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  for (let retries = 0; ; retries++) {
    try {
      return await attempt();
    } catch (e) {
      const wait = retryAfterMs(e);
      if (wait === undefined || retries >= MAX_RETRY_AFTER_RETRIES) throw e;
      await realClock.sleep(wait, signal); // resolves early on abort
      if (signal?.aborted) throw abortReason(signal);
    }
  }
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
  /** Default: the transport's timeout (10 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
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
  /** Bound on the time until the response headers arrive. */
  timeoutMs?: number;
  /** Ends a wait the server asked for (Retry-After) before the watch is sent again. */
  signal?: AbortSignal;
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

function readBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
    res.on('aborted', () => reject(new Error('response aborted')));
  });
}

function apiError(code: number, body: string, method: string, path: string, retryAfterSeconds?: number): ApiError {
  let reason: string | undefined;
  let message: string | undefined;
  try {
    const s = JSON.parse(body) as { reason?: unknown; message?: unknown };
    if (typeof s.reason === 'string') reason = s.reason;
    if (typeof s.message === 'string') message = s.message;
  } catch {
    message = body.slice(0, 300) || undefined;
  }
  return new ApiError(code, reason, message, method, path, retryAfterSeconds);
}

const transports = new WeakMap<ClusterAccess, KubeTransport>();

export class KubeTransport {
  private readonly agents = new Map<string, HttpAgent>();
  private lastAgent: { secure: boolean; tls: Record<string, unknown>; agent: HttpAgent } | undefined;

  /** The timeout of requests that do not pass their own (0 or Infinity: none, as kubectl's --request-timeout=0). */
  defaultTimeoutMs: number;
  /** Sent with every request (client-go style; the operator and the SDK set their own). */
  userAgent = userAgent('featuregates');

  constructor(private readonly kc: ClusterAccess, defaultTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS) {
    this.defaultTimeoutMs = defaultTimeoutMs;
  }

  /** One transport (one connection pool) per ClusterAccess object. */
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

  /** Closes pooled idle connections (open requests are not touched). */
  close(): void {
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
    this.lastAgent = undefined;
  }

  private async options(method: string, path: string): Promise<{ url: URL; opts: RequestOptions; secure: boolean }> {
    const url = new URL(path, this.server);
    const opts: RequestOptions = { method, headers: {} };
    await this.kc.applyToHTTPSOptions(opts);
    const secure = url.protocol === 'https:';
    const tls = { ca: opts.ca, cert: opts.cert, key: opts.key, pfx: opts.pfx, passphrase: opts.passphrase,
      rejectUnauthorized: opts.rejectUnauthorized, servername: opts.servername };
    opts.agent = this.agentFor(secure, tls);
    opts.headers = { ...(opts.headers as Record<string, string>), 'User-Agent': this.userAgent, Accept: 'application/json' };
    return { url, opts, secure };
  }

  /**
   * One pooled agent per TLS identity; the serialized material itself is the key (no need to hash it). Our
   * kubeconfig reader hands out the same Buffers on every request, so the last identity is kept and compared
   * by reference first: no serialization on the hot path. (client-node's KubeConfig reads files anew each time.)
   */
  private agentFor(secure: boolean, tls: Record<string, unknown>): HttpAgent {
    const last = this.lastAgent;
    if (last && last.secure === secure && Object.keys(tls).every((k) => tls[k] === last.tls[k])) return last.agent;
    const key = JSON.stringify([secure, tls], (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString('base64') : v));
    let agent = this.agents.get(key);
    if (!agent) {
      // Idle keep-alive sockets kept: enough for a burst of concurrent requests (the hosted coordinator renews
      // its shard Leases together). With 4, the rest of each burst's sockets were closed and every burst paid
      // new TLS handshakes — most of an idle replica's CPU.
      const common = { keepAlive: true, keepAliveMsecs: 30_000, maxFreeSockets: 32, scheduling: 'lifo' as const };
      const set = Object.fromEntries(Object.entries(tls).filter(([, v]) => v !== undefined));
      // One TLS context per identity, made once: otherwise every new connection builds its own (parsing the
      // CA and key again), which was most of the CPU a replica spent retrying unreachable guests.
      const { ca, cert, key: privateKey, pfx, passphrase, ...connect } = set as Record<string, string | Buffer | boolean | undefined>;
      agent = secure
        ? new HttpsAgent({ ...common, ...connect, secureContext: createSecureContext({ ca, cert, key: privateKey, pfx, passphrase } as SecureContextOptions) })
        : new http.Agent(common);
      this.agents.set(key, agent);
    }
    this.lastAgent = { secure, tls, agent };
    return agent;
  }

  private send(url: URL, opts: RequestOptions, secure: boolean): ClientRequest {
    return (secure ? httpsRequest : http.request)(url, opts);
  }

  /** One REST call; resolves with the decoded JSON body (undefined when empty). */
  request(r: KubeRequest): Promise<unknown> {
    const metricMethod = r.metricMethod ?? r.method;
    return withRetryAfter(() => countedRequest(r.metrics, metricMethod, r.resource ?? '', () => this.requestOnce(r)), r.signal);
  }

  private async requestOnce(r: KubeRequest): Promise<unknown> {
    const path = `${r.path}${queryString(r.query)}`;
    const timeoutMs = r.timeoutMs ?? this.defaultTimeoutMs;
    const started = Date.now();
    const { url, opts, secure } = await this.options(r.method, path);
    const body = r.body === undefined ? undefined : Buffer.from(JSON.stringify(r.body));
    if (body) {
      (opts.headers as Record<string, string | number>)['Content-Type'] = r.contentType ?? 'application/json';
      (opts.headers as Record<string, string | number>)['Content-Length'] = body.length;
    }
    r.signal?.throwIfAborted();
    return new Promise<unknown>((resolve, reject) => {
      const req = this.send(url, opts, secure);
      const fail = (e: Error) => { clearTimeout(timer); r.signal?.removeEventListener('abort', onAbort); req.destroy(); reject(e); };
      const timer = timeoutMs > 0 && Number.isFinite(timeoutMs)
        ? setTimeout(() => fail(new RequestTimeoutError(r.method, r.path, timeoutMs)), Math.max(1, timeoutMs - (Date.now() - started)))
        : undefined;
      const onAbort = () => fail(abortReason(r.signal!));
      r.signal?.addEventListener('abort', onAbort, { once: true });
      req.on('error', (e) => fail(e));
      req.on('response', (res) => {
        readBody(res).then((text) => {
          clearTimeout(timer);
          r.signal?.removeEventListener('abort', onAbort);
          const code = res.statusCode ?? 0;
          if (code < 200 || code >= 300) {
            reject(apiError(code, text, r.method, r.path, retryAfterHeader(res)));
            return;
          }
          try {
            resolve(text ? JSON.parse(text) : undefined);
          } catch {
            reject(new Error(`${r.method} ${r.path}: the API server answered with malformed JSON`));
          }
        }, (e: Error) => fail(e));
      });
      req.end(body);
    });
  }

  /** Starts a watch; resolves once the server accepted it (HTTP 200), rejects on an error status or timeout. */
  watch(w: WatchRequest): Promise<WatchHandle> {
    return withRetryAfter(() => countedRequest(w.metrics, 'WATCH', w.resource ?? '', () => this.watchOnce(w)), w.signal);
  }

  private async watchOnce(w: WatchRequest): Promise<WatchHandle> {
    const path = `${w.path}${queryString({ ...w.query, watch: true })}`;
    const timeoutMs = w.timeoutMs ?? this.defaultTimeoutMs;
    const { url, opts, secure } = await this.options('GET', path);
    return new Promise<WatchHandle>((resolve, reject) => {
      let aborted = false;
      let accepted = false;
      let ended = false;
      const req = this.send(url, opts, secure);
      const end = (err?: Error) => {
        if (ended || aborted) return;
        ended = true;
        req.destroy();
        w.onEnd(err);
      };
      const handle: WatchHandle = { abort: () => { aborted = true; clearTimeout(timer); req.destroy(); } };
      const timer = timeoutMs > 0 && Number.isFinite(timeoutMs) ? setTimeout(() => {
        if (!accepted) { aborted = true; req.destroy(); reject(new RequestTimeoutError('WATCH', w.path, timeoutMs)); }
      }, timeoutMs) : undefined;
      req.on('error', (e) => {
        clearTimeout(timer);
        if (!accepted) { if (!aborted) reject(e); aborted = true; return; }
        end(e);
      });
      req.on('response', (res) => {
        clearTimeout(timer);
        const code = res.statusCode ?? 0;
        if (code !== 200) {
          readBody(res).then((text) => reject(apiError(code, text, 'WATCH', w.path, retryAfterHeader(res))), (e: Error) => reject(e));
          return;
        }
        accepted = true;
        resolve(handle);
        res.setEncoding('utf8');
        res.on('data', lineSplitter((line) => {
          if (aborted) return;
          let ev: { type?: unknown; object?: unknown };
          try {
            ev = JSON.parse(line) as { type?: unknown; object?: unknown };
          } catch {
            end(new Error(`WATCH ${w.path}: malformed watch event`));
            return false;
          }
          if (typeof ev.type === 'string') w.onEvent(ev.type, ev.object);
        }));
        res.on('end', () => end());
        res.on('aborted', () => end(new Error(`WATCH ${w.path}: connection closed mid-stream`)));
        res.on('error', (e) => end(e));
        res.on('close', () => end());
      });
      req.end();
    });
  }
}
