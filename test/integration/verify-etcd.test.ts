// `featuregates verify --component etcd=URL` against a real etcd v3.6 (the one hack/envtest builds) serving
// TLS with client-certificate authentication, started with two of its alpha gates on: its gates are reported
// as it reports them (`etcd_server_feature_enabled`), judged only against what --etcd-feature-gates declares;
// without the client certificate, or with a CA that did not sign etcd's certificate, etcd cannot be read.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { VerifyReport } from '../../api-types/index.js';
import { readKubeconfigFile } from '../../runtime/index.js';
import { bundledCRDPaths, setClusterVersion, setFeatureGateStatus, startControlPlane, type ControlPlane } from '../../sdk/testing/index.js';
import { freePort, poll } from '../../control-plane/readiness.js';
import { startSupervised, type SupervisedProcess } from '../../control-plane/supervised-process.js';
import { runCLI } from '../support/cli.js';
import { componentsDir } from '../support/components.js';
import { tempDirs } from '../support/temp.js';

const tempDir = tempDirs();

/** A CA, etcd's serving certificate for 127.0.0.1 and a client certificate, made with openssl in `dir`. */
function certificates(dir: string, caName: string): Record<'ca' | 'server' | 'serverKey' | 'client' | 'clientKey', string> {
  const f = (n: string) => join(dir, n);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', `/CN=${caName}`, '-keyout', f('ca.key'), '-out', f('ca.crt'));
  writeFileSync(f('server.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n');
  writeFileSync(f('client.ext'), 'extendedKeyUsage=clientAuth\n');
  for (const [name, cn] of [['server', 'etcd'], ['client', 'kube-apiserver-etcd-client']] as const) {
    ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', `/CN=${cn}`, '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`));
    ssl('x509', '-req', '-in', f(`${name}.csr`), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial', '-days', '1', '-extfile', f(`${name}.ext`), '-out', f(`${name}.crt`));
  }
  return { ca: f('ca.crt'), server: f('server.crt'), serverKey: f('server.key'), client: f('client.crt'), clientKey: f('client.key') };
}

describe('featuregates verify --component etcd=URL (a real etcd v3.6 with client-certificate authentication)', () => {
  let plane: ControlPlane;
  let etcd: SupervisedProcess;
  let url: string;
  let certs: ReturnType<typeof certificates>;
  let otherCA: string;
  beforeAll(async () => {
    plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
    const kc = readKubeconfigFile(plane.kubeconfigPath)!;
    await setClusterVersion(kc, { history: ['4.22.0'] });
    await setFeatureGateStatus(kc, [{ version: '4.22.0', enabled: ['AllowParsingUserUIDFromCertAuth'], disabled: ['APIServingWithRoutine'] }]);
    const dir = tempDir('fgc-verify-etcd-');
    certs = certificates(dir, 'etcd-ca');
    otherCA = certificates(tempDir('fgc-verify-etcd-other-'), 'another-ca').ca;
    const [client, peer] = [await freePort(), await freePort()];
    url = `https://127.0.0.1:${client}`;
    etcd = startSupervised('etcd', join(componentsDir(), 'etcd'), [
      `--data-dir=${join(dir, 'data')}`, `--listen-client-urls=${url}`, `--advertise-client-urls=${url}`,
      `--listen-peer-urls=http://127.0.0.1:${peer}`, `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
      `--initial-cluster=default=http://127.0.0.1:${peer}`, '--name=default', '--unsafe-no-fsync=true', '--log-level=warn',
      `--cert-file=${certs.server}`, `--key-file=${certs.serverKey}`, '--client-cert-auth=true', `--trusted-ca-file=${certs.ca}`,
      '--feature-gates=LeaseCheckpoint=true,CompactHashCheck=true',
    ], join(dir, 'etcd.log'));
    await poll('etcd up', 30_000, etcd, async () => {
      const r = runCLI(['verify', '--kubeconfig', plane.kubeconfigPath, '--component', `etcd=${url}`, '--etcd-cafile', certs.ca,
        '--etcd-certfile', certs.client, '--etcd-keyfile', certs.clientKey, '-o', 'json']);
      return r.code === 0;
    });
  }, 120_000);
  afterAll(async () => {
    await etcd?.stop();
    await plane?.stop();
  });

  const verify = (...args: string[]) => runCLI(['verify', '--kubeconfig', plane.kubeconfigPath, '--component', `etcd=${url}`, ...args]);
  const withCert = (...args: string[]) => verify('--etcd-cafile', certs.ca, '--etcd-certfile', certs.client, '--etcd-keyfile', certs.clientKey, ...args);
  const etcdOf = (r: { stdout: string }) => (JSON.parse(r.stdout) as VerifyReport).components.find((c) => c.name === 'etcd');

  it('reports every gate etcd has as information, judging none: exit 0', () => {
    const r = withCert('-o', 'json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const e = etcdOf(r)!;
    expect(e).toMatchObject({ url, gates: [] });
    expect(e.error).toBeUndefined();
    expect(Object.fromEntries(e.reported!.map((g) => [g.name, [g.stage, g.enabled]]))).toEqual({
      AllAlpha: ['ALPHA', false], AllBeta: ['BETA', false], CompactHashCheck: ['ALPHA', true], InitialCorruptCheck: ['ALPHA', false],
      LeaseCheckpoint: ['ALPHA', true], LeaseCheckpointPersist: ['ALPHA', false], SetMemberLocalAddr: ['ALPHA', false],
      StopGRPCServiceOnDefrag: ['ALPHA', false], TxnModeWriteWithSharedBuffer: ['BETA', true],
    });
    const table = withCert();
    expect(table.stdout).toContain(`etcd (${url}): reports 9 gates of its own, on: CompactHashCheck, LeaseCheckpoint, TxnModeWriteWithSharedBuffer`);
  });

  it('judges what --etcd-feature-gates declares: a gate etcd runs otherwise is a mismatch (exit 1), one it lacks not-in-component', () => {
    const r = withCert('--etcd-feature-gates', 'LeaseCheckpoint=true,StopGRPCServiceOnDefrag=true,NoSuchGate=false', '-o', 'json');
    expect(r.code).toBe(1);
    expect(etcdOf(r)!.gates).toEqual([
      { name: 'LeaseCheckpoint', desired: true, running: true, verdict: 'match' },
      { name: 'StopGRPCServiceOnDefrag', desired: true, running: false, verdict: 'mismatch' },
      { name: 'NoSuchGate', desired: false, running: null, verdict: 'not-in-component' },
    ]);
    expect(withCert('--etcd-feature-gates', 'LeaseCheckpoint=true,CompactHashCheck=true').code).toBe(0);
  });

  it('cannot read etcd without the client certificate, or trusting another CA: unreachable, exit 1, the others still judged', () => {
    for (const r of [verify('--etcd-cafile', certs.ca, '-o', 'json'), verify('--etcd-cafile', otherCA, '--etcd-certfile', certs.client, '--etcd-keyfile', certs.clientKey, '-o', 'json')]) {
      expect(r.code).toBe(1);
      const report = JSON.parse(r.stdout) as VerifyReport;
      expect(report.components.find((c) => c.name === 'etcd')!.error).toMatch(/^unreachable: GET \/metrics: /);
      expect(report.components.find((c) => c.name === 'kube-apiserver')!.gates.length).toBe(2);
    }
  });

  it('says which flag is wrong', () => {
    const cases: [string[], string][] = [
      [['--etcd-certfile', certs.client], '--etcd-certfile and --etcd-keyfile go together'],
      [['--etcd-certfile', certs.client, '--etcd-keyfile', certs.client], `--etcd-keyfile ${certs.client}: no PEM private key in it`],
      [['--etcd-feature-gates', 'LeaseCheckpoint'], '--etcd-feature-gates: expected GATE=true|false'],
    ];
    for (const [args, message] of cases) {
      const r = verify(...args);
      expect([args, r.code]).toEqual([args, 2]);
      expect(r.stderr).toContain(message);
    }
    const noEtcd = runCLI(['verify', '--kubeconfig', plane.kubeconfigPath, '--etcd-cafile', certs.ca]);
    expect(noEtcd.stderr).toContain('--etcd-cafile goes with --component etcd=URL');
    const operator = runCLI(['operator', '--operator-version', '4.22.0', '--authoritative-feature-gate-dir', '.', '--running-gates-component', `etcd=${url}`]);
    expect(operator.code).toBe(2);
    expect(operator.stderr).toContain('etcd\'s own gates are checked by `featuregates verify --component etcd=URL` only');
  });
});
