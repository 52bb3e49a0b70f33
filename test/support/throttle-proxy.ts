// A TLS-terminating proxy in front of a real kube-apiserver that can throttle like API priority-and-fairness
// does when a priority level is full: every non-watch request answered `429 Too Many Requests` with a
// Retry-After and the Status body kube-apiserver sends, until heal(). Watches and, outside a throttle,
// every request are forwarded as they are (the client's bearer token included). Each request is logged.
import { createServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { selfSignedCert } from '../../runtime/self-signed-cert.js';
import { adminKubeconfig } from '../../sdk/testing/auth.js';

export interface ProxiedRequest { at: number; method: string; path: string; throttled: boolean }

export interface ThrottleProxy {
  readonly server: string;
  /** A kubeconfig for the proxy with this bearer token. */
  kubeconfig(token: string): string;
  throttle(retryAfterSeconds: number): void;
  heal(): void;
  readonly requests: ProxiedRequest[];
  close(): Promise<void>;
}

export async function startThrottleProxy(upstream: string): Promise<ThrottleProxy> {
  const tls = selfSignedCert('throttle-proxy', ['127.0.0.1']);
  const target = new URL(upstream);
  let retryAfter: number | undefined;
  const requests: ProxiedRequest[] = [];
  const server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const watch = /[?&]watch=(true|1)/.test(req.url ?? '');
    const throttled = retryAfter !== undefined && !watch;
    requests.push({ at: Date.now(), method: req.method ?? '', path: (req.url ?? '').split('?')[0]!, throttled });
    if (throttled) {
      req.resume();
      res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': String(retryAfter) });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
        message: 'Too many requests, please try again later.', reason: 'TooManyRequests',
        details: { retryAfterSeconds: retryAfter }, code: 429 }));
      return;
    }
    const up = httpsRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url,
      headers: { ...req.headers, host: target.host }, rejectUnauthorized: false }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      upRes.pipe(res);
    });
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    server: url, requests,
    kubeconfig: (token) => adminKubeconfig(url, tls.cert, token),
    throttle(seconds) { retryAfter = seconds; },
    heal() { retryAfter = undefined; },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
