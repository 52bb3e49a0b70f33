// `featuregates verify` against a real kube-apiserver v1.36 started with chosen --feature-gates and
// --emulated-version 1.35: the desired gates come from a FeatureGate status entry, the running ones from the
// server's own kubernetes_feature_enabled gauge, /flagz and /version. Checked: exactly the injected
// mismatches; an OpenShift gate is not-in-component; a gate Kubernetes added in 1.36 is
// not-at-emulated-version (never mismatch); declared overrides read as overridden (exit 0); a token without
// the non-resource URL is forbidden; a stopped server is unreachable; render inputs (payload manifests and a
// FeatureGate file) instead of the cluster's status.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { VerifyReport } from '../../api-types/index.js';
import { KubeTransport, readKubeconfigFile } from '../../runtime/index.js';
import { bundledCRDPaths, serviceAccountKubeConfig, setClusterVersion, setFeatureGateStatus, startControlPlane, type ControlPlane } from '../../sdk/testing/index.js';
import { runCLI } from '../support/cli.js';
import { eventually } from '../support/timing.js';
import { kubernetesGatesPayload } from '../support/payloads.js';
import { tempDirs } from '../support/temp.js';

const tempDir = tempDirs();

describe('featuregates verify (kube-apiserver v1.36, emulating 1.35)', () => {
  let plane: ControlPlane;
  beforeAll(async () => {
    plane = await startControlPlane({
      crdPaths: bundledCRDPaths(),
      extraAPIServerArgs: ['--emulated-version=1.35', '--feature-gates=APIResponseCompression=false,APIServingWithRoutine=true'],
    });
    const kc = readKubeconfigFile(plane.kubeconfigPath)!;
    await setClusterVersion(kc, { history: ['4.22.0'] });
    await setFeatureGateStatus(kc, [{
      version: '4.22.0',
      // Beta on by default, turned off at start; on and left alone; OpenShift-only; new in Kubernetes 1.36.
      enabled: ['APIResponseCompression', 'AllowParsingUserUIDFromCertAuth', 'OpenShiftPodSecurityAdmission', 'DRAListTypeAttributes'],
      // Alpha, turned on at start; off and left alone.
      disabled: ['APIServingWithRoutine', 'AllowUnsafeMalformedObjectDeletion'],
    }]);
  }, 120_000);
  afterAll(async () => { await plane?.stop(); });

  const verify = (...args: string[]) => runCLI(['verify', '--kubeconfig', plane.kubeconfigPath, ...args]);

  it('reports exactly the injected mismatches, and why the absent gates are absent', () => {
    const r = verify('-o', 'json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as VerifyReport;
    expect(report.version).toBe('4.22.0');
    const [c] = report.components;
    expect(c).toMatchObject({ name: 'kube-apiserver', emulatedVersion: '1.35' });
    expect(c!.error).toBeUndefined();
    const byName = Object.fromEntries(c!.gates.map((g) => [g.name, g]));
    expect(byName).toEqual({
      APIResponseCompression: { name: 'APIResponseCompression', desired: true, running: false, verdict: 'mismatch' },
      AllowParsingUserUIDFromCertAuth: { name: 'AllowParsingUserUIDFromCertAuth', desired: true, running: true, verdict: 'match' },
      OpenShiftPodSecurityAdmission: { name: 'OpenShiftPodSecurityAdmission', desired: true, running: null, verdict: 'not-in-component' },
      DRAListTypeAttributes: { name: 'DRAListTypeAttributes', desired: true, running: null, verdict: 'not-at-emulated-version' },
      APIServingWithRoutine: { name: 'APIServingWithRoutine', desired: false, running: true, verdict: 'mismatch' },
      AllowUnsafeMalformedObjectDeletion: { name: 'AllowUnsafeMalformedObjectDeletion', desired: false, running: false, verdict: 'match' },
    }); // /flagz is off at 1.35 (ComponentFlagz was alpha): the verdicts come from /metrics alone
    const table = verify();
    expect(table.code).toBe(1);
    expect(table.stdout).toMatch(/kube-apiserver \(https:\/\/127\.0\.0\.1:\d+, emulated 1\.35\): 2 mismatch, 2 match, 1 not-in-component, 1 not-at-emulated-version/);
    expect(table.stdout).toMatch(/APIResponseCompression\s+on\s+off\s+mismatch\n/);
    expect(table.stdout).toMatch(/APIServingWithRoutine\s+off\s+on\s+mismatch\n/);
    expect(table.stdout).not.toContain('AllowParsingUserUIDFromCertAuth');
    expect(verify('-o', 'wide').stdout).toMatch(/AllowParsingUserUIDFromCertAuth\s+on\s+on\s+match\n/);
  });

  it('declared overrides read as overridden and pass; a malformed one is a usage error', () => {
    const r = verify('--override', 'APIResponseCompression=false,APIServingWithRoutine=true', '-o', 'json');
    expect(r.code).toBe(0);
    const gates = (JSON.parse(r.stdout) as VerifyReport).components[0]!.gates;
    expect(gates.filter((g) => g.verdict === 'overridden').map((g) => g.name).sort()).toEqual(['APIResponseCompression', 'APIServingWithRoutine']);
    const bad = verify('--override', 'APIResponseCompression');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--override: expected GATE=true|false, got "APIResponseCompression"');
  });

  it('render inputs: the desired gates rendered from payload manifests (and a FeatureGate file), not the cluster\'s status', () => {
    const payload = kubernetesGatesPayload(tempDir('fgc-verify-render-'));
    const verdicts = (r: { stdout: string }) =>
      Object.fromEntries((JSON.parse(r.stdout) as VerifyReport).components[0]!.gates.map((g) => [g.name, g.verdict]));
    // The payload's Default: APIResponseCompression on (this server runs it off), APIServingWithRoutine off (runs on).
    const r = verify('--authoritative-feature-gate-dir', payload, '--payload-version', '4.22.0', '-o', 'json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    expect((JSON.parse(r.stdout) as VerifyReport).version).toBe('4.22.0');
    expect(verdicts(r)).toEqual({ APIResponseCompression: 'mismatch', OpenShiftOnlyGate: 'not-in-component', APIServingWithRoutine: 'mismatch' });
    // A CustomNoUpgrade FeatureGate asking for what this server was started with: everything it has matches, exit 0.
    const fg = join(tempDir('fgc-verify-render-fg-'), 'featuregate.yaml');
    writeFileSync(fg, 'apiVersion: config.openshift.io/v1\nkind: FeatureGate\nmetadata: {name: cluster}\n' +
      'spec:\n  featureSet: CustomNoUpgrade\n  customNoUpgrade: {enabled: [APIServingWithRoutine], disabled: [APIResponseCompression]}\n');
    const custom = verify('--authoritative-feature-gate-dir', payload, '--payload-version', '4.22.0', '--featuregate', fg, '-o', 'json');
    expect(custom.code).toBe(0);
    expect(verdicts(custom)).toEqual({ APIResponseCompression: 'match', OpenShiftOnlyGate: 'not-in-component', APIServingWithRoutine: 'match' });
    // Render flags without the payload folder, or --version with it: usage errors (exit 2), nothing read.
    const half = verify('--payload-version', '4.22.0');
    expect(half.code).toBe(2);
    expect(half.stderr).toContain('--payload-version goes with --authoritative-feature-gate-dir (render inputs)');
    const both = verify('--authoritative-feature-gate-dir', payload, '--payload-version', '4.22.0', '--version', '4.22.0');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('with render inputs use --payload-version');
  });

  it('a version with no status entry is exit 2, saying which entries there are', () => {
    const r = verify('--version', '4.23.0');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('FeatureGate/cluster status has no entry for 4.23.0 (entries: 4.22.0)');
  });

  it('a token that may read the FeatureGate but not /metrics: forbidden, exit 1', async () => {
    const t = KubeTransport.for(readKubeconfigFile(plane.kubeconfigPath)!);
    const post = (path: string, body: unknown) => t.request({ method: 'POST', path, body });
    await post('/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'reader' } });
    await post('/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'fg-reader' },
      rules: [{ apiGroups: ['config.openshift.io'], resources: ['featuregates', 'clusterversions'], verbs: ['get'] }],
    });
    await post('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'fg-reader' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'fg-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: 'default' }],
    });
    const sa = await serviceAccountKubeConfig(plane, 'default', 'reader');
    const path = join(tempDir('fgc-verify-'), 'sa.kubeconfig');
    writeFileSync(path, sa.exportConfig());
    const r = runCLI(['verify', '--kubeconfig', path, '-o', 'json']);
    expect(r.code).toBe(1);
    const c = (JSON.parse(r.stdout) as VerifyReport).components[0]!;
    expect(c.error).toMatch(/^forbidden: GET \/metrics: /);
    expect(c.gates).toEqual([]);

    // The RBAC docs/verify.md gives is enough.
    await post('/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'fg-verifier' },
      rules: [{ nonResourceURLs: ['/metrics', '/version', '/flagz'], verbs: ['get'] }],
    });
    await post('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'fg-verifier' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'fg-verifier' },
      subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: 'default' }],
    });
    await eventually(() => { // the authorizer's cache takes the new binding in a moment
      const read = (JSON.parse(runCLI(['verify', '--kubeconfig', path, '-o', 'json']).stdout) as VerifyReport).components[0]!;
      expect(read.error).toBeUndefined();
      expect(read.gates.filter((g) => g.verdict === 'mismatch').map((g) => g.name).sort()).toEqual(['APIResponseCompression', 'APIServingWithRoutine']);
    }, 10_000, 200);
  });
});

