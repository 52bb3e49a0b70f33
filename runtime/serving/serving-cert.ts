// The /metrics serving certificate of the operator and the hosted coordinator: the PEM files given
// (--tls-cert-file and --tls-private-key-file, both or neither), else a self-signed one for this host.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { selfSignedCert } from './self-signed-cert.js';

export function servingCertificate(
  files: { tlsCertFile?: string; tlsPrivateKeyFile?: string },
  commonName: string,
): { cert: string; key: string } {
  if (files.tlsCertFile || files.tlsPrivateKeyFile) {
    if (!files.tlsCertFile || !files.tlsPrivateKeyFile) throw new Error('--tls-cert-file and --tls-private-key-file go together');
    return { cert: readFileSync(files.tlsCertFile, 'utf8'), key: readFileSync(files.tlsPrivateKeyFile, 'utf8') };
  }
  return selfSignedCert(commonName, [hostname(), 'localhost', '127.0.0.1']);
}
