// A TLS-terminating proxy in front of a real kube-apiserver that can throttle like API priority-and-fairness
// does when a priority level is full: every non-watch request answered `429 Too Many Requests` with a
// Retry-After and the Status body kube-apiserver sends, until heal() — or refuse the next HTTP/2 request as a
// server does that sent GOAWAY before the stream arrived (its stream refused, not processed). Watches and,
// outside a throttle,
// every request are forwarded as they are (the client's bearer token included). Each request is logged with
// its protocol. It speaks HTTP/2 and HTTP/1.1 as kube-apiserver does, or with `http1Only` HTTP/1.1 alone (a
// server that does not agree to h2 in ALPN). With `answer`, it answers the requests that picks itself.
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { createServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { selfSignedCert } from '../../runtime/serving/self-signed-cert.js';
import { adminKubeconfig } from '../../control-plane/auth.js';

export interface ProxiedRequest {
  at: number;
  method: string;
  path: string;
  query: URLSearchParams;
  throttled: boolean;
  refused?: boolean;
  httpVersion: string;
  userAgent: string;
  /** When its answer ended: its last byte handed to the connection, or its stream closed (undefined: still open). */
  ended?: number;
}

/** The most requests `picked` had open at once. */
export function peakConcurrency(requests: readonly ProxiedRequest[], picked: (r: ProxiedRequest) => boolean): number {
  const edges = requests.filter(picked).flatMap((r) => [[r.at, 1], [r.ended ?? Infinity, -1]] as const)
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]); // an end before a start at the same millisecond
  let open = 0;
  let peak = 0;
  for (const [, d] of edges) peak = Math.max(peak, open += d);
  return peak;
}

/** Headers HTTP/2 forbids (connection-specific) and its pseudo-headers: not forwarded either way. */
const hopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host']);
const forwarded = (h: Record<string, unknown>): OutgoingHttpHeaders => Object.fromEntries(Object.entries(h).filter(([k]) => !k.startsWith(':') && !hopByHop.has(k))) as OutgoingHttpHeaders;

export interface ThrottleProxy {
  readonly server: string;
  /** A kubeconfig for the proxy with this bearer token. */
  kubeconfig(token: string): string;
  /** Answer 429 with this Retry-After — every non-watch request, or only those `only` picks. */
  throttle(retryAfterSeconds: number, only?: (method: string, path: string) => boolean): void;
  heal(): void;
  /** TLS connections accepted so far. */
  readonly connections: number;
  /** The next HTTP/2 request is not forwarded: GOAWAY with a last stream id below its own (REFUSED_STREAM). */
  refuseNext(): void;
  readonly requests: ProxiedRequest[];
  /** Requests whose answer has not ended yet (open watches among them). */
  readonly inFlight: number;
  close(): Promise<void>;
}

export interface ThrottleProxyOptions {
  http1Only?: boolean;
  /**
   * Answers a request itself instead of forwarding it when this returns true: an endpoint of the server that its
   * tenant controls (a hosted guest's /metrics, say), the rest the real API server's.
   */
  answer?: (method: string, path: string, res: ServerResponse) => boolean;
}

export async function startThrottleProxy(upstream: string, o: ThrottleProxyOptions = {}): Promise<ThrottleProxy> {
  const tls = selfSignedCert('throttle-proxy', ['127.0.0.1']);
  const target = new URL(upstream);
  let retryAfter: number | undefined;
  let picks: ((method: string, path: string) => boolean) | undefined;
  let refuse = false;
  const requests: ProxiedRequest[] = [];
  let inFlight = 0;
  const handle = (req: IncomingMessage | Http2ServerRequest, anyRes: ServerResponse | Http2ServerResponse) => {
    const res = anyRes as ServerResponse; // the calls below exist with these signatures on both
    inFlight++;
    res.once('close', () => inFlight--);
    const watch = /[?&]watch=(true|1)/.test(req.url ?? '');
    const url = new URL(req.url ?? '/', 'https://proxy');
    const throttled = retryAfter !== undefined && !watch && (picks?.(req.method ?? '', url.pathname) ?? true);
    const stream = 'stream' in req ? req.stream : undefined;
    if (refuse && stream) {
      refuse = false;
      requests.push({ at: Date.now(), method: req.method ?? '', path: url.pathname, query: url.searchParams, throttled: false, refused: true, httpVersion: req.httpVersion, userAgent: String(req.headers['user-agent'] ?? '') });
      stream.on('error', () => undefined); // the refusal is this stream's error, on both ends
      stream.session?.goaway(0, Math.max(0, (stream.id ?? 1) - 2));
      return;
    }
    const entry: ProxiedRequest = { at: Date.now(), method: req.method ?? '', path: url.pathname, query: url.searchParams, throttled, httpVersion: req.httpVersion, userAgent: String(req.headers['user-agent'] ?? '') };
    requests.push(entry);
    // Ended when its last byte is handed to the connection ('finish'): the client cannot have it sooner. Its stream's
    // 'close' can come after the client already sent its next request (HTTP/2 emits it later), which counted one
    // write too many in flight; 'close' still ends an answer that never finished (aborted).
    const ended = () => { entry.ended ??= Date.now(); };
    res.once('finish', ended);
    res.once('close', ended);
    if (!throttled && o.answer?.(req.method ?? '', url.pathname, res)) {
      req.resume();
      return;
    }
    if (throttled) {
      req.resume();
      res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': String(retryAfter) });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
        message: 'Too many requests, please try again later.', reason: 'TooManyRequests',
        details: { retryAfterSeconds: retryAfter }, code: 429 }));
      return;
    }
    const up = httpsRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url,
      headers: { ...forwarded(req.headers), host: target.host }, rejectUnauthorized: false }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, forwarded(upRes.headers));
      upRes.pipe(res as NodeJS.WritableStream);
    });
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  };
  const server = o.http1Only
    ? createServer({ cert: tls.cert, key: tls.key }, handle)
    : createSecureServer({ cert: tls.cert, key: tls.key, allowHTTP1: true }, handle);
  const sockets = new Set<import('node:net').Socket>();
  let connections = 0;
  server.on('secureConnection', (socket: import('node:net').Socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    server: url, requests,
    get connections() { return connections; },
    get inFlight() { return inFlight; },
    kubeconfig: (token) => adminKubeconfig(url, tls.cert, token),
    throttle(seconds, only) { retryAfter = seconds; picks = only; },
    heal() { retryAfter = undefined; picks = undefined; },
    refuseNext() { refuse = true; },
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}
