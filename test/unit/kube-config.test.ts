// The kubeconfig reader that spares the operator @kubernetes/client-node: same request options as
// client-node's KubeConfig for static credentials, client-node itself for plugins.
import { describe, expect, it } from '@jest/globals';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RequestOptions } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { inClusterConfig, loadKubeConfig, NoClusterConfiguredError, readKubeconfigFile, StaticKubeConfig } from '../../runtime/rest/kube-config.js';
import { tempDirs } from '../support/temp.js';

const tempDir = tempDirs();
const b64 = (s: string) => Buffer.from(s).toString('base64');

function kubeconfig(dir: string, cluster: Record<string, unknown>, user: Record<string, unknown>, name = 'kubeconfig'): string {
  const path = join(dir, name);
  writeFileSync(path, [
    'apiVersion: v1', 'kind: Config', 'current-context: ctx',
    'contexts:', '- name: ctx', '  context: {cluster: c, user: u}',
    'clusters:', '- name: c', `  cluster: ${JSON.stringify(cluster)}`,
    'users:', '- name: other', '  user: {token: wrong}', '- name: u', `  user: ${JSON.stringify(user)}`, '',
  ].join('\n'));
  return path;
}

async function optionsOf(access: { applyToHTTPSOptions(o: RequestOptions): Promise<void> }): Promise<RequestOptions> {
  const o: RequestOptions = { headers: {} };
  await access.applyToHTTPSOptions(o);
  return o;
}

describe('readKubeconfigFile', () => {
  it('gives the same request options as client-node for certificates, CA data, token, server name and skip-verify', async () => {
    const dir = tempDir('fgc-kubeconfig-');
    writeFileSync(join(dir, 'client.crt'), 'CERT');
    mkdirSync(join(dir, 'keys'));
    writeFileSync(join(dir, 'keys', 'client.key'), 'KEY');
    const path = kubeconfig(dir,
      { server: 'https://10.0.0.1:6443', 'certificate-authority-data': b64('CA'), 'tls-server-name': 'api.example', 'insecure-skip-tls-verify': true },
      { 'client-certificate': join(dir, 'client.crt'), 'client-key-data': b64('KEY'), token: 'secret' });
    const ours = await optionsOf(readKubeconfigFile(path)!);
    const kc = new KubeConfig();
    kc.loadFromFile(path);
    const theirs = await optionsOf(kc);
    for (const k of ['ca', 'cert', 'key', 'servername', 'rejectUnauthorized'] as const) expect(String(ours[k])).toBe(String(theirs[k]));
    expect(ours.headers).toEqual({ Authorization: 'Bearer secret' });
    expect((theirs.headers as Record<string, string>).Authorization).toBe('Bearer secret');
    expect(readKubeconfigFile(path)!.getCurrentCluster().server).toBe('https://10.0.0.1:6443');
  });

  it('resolves relative file paths against the kubeconfig\'s folder, as client-go does', async () => {
    const dir = tempDir('fgc-kubeconfig-');
    mkdirSync(join(dir, 'pki'));
    writeFileSync(join(dir, 'pki', 'ca.crt'), 'CA-FILE');
    writeFileSync(join(dir, 'pki', 'token'), 'file-token\n');
    const path = kubeconfig(dir, { server: 'https://h:1', 'certificate-authority': 'pki/ca.crt' }, { tokenFile: 'pki/token' });
    const o = await optionsOf(readKubeconfigFile(path)!);
    expect(String(o.ca)).toBe('CA-FILE');
    expect(o.headers).toEqual({ Authorization: 'Bearer file-token' });
  });

  it('sends basic auth for a username and password', async () => {
    const dir = tempDir('fgc-kubeconfig-');
    const o = await optionsOf(readKubeconfigFile(kubeconfig(dir, { server: 'https://h:1' }, { username: 'admin', password: 'p:w' }))!);
    expect(o.headers).toEqual({ Authorization: `Basic ${b64('admin:p:w')}` });
  });

  it('leaves exec plugins and auth providers to client-node', async () => {
    const dir = tempDir('fgc-kubeconfig-');
    const exec = kubeconfig(dir, { server: 'https://h:1' }, { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'true' } });
    expect(readKubeconfigFile(exec)).toBeUndefined();
    const loaded = await loadKubeConfig(exec, {});
    expect(loaded).toBeInstanceOf(KubeConfig);
    expect(loaded.getCurrentCluster()?.server).toBe('https://h:1');
    expect(readKubeconfigFile(kubeconfig(dir, { server: 'https://h:1' }, { 'auth-provider': { name: 'oidc' } }, 'k2'))).toBeUndefined();
  });

  it('names the file and what is missing', () => {
    const dir = tempDir('fgc-kubeconfig-');
    const noServer = kubeconfig(dir, { 'certificate-authority-data': b64('CA') }, { token: 't' });
    expect(() => readKubeconfigFile(noServer)).toThrow(`kubeconfig ${noServer}: cluster "c" has no server`);
    const bad = join(dir, 'bad');
    writeFileSync(bad, 'current-context: x\ncontexts: [\n');
    expect(() => readKubeconfigFile(bad)).toThrow(new RegExp(`^kubeconfig ${bad}:\\d+:\\d+: `));
    const noCtx = join(dir, 'noctx');
    writeFileSync(noCtx, 'current-context: x\ncontexts: []\n');
    expect(() => readKubeconfigFile(noCtx)).toThrow(`kubeconfig ${noCtx} has no context "x"`);
  });
});

