// A guest kubeconfig is data someone else controls: only inline credentials and an https server are accepted;
// every other form is refused naming its field, before anything is read from this process's disk.
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readUntrustedKubeconfigText, UntrustedKubeconfigError } from '../../runtime/index.js';

const canaryDir = mkdtempSync(join(tmpdir(), 'fgc-canary-'));
const canary = join(canaryDir, 'token');
writeFileSync(canary, 'CANARY-SECRET-TOKEN');

const kubeconfig = (cluster: Record<string, unknown>, user: Record<string, unknown>) => JSON.stringify({
  apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
  clusters: [{ name: 'guest', cluster: { server: 'https://kube-apiserver.clusters-a.svc:6443', ...cluster } }],
  users: [{ name: 'admin', user }], contexts: [{ name: 'c', context: { cluster: 'guest', user: 'admin' } }],
});

describe('readUntrustedKubeconfigText', () => {
  it.each([
    ['a token file', {}, { tokenFile: canary }, 'users["admin"].user.tokenFile'],
    ['a relative token file', {}, { tokenFile: 'token' }, 'users["admin"].user.tokenFile'],
    ['a client key file', {}, { 'client-key': canary, 'client-certificate-data': 'eA==' }, 'users["admin"].user.client-key'],
    ['a client certificate file', {}, { 'client-certificate': canary }, 'users["admin"].user.client-certificate'],
    ['a CA file', { 'certificate-authority': canary }, { token: 't' }, 'clusters["guest"].cluster.certificate-authority'],
    ['an exec plugin', {}, { exec: { command: '/bin/sh', args: ['-c', 'cat /etc/shadow'] } }, 'users["admin"].user.exec'],
    ['an auth provider', {}, { 'auth-provider': { name: 'oidc' } }, 'users["admin"].user.auth-provider'],
    ['a proxy', { 'proxy-url': 'http://evil:3128' }, { token: 't' }, 'clusters["guest"].cluster.proxy-url'],
    ['plain http', { server: 'http://evil.example:80' }, { token: 't' }, 'clusters["guest"].cluster.server http:'],
    ['skip-verify', { 'insecure-skip-tls-verify': true }, { token: 't' }, 'clusters["guest"].cluster.insecure-skip-tls-verify'],
  ])('refuses %s, naming the field', (_what, cluster, user, field) => {
    const read = () => readUntrustedKubeconfigText(kubeconfig(cluster, user), 'Secret clusters-a/admin-kubeconfig key kubeconfig');
    expect(read).toThrow(UntrustedKubeconfigError);
    expect(read).toThrow(`kubeconfig Secret clusters-a/admin-kubeconfig key kubeconfig: ${field}`);
  });

  it('accepts inline credentials and never touches the disk', async () => {
    const access = readUntrustedKubeconfigText(kubeconfig({ 'certificate-authority-data': Buffer.from('CA').toString('base64') },
      { token: 'inline-token' }), 'guest');
    const opts: { headers?: Record<string, string>; ca?: unknown } = {};
    await access.applyToHTTPSOptions(opts as never);
    expect(opts.headers?.Authorization).toBe('Bearer inline-token');
    expect(String(opts.ca)).toBe('CA');
    expect(access.getCurrentCluster().server).toBe('https://kube-apiserver.clusters-a.svc:6443');
  });

  it('accepts skip-verify only when the coordinator allows it', () => {
    const text = kubeconfig({ 'insecure-skip-tls-verify': true }, { token: 't' });
    expect(() => readUntrustedKubeconfigText(text, 'guest', { allowInsecureSkipTLSVerify: true })).not.toThrow();
  });

  it('refuses a kubeconfig over 256 KiB before parsing it', () => {
    expect(() => readUntrustedKubeconfigText(`# ${'x'.repeat(300 * 1024)}\n${kubeconfig({}, { token: 't' })}`, 'guest')).toThrow('larger than 262144 bytes');
  });
});
