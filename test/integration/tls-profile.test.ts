// The operator's secure metrics endpoint follows the cluster's TLS security profile (APIServer/cluster, the real
// openshift/api CRD with tlsAdherence), re-applied on every change without a restart, as seen by real TLS clients
// (Node's, i.e. OpenSSL's, offering one protocol version and chosen cipher suites): Intermediate while no profile
// is set, Modern turns away a TLS 1.2 client, Old accepts a cipher Intermediate refuses, Custom serves exactly its
// ciphers. And --tls-security-profile fixes a profile where APIServer/cluster is not served.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { connect, type SecureVersion } from 'node:tls';
import { join } from 'node:path';
import { apiServerCRDPath } from '../../control-plane/crds.js';
import { KubeTransport, readKubeconfigFile, type ClusterAccess } from '../../runtime/index.js';
import { bundledCRDPaths, startControlPlane, type ControlPlane } from '../../sdk/testing/index.js';
import { servingAddress, spawnCLI } from '../support/cli.js';
import { eventually } from '../support/timing.js';
import { PAYLOAD_ROOT } from '../support/payloads.js';

interface Handshake { ok: boolean; protocol?: string | null; cipher?: string; error?: string }

/** One TLS handshake with the endpoint, offering only `version` and (for TLS ≤ 1.2) only `ciphers`. */
function handshake(address: string, version: SecureVersion, ciphers?: string): Promise<Handshake> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const s = connect(
      { host, port: Number(port), rejectUnauthorized: false, minVersion: version, maxVersion: version, ...(ciphers ? { ciphers } : {}) },
      () => {
        resolve({ ok: true, protocol: s.getProtocol(), cipher: s.getCipher().standardName });
        s.end();
      },
    );
    s.on('error', (e) => resolve({ ok: false, error: e.message }));
  });
}

function startOperator(plane: ControlPlane, extra: string[] = []): { p: ChildProcess; log: () => string } {
  const p = spawnCLI(['operator', '--kubeconfig', plane.kubeconfigPath, '--operator-version', '4.22.1',
    '--authoritative-feature-gate-dir', join(PAYLOAD_ROOT, 'releases', 'release-4.22'),
    '--metrics-bind-address', '127.0.0.1:0', '--health-probe-bind-address', '0', '--log-format', 'json', ...extra], { POD_NAMESPACE: 'default' });
  let log = '';
  p.stderr!.on('data', (d: Buffer) => { log += d.toString(); });
  return { p, log: () => log };
}

const putProfile = async (kc: ClusterAccess, spec: Record<string, unknown>) => {
  const t = KubeTransport.for(kc);
  const path = '/apis/config.openshift.io/v1/apiservers';
  const current = await t.request({ method: 'GET', path: `${path}/cluster` }).catch(() => undefined) as { metadata: object } | undefined;
  const body = { apiVersion: 'config.openshift.io/v1', kind: 'APIServer', metadata: { ...(current?.metadata ?? {}), name: 'cluster' }, spec };
  await t.request(current ? { method: 'PUT', path: `${path}/cluster`, body } : { method: 'POST', path, body });
};

describe('secure metrics follow the cluster TLS security profile', () => {
  let plane: ControlPlane;
  let kc: ClusterAccess;
  let op: { p: ChildProcess; log: () => string };
  let address: string;
  beforeAll(async () => {
    plane = await startControlPlane({ crdPaths: [...bundledCRDPaths(), apiServerCRDPath(true)] });
    kc = readKubeconfigFile(plane.kubeconfigPath)!;
    op = startOperator(plane);
    address = await servingAddress(op.log, 'metrics');
  }, 120_000);
  afterAll(async () => {
    op?.p.kill('SIGTERM');
    await plane?.stop();
  });

  it('Intermediate while APIServer/cluster sets none: TLS 1.2 with its ciphers, not a cipher only Old has', async () => {
    expect(op.log()).toContain('"profile":"Intermediate","from":"default (APIServer/cluster not read yet)"');
    expect(await handshake(address, 'TLSv1.2', 'ECDHE-ECDSA-AES128-GCM-SHA256')).toMatchObject({ ok: true, protocol: 'TLSv1.2', cipher: 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256' });
    expect(await handshake(address, 'TLSv1.2', 'ECDHE-ECDSA-AES128-SHA')).toMatchObject({ ok: false });
    expect(await handshake(address, 'TLSv1.3')).toMatchObject({ ok: true, protocol: 'TLSv1.3' });
  });

  it('Modern, set while it runs: a TLS 1.2 client is turned away, TLS 1.3 served (no restart)', async () => {
    const pid = op.p.pid;
    await putProfile(kc, { tlsSecurityProfile: { type: 'Modern', modern: {} }, tlsAdherence: 'StrictAllComponents' });
    await eventually(async () => expect(await handshake(address, 'TLSv1.2', 'ECDHE-ECDSA-AES128-GCM-SHA256')).toMatchObject({ ok: false }), 20_000);
    expect(await handshake(address, 'TLSv1.3')).toMatchObject({ ok: true, protocol: 'TLSv1.3' });
    expect(op.p.pid).toBe(pid);
    expect(op.p.exitCode).toBeNull();
  });

  it('Old accepts a CBC cipher Intermediate refuses; Custom serves exactly its ciphers', async () => {
    await putProfile(kc, { tlsSecurityProfile: { type: 'Old', old: {} }, tlsAdherence: 'StrictAllComponents' });
    await eventually(async () => expect(await handshake(address, 'TLSv1.2', 'ECDHE-ECDSA-AES128-SHA'))
      .toMatchObject({ ok: true, cipher: 'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA' }), 20_000);
    await putProfile(kc, { tlsSecurityProfile: { type: 'Custom', custom: { minTLSVersion: 'VersionTLS12', ciphers: ['ECDHE-ECDSA-AES256-GCM-SHA384'] } }, tlsAdherence: 'StrictAllComponents' });
    await eventually(async () => expect(await handshake(address, 'TLSv1.2', 'ECDHE-ECDSA-AES128-GCM-SHA256')).toMatchObject({ ok: false }), 20_000);
    expect(await handshake(address, 'TLSv1.2', 'ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-GCM-SHA256'))
      .toMatchObject({ ok: true, cipher: 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384' });
    expect(await handshake(address, 'TLSv1.3')).toMatchObject({ ok: true });
  });

  it('--tls-security-profile Modern where APIServer/cluster is not served: fixed, said in the log', async () => {
    const vanilla = await startControlPlane({ crdPaths: bundledCRDPaths() });
    const fixed = startOperator(vanilla, ['--tls-security-profile', 'Modern']);
    const other = startOperator(vanilla);
    try {
      const [a, b] = await Promise.all([servingAddress(fixed.log, 'metrics'), servingAddress(other.log, 'metrics')]);
      expect(await handshake(a, 'TLSv1.2', 'ECDHE-ECDSA-AES128-GCM-SHA256')).toMatchObject({ ok: false });
      expect(await handshake(a, 'TLSv1.3')).toMatchObject({ ok: true });
      await eventually(async () => expect(other.log()).toContain('APIServer/cluster is not served on this cluster'), 20_000);
      expect(await handshake(b, 'TLSv1.2', 'ECDHE-ECDSA-AES128-GCM-SHA256')).toMatchObject({ ok: true });
    } finally {
      fixed.p.kill('SIGTERM');
      other.p.kill('SIGTERM');
      await vanilla.stop();
    }
  }, 90_000);
});