describe('featuregates verify where /flagz is served (kube-apiserver v1.36, not emulating)', () => {
  let plane: ControlPlane;
  beforeAll(async () => {
    plane = await startControlPlane({ crdPaths: bundledCRDPaths(), extraAPIServerArgs: ['--feature-gates=APIResponseCompression=false'] });
    const kc = readKubeconfigFile(plane.kubeconfigPath)!;
    await setClusterVersion(kc, { history: ['4.22.0'] });
    await setFeatureGateStatus(kc, [{ version: '4.22.0', enabled: ['APIResponseCompression', 'AllowParsingUserUIDFromCertAuth'], disabled: ['APIServingWithRoutine'] }]);
  }, 120_000);
  afterAll(async () => { await plane?.stop(); });

  it('says whether each gate was told (the requested --feature-gates) or never told', () => {
    const r = runCLI(['verify', '--kubeconfig', plane.kubeconfigPath, '-o', 'json']);
    expect(r.code).toBe(1);
    const [c] = (JSON.parse(r.stdout) as VerifyReport).components;
    expect(c!.emulatedVersion).toBe('1.36');
    expect(c!.gates).toEqual([
      { name: 'APIResponseCompression', desired: true, running: false, verdict: 'mismatch', requested: false },
      { name: 'AllowParsingUserUIDFromCertAuth', desired: true, running: true, verdict: 'match', requested: null },
      { name: 'APIServingWithRoutine', desired: false, running: false, verdict: 'match', requested: null },
    ]);
    expect(runCLI(['verify', '--kubeconfig', plane.kubeconfigPath]).stdout).toMatch(/APIResponseCompression\s+on\s+off\s+mismatch\s+told off/);
  });
});
