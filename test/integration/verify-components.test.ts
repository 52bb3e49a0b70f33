// `featuregates verify --component` against real kube-controller-manager and kube-scheduler v1.36 beside the
// real kube-apiserver, each started with chosen --feature-gates: KCM emulating 1.35 with an alpha gate turned
// on (and /flagz, alpha at 1.35, not served), the scheduler at 1.36 with another one turned on (told, as its
// /flagz says). Checked: exactly the injected mismatches per component; the emulated version of a component
// that serves no /version (from its version_info gauge) and not-at-emulated-version there, never mismatch; a
// stopped component is unreachable while the others are still judged; a token without the RBAC is forbidden
// on every component (their delegated authorization asks the API server); a serving certificate not signed
// by the given CA is refused; only https URLs get the kubeconfig's credentials.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ComponentCheck, VerifyReport } from '../../api-types/index.js';
import { KubeTransport, readKubeconfigFile } from '../../runtime/index.js';
import { bundledCRDPaths, serviceAccountKubeConfig, setClusterVersion, setFeatureGateStatus, startControlPlane, type ControlPlane } from '../../sdk/testing/index.js';
import { runCLI } from '../support/cli.js';
import { startComponent, type RunningComponent } from '../support/components.js';
import { tempDirs } from '../support/temp.js';

const tempDir = tempDirs();

