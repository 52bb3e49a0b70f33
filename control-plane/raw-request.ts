// Minimal HTTP(S) client for the harness's readiness polling and CRD installation. TLS verification is
// off because kube-apiserver generates its own serving certificate at start; the kubeconfig handed to
// users trusts that certificate instead.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface RawResponse {
  status: number;
  body: string;
}

export function rawRequest(url: string, auth: { token?: string }, method = 'GET', body?: string,
  timeoutMs = 5_000): Promise<RawResponse> {
  const u = new URL(url);
  const req = u.protocol === 'https:' ? httpsRequest : httpRequest;
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (auth.token) headers.Authorization = `Bearer ${auth.token}`;
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = String(Buffer.byteLength(body));
  }
  return new Promise((resolve, reject) => {
    const r = req(u, { method, headers, rejectUnauthorized: false, timeout: timeoutMs, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    r.on('timeout', () => r.destroy(new Error(`${method} ${url} timed out after ${timeoutMs} ms`)));
    r.on('error', reject);
    if (body !== undefined) r.write(body);
    r.end();
  });
}
