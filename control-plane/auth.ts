// Who may talk to a test control plane: an admin bearer token in system:masters (kube-apiserver's static
// token file), a service-account signing key made with node:crypto, and a kubeconfig for the admin that
// trusts the serving certificate kube-apiserver generated for itself.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface AdminAuth {
  token: string;
  /** kube-apiserver --token-auth-file */
  tokenFile: string;
  /** kube-apiserver --service-account-key-file and --service-account-signing-key-file */
  serviceAccountKeyFile: string;
}

export function writeAdminAuth(dir: string): AdminAuth {
  const token = randomBytes(24).toString('hex');
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const serviceAccountKeyFile = join(dir, 'sa.key');
  writeFileSync(serviceAccountKeyFile, privateKey, { mode: 0o600 });
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, `${token},admin,admin-uid,"system:masters"\n`, { mode: 0o600 });
  return { token, tokenFile, serviceAccountKeyFile };
}

/** The admin kubeconfig's text (JSON, which every kubeconfig reader accepts). */
export function adminKubeconfig(server: string, caPEM: string, token: string): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'local', cluster: { server, 'certificate-authority-data': Buffer.from(caPEM).toString('base64') } }],
    users: [{ name: 'admin', user: { token } }],
    contexts: [{ name: 'local', context: { cluster: 'local', user: 'admin' } }],
    'current-context': 'local',
  }, null, 2);
}
