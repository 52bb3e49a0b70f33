// Metrics and health endpoints: /metrics (the registry), /statusz and /flagz (the z-pages), /healthz (always ok
// while the process serves), /readyz (200 once every readiness check passes, e.g. caches synced). Port 0 picks a free port.
// With `tls` the endpoint serves HTTPS; with `authorize` every request is first reviewed (secure metrics:
// runtime/serving/metrics-auth.ts) and answered 401/403/500 when not allowed.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createTLSServer, type Server as TLSServer } from 'node:https';
import type { SecureContextOptions } from 'node:tls';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { RequestAuthorizer } from './metrics-auth.js';
import { http } from '../rest/node-http.js';
import type { ZPages } from './z-pages.js';

export interface ServingEndpoint {
  readonly server: Server;
  /** host:port actually bound. */
  readonly address: string;
  close(): Promise<void>;
  /** HTTPS endpoints: serve new connections with these TLS options (minimum version, ciphers, groups) besides the certificate. */
  setTLS?(options: SecureContextOptions): void;
}

/** Parses controller-runtime style bind addresses: ":8080", "127.0.0.1:0", "0" (disabled). */
export function parseBindAddress(addr: string): { host: string; port: number } | undefined {
  if (addr === '0' || addr === '') return undefined;
  const i = addr.lastIndexOf(':');
  if (i < 0) throw new Error(`bind address ${JSON.stringify(addr)}: expected [host]:port`);
  const host = addr.slice(0, i).replace(/^\[|\]$/g, '') || '0.0.0.0';
  const port = Number(addr.slice(i + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`bind address ${JSON.stringify(addr)}: bad port`);
  return { host, port };
}

export interface EndpointOptions {
  registry?: Registry;
  /** Readiness checks: /readyz is 200 only when all return true. */
  ready?: () => boolean;
  health?: boolean;
  /**
   * Serve HTTPS with this PEM certificate and key — or with what the function returns, called only when the
   * endpoint is enabled (a self-signed certificate costs ~10 ms of a start that serves no metrics).
   */
  tls?: { cert: string; key: string } | (() => { cert: string; key: string });
  /** Review each request before answering it. */
  authorize?: RequestAuthorizer;
  /** Serve /statusz and /flagz (runtime/serving/z-pages.ts). */
  zpages?: ZPages;
}

export async function serveEndpoints(bind: string, options: EndpointOptions): Promise<ServingEndpoint | undefined> {
  const parsed = parseBindAddress(bind);
  if (!parsed) return undefined;
  const served = [
    ...(options.registry ? ['/metrics'] : []), ...(options.zpages ? ['/statusz', '/flagz'] : []), ...(options.health !== false ? ['/healthz', '/readyz'] : []),
  ];
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const [path = '/', query = ''] = (req.url ?? '/').split('?');
      if (options.authorize) {
        const d = await options.authorize(req.headers.authorization, path, req.method ?? 'GET');
        if (d.code !== 200) {
          res.statusCode = d.code;
          res.end(`${d.reason}\n`);
          return;
        }
      }
      if (path === '/metrics' && options.registry) {
        res.setHeader('Content-Type', options.registry.contentType);
        res.end(await options.registry.metrics());
      } else if ((path === '/statusz' || path === '/flagz') && options.zpages) {
        const a = options.zpages.answer(path, { accept: req.headers.accept, userAgent: req.headers['user-agent'], query }, served);
        res.writeHead(a.status, { 'Cache-Control': 'no-cache, private', ...a.headers });
        res.end(a.body);
      } else if (path === '/healthz' && options.health !== false) {
        res.end('ok');
      } else if (path === '/readyz' && options.health !== false) {
        const ok = options.ready ? options.ready() : true;
        res.statusCode = ok ? 200 : 503;
        res.end(ok ? 'ok' : 'not ready: caches not synced');
      } else {
        res.statusCode = 404;
        res.end('not found');
      }
    })().catch((e: unknown) => {
      res.statusCode = 500;
      res.end(String(e));
    });
  };
  const tls = typeof options.tls === 'function' ? options.tls() : options.tls;
  const server: Server = tls ? createTLSServer({ cert: tls.cert, key: tls.key }, handler) : http.createServer(handler);
  const setTLS = tls
    ? { setTLS: (o: SecureContextOptions) => (server as TLSServer).setSecureContext({ ...o, cert: tls.cert, key: tls.key }) }
    : {};
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(parsed.port, parsed.host, () => resolve());
  });
  const a = server.address() as AddressInfo;
  return {
    server,
    address: `${a.address}:${a.port}`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
    ...setTLS,
  };
}
