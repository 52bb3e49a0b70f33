// The one HTTP path to the Kubernetes API: REST requests with a deadline and streaming watches. Credentials
// come from the caller's ClusterAccess (ours from kube-config.ts, or a client-node KubeConfig:
// applyToHTTPSOptions, so token files and exec plugins refresh as that library does); the connection handling
// is ours, because it is what fails under faults. One concern a file, as client-go's rest and transport packages:
//  - connection-pool.ts: HTTP/2 where the server agrees (the requests and watches of one TLS identity are streams
//    of one connection, health-checked by pings), else pooled keep-alive HTTP/1.1; exchange.ts: one exchange over
//    either, with a write's fence judged immediately before its bytes leave — after its connection is up, on the
//    first send and on every resend — so a process that lost its Lease while waiting sends nothing more;
//  - deadline.ts: every non-watch request has one deadline for its whole life (default 10 s): connection, every
//    attempt and every Retry-After wait between them. On expiry an HTTP/1.1 socket is destroyed, never reused, and
//    an HTTP/2 stream is cancelled and its connection pinged at once. An abort signal ends it at any point;
//  - retry-after.ts: 429, or a 5xx, with a Retry-After of whole seconds (API priority-and-fairness, a starting
//    kube-apiserver) sends the same request or watch again after that wait, up to 10 times within the deadline;
//    each attempt is counted in the request metrics;
//  - response-body.ts: reads are bounded (MAX_OBJECT_BYTES, MAX_LIST_BYTES); watch-stream.ts: a watch event over
//    its bound ends the watch; api-errors.ts: the server's error message is cut and cleaned before anything sees it;
//  - a watch resolves once its response headers arrive (bounded by the same timeout) and then streams; its
//    liveness is the connection's pings (HTTP/2) or TCP keep-alive (HTTP/1.1) and the reflector's inactivity timer.
// Errors: ApiError for an HTTP status (with the Status body's reason and message), RequestTimeoutError
// when the deadline passed, the socket's own error (ECONNREFUSED, ECONNRESET, ...) otherwise.
import type { RequestOptions } from 'node:https';
import { StaticKubeConfig, type ClusterAccess, type StaticKubeConfigData } from './kube-config.js';
import type { Logger } from '../log/logger.js';
import type { Registry } from 'prom-client';
import { RequestTimeoutError, ResponseTooLargeError, apiErrorFromBody } from './api-errors.js';
import { ConnectionPool } from './connection-pool.js';
import { Deadline, deadlineFor } from './deadline.js';
import type { Exchange, Target } from './exchange.js';
import { CLIENT_GO_SESSION_TIMING, type SessionTiming } from './http2-session.js';
import { countedRequest } from '../metrics/metrics.js';
import { MAX_LIST_BYTES, MAX_OBJECT_BYTES, errorBody, readBody, readLines } from './response-body.js';
import { retryAfterHeader, withRetryAfter } from './retry-after.js';
import { userAgent } from '../util/version.js';
import { streamWatchEvents, type WatchHandle, type WatchRequest } from './watch-stream.js';

export type { WatchHandle, WatchRequest } from './watch-stream.js';

export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

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

function queryString(q: KubeRequest['query']): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q ?? {})) if (v !== undefined && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

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

const transports = new WeakMap<ClusterAccess, KubeTransport>();

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
  wrapped.set(access, { kc, userAgent: config.userAgent });
  return access;
}

/** What withTransportConfig wrapped: the access inside, and the user agent it gave. */
const wrapped = new WeakMap<ClusterAccess, { kc: ClusterAccess; userAgent: string | undefined }>();

/** `kc`'s credentials and user agent as data for another thread, when they can cross to it (a StaticKubeConfig, wrapped or not). */
export function accessForThread(kc: ClusterAccess): { kube: StaticKubeConfigData; userAgent?: string } | undefined {
  let userAgent: string | undefined;
  let inner = kc;
  for (let w = wrapped.get(inner); w; w = wrapped.get(inner)) {
    userAgent ??= w.userAgent;
    inner = w.kc;
  }
  return inner instanceof StaticKubeConfig ? { kube: inner.data(), ...(userAgent ? { userAgent } : {}) } : undefined;
}