describe('featuregates verify --component (kube-apiserver, kube-controller-manager, kube-scheduler v1.36)', () => {
  let plane: ControlPlane;
  let kcm: RunningComponent;
  let scheduler: RunningComponent;
  let caFile: string;
  beforeAll(async () => {
    plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
    const kc = readKubeconfigFile(plane.kubeconfigPath)!;
    await setClusterVersion(kc, { history: ['4.22.0'] });
    await setFeatureGateStatus(kc, [{
      version: '4.22.0',
      // Beta on by default everywhere; OpenShift-only.
      enabled: ['AllowParsingUserUIDFromCertAuth', 'OpenShiftPodSecurityAdmission'],
      // Alpha, off by default: KCM is started with the first on, the scheduler with the second; the third is new in 1.36.
      disabled: ['APIServingWithRoutine', 'AllowUnsafeMalformedObjectDeletion', 'DRAListTypeAttributes'],
    }]);
    [kcm, scheduler] = await Promise.all([
      startComponent(plane, 'kube-controller-manager', ['--emulated-version=1.35', '--feature-gates=APIServingWithRoutine=true']),
      startComponent(plane, 'kube-scheduler', ['--feature-gates=AllowUnsafeMalformedObjectDeletion=true']),
    ]);
    caFile = join(tempDir('fgc-verify-components-'), 'components-ca.pem');
    writeFileSync(caFile, Buffer.concat([readFileSync(kcm.certFile), readFileSync(scheduler.certFile)]));
  }, 180_000);
  afterAll(async () => {
    await Promise.all([kcm?.stop(), scheduler?.stop()]);
    await plane?.stop();
  });

  const verify = (...args: string[]) => runCLI(['verify', '--kubeconfig', plane.kubeconfigPath, ...args]);
  const withComponents = (...args: string[]) => verify('--component', `kube-controller-manager=${kcm.url}`,
    '--component', `kube-scheduler=${scheduler.url}`, ...args);
  const report = (r: { stdout: string }) => JSON.parse(r.stdout) as VerifyReport;
  const verdicts = (c: ComponentCheck | undefined) => Object.fromEntries((c?.gates ?? []).map((g) => [g.name, [g.verdict, g.running]]));

  it('reports exactly the injected mismatches, per component', () => {
    const r = withComponents('--component-ca-file', caFile, '-o', 'json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    const [api, cm, sched] = report(r).components;
    expect([api?.name, cm?.name, sched?.name]).toEqual(['kube-apiserver', 'kube-controller-manager', 'kube-scheduler']);
    expect([api?.error, cm?.error, sched?.error]).toEqual([undefined, undefined, undefined]);
    expect(cm).toMatchObject({ url: kcm.url, emulatedVersion: '1.35' }); // from version_info: KCM serves no /version
    expect(sched).toMatchObject({ url: scheduler.url, emulatedVersion: '1.36' });
    expect(verdicts(api)).toEqual({
      AllowParsingUserUIDFromCertAuth: ['match', true], OpenShiftPodSecurityAdmission: ['not-in-component', null],
      APIServingWithRoutine: ['match', false], AllowUnsafeMalformedObjectDeletion: ['match', false], DRAListTypeAttributes: ['match', false],
    });
    expect(verdicts(cm)).toEqual({
      AllowParsingUserUIDFromCertAuth: ['match', true], OpenShiftPodSecurityAdmission: ['not-in-component', null],
      APIServingWithRoutine: ['mismatch', true], AllowUnsafeMalformedObjectDeletion: ['match', false],
      DRAListTypeAttributes: ['not-at-emulated-version', null],
    });
    expect(verdicts(sched)).toEqual({
      AllowParsingUserUIDFromCertAuth: ['match', true], OpenShiftPodSecurityAdmission: ['not-in-component', null],
      APIServingWithRoutine: ['match', false], AllowUnsafeMalformedObjectDeletion: ['mismatch', true], DRAListTypeAttributes: ['match', false],
    });
    // /flagz: the scheduler (1.36) says it was told; KCM emulates 1.35, where ComponentFlagz was alpha and off.
    expect(sched!.gates.find((g) => g.name === 'AllowUnsafeMalformedObjectDeletion')).toMatchObject({ requested: true });
    expect(sched!.gates.find((g) => g.name === 'APIServingWithRoutine')).toMatchObject({ requested: null });
    expect(cm!.gates.every((g) => g.requested === undefined)).toBe(true);

    const table = withComponents('--component-ca-file', caFile);
    expect(table.stdout).toMatch(/kube-controller-manager \(https:\/\/127\.0\.0\.1:\d+, emulated 1\.35\): .*\b1 mismatch\b.*\b1 not-at-emulated-version/);
    expect(table.stdout).toMatch(/kube-scheduler \(https:\/\/127\.0\.0\.1:\d+, emulated 1\.36\): .*\b1 mismatch\b/);
    expect(table.stdout).toMatch(/APIServingWithRoutine\s+off\s+on\s+mismatch\n/);
    expect(table.stdout).toMatch(/AllowUnsafeMalformedObjectDeletion\s+off\s+on\s+mismatch\s+told on\n/);
    // Declared as deliberate, the two differences pass.
    expect(withComponents('--component-ca-file', caFile, '--override', 'APIServingWithRoutine=true,AllowUnsafeMalformedObjectDeletion=true').code).toBe(0);
  });

  it('a serving certificate the CA did not sign is unreachable, naming the certificate; the kubeconfig\'s CA is the default', () => {
    const onlyKCM = join(tempDir('fgc-verify-components-'), 'kcm-ca.pem');
    writeFileSync(onlyKCM, readFileSync(kcm.certFile));
    const [, cm, sched] = report(withComponents('--component-ca-file', onlyKCM, '-o', 'json')).components;
    expect(cm?.error).toBeUndefined();
    expect(sched?.error).toMatch(/^unreachable: GET \/metrics: .*certificate/i);
    expect(sched?.gates).toEqual([]);
    // Without --component-ca-file the kubeconfig's CA (kube-apiserver's) is asked to vouch for both: it cannot.
    const [api, cm2, sched2] = report(withComponents('-o', 'json')).components;
    expect(api?.error).toBeUndefined();
    expect(cm2?.error).toMatch(/^unreachable: .*certificate/i);
    expect(sched2?.error).toMatch(/^unreachable: .*certificate/i);
  });

  it('a token without the non-resource URLs is forbidden on every component; the documented ClusterRole is enough', async () => {
    const t = KubeTransport.for(readKubeconfigFile(plane.kubeconfigPath)!);
    const post = (path: string, body: unknown) => t.request({ method: 'POST', path, body });
    await post('/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'verifier' } });
    await post('/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'fg-status-reader' },
      rules: [{ apiGroups: ['config.openshift.io'], resources: ['featuregates', 'clusterversions'], verbs: ['get'] }],
    });
    const bind = (role: string) => post('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: role },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ kind: 'ServiceAccount', name: 'verifier', namespace: 'default' }],
    });
    await bind('fg-status-reader');
    const path = join(tempDir('fgc-verify-components-'), 'sa.kubeconfig');
    writeFileSync(path, (await serviceAccountKubeConfig(plane, 'default', 'verifier')).exportConfig());
    const asVerifier = () => runCLI(['verify', '--kubeconfig', path, '--component', `kube-controller-manager=${kcm.url}`,
      '--component', `kube-scheduler=${scheduler.url}`, '--component-ca-file', caFile, '-o', 'json']);
    const denied = asVerifier();
    expect(denied.code).toBe(1);
    expect(report(denied).components.map((c) => c.error?.replace(/: .*/s, ''))).toEqual(['forbidden', 'forbidden', 'forbidden']);

    await post('/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'fg-verifier' },
      rules: [{ nonResourceURLs: ['/metrics', '/version', '/flagz'], verbs: ['get'] }],
    });
    await bind('fg-verifier');
    // Each component's delegated authorizer caches its answers (KCM and the scheduler: 10 s for a denial).
    let allowed = asVerifier();
    for (let i = 0; i < 30 && report(allowed).components.some((c) => c.error); i++) {
      await new Promise((r) => setTimeout(r, 1_000));
      allowed = asVerifier();
    }
    expect(report(allowed).components.map((c) => c.error)).toEqual([undefined, undefined, undefined]);
    expect(allowed.code).toBe(1); // the two injected mismatches
  }, 60_000);

  it('a stopped component is unreachable; the others are still judged', async () => {
    await scheduler.stop();
    try {
      const r = withComponents('--component-ca-file', caFile, '--request-timeout', '5s', '-o', 'json');
      expect(r.code).toBe(1);
      const [api, cm, sched] = report(r).components;
      expect(sched?.error).toMatch(/^unreachable: GET \/metrics: /);
      expect(sched?.gates).toEqual([]);
      expect(api?.gates.length).toBe(5);
      expect(verdicts(cm).APIServingWithRoutine).toEqual(['mismatch', true]);
    } finally {
      await scheduler.start();
    }
  }, 90_000);

  it('bad --component values are usage errors (exit 2) and nothing is sent', () => {
    const cases: [string[], string][] = [
      [['--component', `kube-scheduler=http://127.0.0.1:1`], 'is not https (the kubeconfig\'s credentials are sent to it)'],
      [['--component', 'kube-scheduler'], '--component: expected NAME=URL'],
      [['--component', 'kube-apiserver=https://127.0.0.1:1'], 'named twice'],
      [['--component', `kube-scheduler=${scheduler.url}`, '--component', `kube-scheduler=${scheduler.url}`], 'named twice'],
      [['--component-ca-file', caFile], '--component-ca-file goes with --component'],
      [['--component', `kube-scheduler=${scheduler.url}`, '--component-ca-file', '/nonexistent/ca.pem'], '--component-ca-file /nonexistent/ca.pem: ENOENT'],
      [['--component', `kube-scheduler=${scheduler.url}`, '--component-ca-file', plane.kubeconfigPath], 'no PEM certificate in it'],
    ];
    for (const [args, message] of cases) {
      const r = verify(...args);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.stderr).toContain(message);
      expect(r.stdout).toBe('');
    }
  });
});
