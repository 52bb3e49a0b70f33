// A small API server that answers as a hostile one would, for tests whose subject is the client's behaviour
// against such answers (a guest API server is its tenant's): every request is recorded, and each test says
// how to answer. It speaks HTTP/1.1 over plain HTTP, or HTTP/2 (and HTTP/1.1) over TLS with a self-signed
// certificate — the kubeconfig it hands out trusts that certificate.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createSecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { selfSignedCert } from '../../runtime/serving/self-signed-cert.js';

export interface SeenRequest { at: number; method: string; path: string; headers: IncomingMessage['headers']; httpVersion: string; /** The request body, once it has ended. */ body: string }

export type Answer = (req: IncomingMessage, res: ServerResponse, seen: SeenRequest) => void;

export interface HostileServer {
  readonly url: string;
  readonly requests: SeenRequest[];
  /** A kubeconfig for it (token auth; the CA is the server's own certificate when it is TLS). */
  kubeconfig(token?: string): string;
  answer: Answer;
  close(): Promise<void>;
}

export async function startHostileServer(o: { tls?: boolean; answer?: Answer } = {}): Promise<HostileServer> {
  const requests: SeenRequest[] = [];
  const started = Date.now();
  const cert = o.tls ? selfSignedCert('hostile', ['127.0.0.1']) : undefined;
  const self: { answer: Answer } = { answer: o.answer ?? ((_q, s) => { s.writeHead(404); s.end(); }) };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const seen = { at: Date.now() - started, method: req.method ?? '', path: req.url ?? '', headers: req.headers, httpVersion: req.httpVersion, body: '' };
    requests.push(seen);
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => { seen.body += chunk; });
    req.on('end', () => self.answer(req, res, seen));
  };
  const server = cert
    ? createSecureServer({ cert: cert.cert, key: cert.key, allowHTTP1: true }, handle as never)
    : createServer(handle);
  const sockets = new Set<{ destroy(): void }>();
  server.on('connection', (s: { destroy(): void; once(e: string, f: () => void): void }) => { sockets.add(s); s.once('close', () => sockets.delete(s)); });
  server.on('secureConnection', (s: { destroy(): void; once(e: string, f: () => void): void }) => { sockets.add(s); s.once('close', () => sockets.delete(s)); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `${cert ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    get answer() { return self.answer; },
    set answer(a: Answer) { self.answer = a; },
    kubeconfig: (token = 'guest-token') => [
      'apiVersion: v1', 'kind: Config', 'current-context: c',
      `clusters: [{name: c, cluster: {server: "${url}"${cert ? `, certificate-authority-data: ${Buffer.from(cert.cert).toString('base64')}` : ''}}}]`,
      `users: [{name: u, user: {token: ${token}}}]`,
      'contexts: [{name: c, context: {cluster: c, user: u}}]', '',
    ].join('\n'),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A Status answer, as kube-apiserver writes one. */
export function status(res: ServerResponse, code: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(code, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason: code === 429 ? 'TooManyRequests' : 'InternalError', code }));
}
