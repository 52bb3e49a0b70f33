// The hand-encoded self-signed certificate parses as X.509, verifies with its own key, names its SANs,
// and serves TLS to a client that trusts it.
import { describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { createServer } from 'node:https';
import { request } from 'node:https';
import { selfSignedCert } from '../../runtime/serving/self-signed-cert.js';

describe('selfSignedCert', () => {
  it('is a valid, self-verifying X.509 v3 certificate with the SANs', () => {
    const { cert } = selfSignedCert('featuregates-metrics', ['localhost', 'metrics.ns.svc', '127.0.0.1', '::1']);
    const x = new X509Certificate(cert);
    expect(x.subject).toBe('CN=featuregates-metrics');
    expect(x.issuer).toBe(x.subject);
    expect(x.verify(x.publicKey)).toBe(true);
    expect(x.subjectAltName).toBe('DNS:localhost, DNS:metrics.ns.svc, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    expect(x.checkHost('metrics.ns.svc')).toBe('metrics.ns.svc');
    expect(x.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(Date.parse(x.validTo) - Date.now()).toBeGreaterThan(300 * 86_400_000);
  });

  it('always encodes in DER that OpenSSL accepts (random serials and keys: 300 certificates)', () => {
    // A serial starting with 0x00 once made 1 in 128 certificates unparsable ("illegal padding").
    for (let i = 0; i < 300; i++) expect(new X509Certificate(selfSignedCert(`c${i}`, ['127.0.0.1']).cert).subject).toBe(`CN=c${i}`);
  });

  it('serves TLS that a client trusting it accepts', async () => {
    const { cert, key } = selfSignedCert('t', ['127.0.0.1']);
    const server = createServer({ cert, key }, (_req, res) => res.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const body = await new Promise<string>((resolve, reject) => {
      request({ host: '127.0.0.1', port, ca: cert }, (res) => { let b = ''; res.on('data', (d) => { b += d; }); res.on('end', () => resolve(b)); })
        .on('error', reject).end();
    });
    server.close();
    expect(body).toBe('ok');
  });
});