export class KubeTransport {
  private readonly pool: ConnectionPool;

  /** The timeout of requests that do not pass their own (0 or Infinity: none, as kubectl's --request-timeout=0). */
  readonly defaultTimeoutMs: number;
  /** Sent with every request. */
  readonly userAgent: string;
  /** Speak HTTP/2 where the server agrees (false: HTTP/1.1 always, as DISABLE_HTTP2 for this transport only). */
  readonly http2: boolean;
  /** The HTTP/2 health check of new connections. */
  readonly http2Timing: SessionTiming;
  /**
   * The response bytes this transport has read (bodies and watch streams, as they arrive, before any bound cuts
   * them): what a server made this process buffer (a hosted replica's memory budget weighs its guests by it).
   */
  bytesRead = 0;
  private readonly countRead = (chunk: Buffer): void => {
    this.bytesRead += chunk.length;
  };

  /** Settings are given here, once (client-go's rest.Config), and never changed afterwards. */
  constructor(private readonly kc: ClusterAccess, config: TransportConfig = {}) {
    this.defaultTimeoutMs = config.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.userAgent = config.userAgent ?? userAgent('featuregates');
    this.http2 = config.http2 ?? true;
    this.http2Timing = config.http2Timing ?? CLIENT_GO_SESSION_TIMING;
    this.pool = new ConnectionPool({ http2: this.http2, http2Timing: this.http2Timing, logger: config.logger });
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

  /** Closes pooled idle connections; open requests finish (an HTTP/2 connection takes no new streams). */
  close(): void {
    this.pool.close();
  }

  private async target(method: string, path: string): Promise<Target> {
    const url = new URL(path, this.server);
    const opts: RequestOptions = { method, headers: {} };
    await this.kc.applyToHTTPSOptions(opts);
    const secure = url.protocol === 'https:';
    const tls = { ca: opts.ca, cert: opts.cert, key: opts.key, pfx: opts.pfx, passphrase: opts.passphrase,
      rejectUnauthorized: opts.rejectUnauthorized, servername: opts.servername };
    const headers = { ...(opts.headers as Record<string, string>), 'User-Agent': this.userAgent, Accept: 'application/json' };
    return { url, method, headers, secure, tls, key: this.pool.identityKey(secure, tls) };
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
    const tooLarge = (bytes: number, what?: string) => {
      cancel = true;
      return new ResponseTooLargeError(r.method, r.path, bytes, what);
    };
    try {
      x = await this.pool.exchange(t, body, deadline.expired, r.fence);
      const res = await deadline.within(x.response);
      res.body.on('data', this.countRead); // before the reader below, in the same turn: it sees every chunk too
      if (res.status < 200 || res.status >= 300) {
        throw apiErrorFromBody(res.status, await deadline.within(errorBody(res.body)), r.method, r.path, retryAfterHeader(res.headers));
      }
      if (r.onLine) {
        await deadline.within(readLines(res.body, limit, r.onLine, tooLarge, r.linePrefixes));
        return undefined;
      }
      const text = await deadline.within(readBody(res.body, limit, () => tooLarge(limit)));
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
      x = await this.pool.exchange(t, undefined, deadline.expired);
      res = await deadline.within(x.response);
      res.body.on('data', this.countRead); // as in requestOnce: the body's readers are added in this turn
      if (res.status !== 200) throw apiErrorFromBody(res.status, await deadline.within(errorBody(res.body)), 'WATCH', w.path, retryAfterHeader(res.headers));
    } catch (e) {
      if (deadline.fired) x?.cancel();
      throw e;
    } finally {
      deadline.clear();
    }
    return streamWatchEvents(x, res.body, w);
  }
}