describe('loadKubeConfig', () => {
  it('uses --kubeconfig, else the first existing $KUBECONFIG entry, else in-cluster, else says none is configured', async () => {
    const dir = tempDir('fgc-kubeconfig-');
    const a = kubeconfig(dir, { server: 'https://a:1' }, { token: 'a' }, 'a');
    const b = kubeconfig(dir, { server: 'https://b:1' }, { token: 'b' }, 'b');
    expect((await loadKubeConfig(a, { KUBECONFIG: b })).getCurrentCluster()?.server).toBe('https://a:1');
    expect((await loadKubeConfig(undefined, { KUBECONFIG: `${join(dir, 'missing')}:${b}` })).getCurrentCluster()?.server).toBe('https://b:1');
    await expect(loadKubeConfig(join(dir, 'missing'), {})).rejects.toThrow(`kubeconfig ${join(dir, 'missing')} does not exist`);
    await expect(loadKubeConfig(undefined, {})).rejects.toThrow(NoClusterConfiguredError);
  });
});

describe('inClusterConfig', () => {
  it('reads the service account CA and token, and re-reads the token a minute after the last read', async () => {
    const dir = tempDir('fgc-sa-');
    writeFileSync(join(dir, 'token'), 'one');
    writeFileSync(join(dir, 'ca.crt'), 'SA-CA');
    const access = inClusterConfig({ KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' }, dir);
    expect(access.getCurrentCluster().server).toBe('https://[fd00::1]:443');
    expect(String((await optionsOf(access)).ca)).toBe('SA-CA');

    let now = 0;
    const clocked = new StaticKubeConfig({ server: 'https://h:1', skipTLSVerify: false }, { tokenFile: join(dir, 'token') }, () => now);
    expect((await optionsOf(clocked)).headers).toEqual({ Authorization: 'Bearer one' });
    writeFileSync(join(dir, 'token'), 'two');
    now = 59_999;
    expect((await optionsOf(clocked)).headers).toEqual({ Authorization: 'Bearer one' });
    now = 60_000;
    expect((await optionsOf(clocked)).headers).toEqual({ Authorization: 'Bearer two' });
  });

  it('needs the service host and port', () => {
    expect(() => inClusterConfig({ KUBERNETES_SERVICE_HOST: '10.0.0.1' })).toThrow(NoClusterConfiguredError);
  });
});
