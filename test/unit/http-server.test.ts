// Metrics and health endpoints: a disabled endpoint ("0") does nothing at all — not even make its serving
// certificate — and an enabled HTTPS one makes it once and serves with it.
import { describe, expect, it } from '@jest/globals';
import { request } from 'node:https';
import { serveEndpoints } from '../../runtime/serving/http-server.js';
import { selfSignedCert } from '../../runtime/serving/self-signed-cert.js';

describe('runtime/http-server', () => {
  it('a disabled endpoint does not make its certificate', async () => {
    let made = 0;
    expect(await serveEndpoints('0', { tls: () => { made++; return selfSignedCert('x', ['127.0.0.1']); } })).toBeUndefined();
    expect(made).toBe(0);
  });

  it('an enabled HTTPS endpoint makes its certificate once and serves /healthz with it', async () => {
    let made = 0;
    const cert = selfSignedCert('endpoint-test', ['127.0.0.1']);
    const endpoint = (await serveEndpoints('127.0.0.1:0', { tls: () => { made++; return cert; } }))!;
    try {
      const port = Number(endpoint.address.split(':').pop());
      const answer = await new Promise<{ code: number; body: string; peerCert: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/healthz', ca: cert.cert, agent: false }, (res) => {
          const peerCert = (res.socket as import('node:tls').TLSSocket).getPeerCertificate().subject.CN as string; // before the socket is let go
          let body = '';
          res.on('data', (d: Buffer) => { body += d.toString(); });
          res.on('end', () => resolve({ code: res.statusCode ?? 0, body, peerCert }));
        });
        req.on('error', reject);
        req.end();
      });
      expect(answer).toEqual({ code: 200, body: 'ok', peerCert: 'endpoint-test' });
      expect(made).toBe(1);
    } finally {
      await endpoint.close();
    }
  });
});
