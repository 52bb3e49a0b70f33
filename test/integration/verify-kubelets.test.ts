// `featuregates verify` against every node's kubelet (issue 65): three real kubelets v1.36 (test/support/kubelet-node.ts:
// the kubelet binary over fake-cri, registered to the plane) whose gates are read through the API server's node proxy.
// Two run the desired gates, one was started with an alpha gate the FeatureGate disables: verify names that node, by
// name, exit 1, and groups the two that match. A node that stops answering is reported as unreachable (exit 1), a
// NotReady node as not read; `--kubelets none` reads none; a token without the RBAC is forbidden for the nodes.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { PreflightReport, VerifyReport } from '../../api-types/index.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClusterOperatorResource, KubeTransport, ResourceClient, readKubeconfigFile } from '../../runtime/index.js';
import {
  bundledCRDPaths,
  serviceAccountKubeConfig,
  setClusterVersion,
  setFeatureGateSpec,
  setFeatureGateStatus,
  startControlPlane,
  type ControlPlane,
} from '../../sdk/testing/index.js';
import { runCLI } from '../support/cli.js';
import { startKubeletNode, type KubeletNode } from '../support/kubelet-node.js';
import { kubernetesGatesPayload } from '../support/payloads.js';
import { eventually } from '../support/timing.js';
import { startOperator } from '../../controllers/manager.js';
import { tempDirs } from '../support/temp.js';

const tempDir = tempDirs();

describe('featuregates verify: every node\'s kubelet (real kubelets v1.36 through the node proxy)', () => {
  let plane: ControlPlane;
  let nodes: KubeletNode[] = [];
  beforeAll(async () => {
    plane = await startControlPlane({ crdPaths: bundledCRDPaths(), extraAPIServerArgs: ['--kubelet-preferred-address-types=InternalIP'] });
    const kc = readKubeconfigFile(plane.kubeconfigPath)!;
    await setClusterVersion(kc, { history: ['4.22.0'] });
    await setFeatureGateStatus(kc, [{
      version: '4.22.0',
      enabled: ['KubeletCrashLoopBackOffMax', 'OpenShiftPodSecurityAdmission'], // beta on by default; OpenShift-only
      disabled: ['CPUManagerPolicyAlphaOptions'], // alpha, off: worker-3 is started with it on
    }]);
    const desired = { KubeletCrashLoopBackOffMax: true, CPUManagerPolicyAlphaOptions: false };
    nodes = await Promise.all([
      startKubeletNode(plane.kubeconfigPath, 'worker-1', desired),
      // worker-2 sets a field its (beta, on by default) gate must be on for: preflight judges a set that turns it off
      startKubeletNode(plane.kubeconfigPath, 'worker-2', desired, { imagePullCredentialsVerificationPolicy: 'AlwaysVerify' }),
      startKubeletNode(plane.kubeconfigPath, 'worker-3', { ...desired, CPUManagerPolicyAlphaOptions: true }),
    ]);
    // Ready: each kubelet has registered its node and posted its status
    const deadline = Date.now() + 60_000;
    for (;;) {
      const r = runCLI(['verify', '--kubeconfig', plane.kubeconfigPath, '-o', 'json']);
      const k = (JSON.parse(r.stdout) as VerifyReport).kubelets;
      if (k && k.nodes === 3 && k.groups.every((g) => g.error === undefined)) break;
      if (Date.now() > deadline) throw new Error(`the three kubelets did not turn Ready: ${r.stdout}`);
      await new Promise((res) => setTimeout(res, 1_000));
    }
  }, 180_000);
  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await plane?.stop();
  });

  const verify = (...args: string[]) => runCLI(['verify', '--kubeconfig', plane.kubeconfigPath, ...args]);

  it('names the mismatched node, groups the others, exit 1', () => {
    const r = verify('-o', 'json');
    expect(r.code).toBe(1);
    const k = (JSON.parse(r.stdout) as VerifyReport).kubelets!;
    expect(k.nodes).toBe(3);
    expect(k.groups.map((g) => g.nodes)).toEqual([['worker-3'], ['worker-1', 'worker-2']]);
    const verdicts = (i: number) => Object.fromEntries(k.groups[i]!.gates.map((g) => [g.name, [g.verdict, g.running]]));
    expect(verdicts(0)).toEqual({ KubeletCrashLoopBackOffMax: ['match', true], OpenShiftPodSecurityAdmission: ['not-in-component', null], CPUManagerPolicyAlphaOptions: ['mismatch', true] });
    expect(verdicts(1)).toEqual({ KubeletCrashLoopBackOffMax: ['match', true], OpenShiftPodSecurityAdmission: ['not-in-component', null], CPUManagerPolicyAlphaOptions: ['match', false] });
    const table = verify();
    expect(table.code).toBe(1);
    expect(table.stdout).toContain('kubelets (3 nodes): 1 node 1 mismatch: worker-3; 2 nodes match');
    expect(table.stdout).toMatch(/worker-3:\n\s+GATE\s+DESIRED RUNNING VERDICT\s+TOLD\n\s+CPUManagerPolicyAlphaOptions off\s+on\s+mismatch/);
  });

  it('--kubelets none reads no node; a bad value is a usage error', () => {
    const r = verify('--kubelets', 'none', '-o', 'json');
    expect((JSON.parse(r.stdout) as VerifyReport).kubelets).toBeUndefined();
    expect(r.code).toBe(0); // kube-apiserver alone runs the desired gates
    expect(verify('--kubelets', 'some').code).toBe(2);
  });

  it('a token without the nodes\' RBAC: the kubelets are "forbidden", exit 1; list nodes and get nodes/proxy are enough', async () => {
    const t = KubeTransport.for(readKubeconfigFile(plane.kubeconfigPath)!);
    const post = (path: string, body: unknown) => t.request({ method: 'POST', path, body });
    await post('/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'verifier' } });
    const role = async (name: string, rules: unknown[]) => {
      await post('/apis/rbac.authorization.k8s.io/v1/clusterroles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules });
      await post('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
        apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name }, subjects: [{ kind: 'ServiceAccount', name: 'verifier', namespace: 'default' }],
      });
    };
    await role('fg-verifier', [{ apiGroups: ['config.openshift.io'], resources: ['featuregates', 'clusterversions'], verbs: ['get'] },
      { nonResourceURLs: ['/metrics', '/version', '/flagz'], verbs: ['get'] }]);
    const path = join(tempDir('fgc-verify-kubelets-'), 'sa.kubeconfig');
    writeFileSync(path, (await serviceAccountKubeConfig(plane, 'default', 'verifier')).exportConfig());
    const denied = runCLI(['verify', '--kubeconfig', path, '-o', 'json']);
    expect(denied.code).toBe(1);
    expect((JSON.parse(denied.stdout) as VerifyReport).kubelets?.error).toMatch(/^forbidden: list nodes: /);
    await role('fg-kubelet-verifier', [{ apiGroups: [''], resources: ['nodes'], verbs: ['list'] }, { apiGroups: [''], resources: ['nodes/proxy'], verbs: ['get'] }]);
    const allowed = runCLI(['verify', '--kubeconfig', path, '-o', 'json']);
    expect((JSON.parse(allowed.stdout) as VerifyReport).kubelets?.groups.map((g) => [g.error, g.nodes])).toEqual([[undefined, ['worker-3']], [undefined, ['worker-1', 'worker-2']]]);
  }, 60_000);

  it('preflight with the cluster: each node\'s kubelet judged with its own configuration, nodes grouped, the refusing node named (issue 65)', async () => {
    const kc = readKubeconfigFile(plane.kubeconfigPath)!;
    // an upgrade to 4.23.0 whose entry turns KubeletEnsureSecretPulledImages off: worker-2's AlwaysVerify would stop it
    await setClusterVersion(kc, { desired: '4.23.0', history: [{ version: '4.23.0', state: 'Partial' }, '4.22.0'] });
    const entry = { enabled: ['KubeletCrashLoopBackOffMax'], disabled: ['CPUManagerPolicyAlphaOptions'] };
    await setFeatureGateStatus(kc, [{ version: '4.23.0', ...entry, disabled: [...entry.disabled, 'KubeletEnsureSecretPulledImages'] }, { version: '4.22.0', ...entry }]);
    try {
      const r = runCLI(['preflight', '--kubeconfig', plane.kubeconfigPath, '--kubernetes-version', '1.36', '-o', 'json']);
      expect(r.code).toBe(1);
      const rep = JSON.parse(r.stdout) as PreflightReport;
      expect(rep.components.every((c) => c.starts)).toBe(true); // the kubelet with its defaults starts; worker-2 does not
      expect(rep.nodes?.groups.map((g) => [g.nodes, g.starts, g.problems.map((p) => `${p.kind}:${p.gate}:${p.field}`)])).toEqual([
        [['worker-1', 'worker-3'], true, []],
        [['worker-2'], false, ['config:KubeletEnsureSecretPulledImages:imagePullCredentialsVerificationPolicy']],
      ]);
      expect(rep.nodes?.unread).toEqual([]);
      const table = runCLI(['preflight', '--kubeconfig', plane.kubeconfigPath, '--kubernetes-version', '1.36']);
      expect(table.stdout).toContain('  worker-1, worker-3: start\n  worker-2: REFUSE (1)\n    config KubeletEnsureSecretPulledImages (imagePullCredentialsVerificationPolicy): ' +
        'invalid configuration: `imagePullCredentialsVerificationPolicy` must not be set if KubeletEnsureSecretPulledImages feature gate is not enabled');
      expect(runCLI(['preflight', '--kubeconfig', plane.kubeconfigPath, '--kubernetes-version', '1.36', '--kubelets', 'none']).code).toBe(0);
    } finally {
      await setClusterVersion(kc, { history: ['4.22.0'] });
      await setFeatureGateStatus(kc, [{ version: '4.22.0', enabled: ['KubeletCrashLoopBackOffMax', 'OpenShiftPodSecurityAdmission'], disabled: ['CPUManagerPolicyAlphaOptions'] }]);
    }
  });

  it('the operator with the kubelets read: the node counts, a Warning naming worker-3, the admission params, Degraded naming worker-2 for a spec it refuses', async () => {
    const kc = readKubeconfigFile(plane.kubeconfigPath)!;
    const payload = kubernetesGatesPayload(tempDir('fgc-running-kubelets-'),
      { enabled: ['KubeletCrashLoopBackOffMax', 'OpenShiftPodSecurityAdmission'], disabled: ['CPUManagerPolicyAlphaOptions'] });
    // two nodes per period: the sweep of three nodes takes two periods, and goes on round
    const op = await startOperator({ kubeConfig: kc, operatorVersion: '4.22.0', featureGateDir: payload, namespace: 'default', metricsBindAddress: '0',
      healthProbeBindAddress: '0', runningGatesPeriodMs: 60_000, runningGatesKubeletsPerMinute: 2, runningGatesKubeletsPeriodMs: 300, degradedInertiaMs: 0 });
    try {
      const counts = async () => Object.fromEntries((await op.metrics.getSingleMetricAsString('featuregates_running_gates_kubelets')).split('\n')
        .filter((l) => l && !l.startsWith('#')).map((l) => [/verdict="([^"]+)"/.exec(l)![1]!, Number(l.split(' ').pop())]));
      await eventually(async () => expect(await counts()).toEqual({ match: 2, mismatch: 1, unreachable: 0, forbidden: 0, 'not-ready': 0 }), 30_000);
      const events = await KubeTransport.for(kc).request({ method: 'GET', path: '/api/v1/namespaces/default/events' }) as { items: { reason: string; message: string }[] };
      expect(events.items.filter((e) => e.reason === 'RunningGatesMismatch').map((e) => e.message)).toContain(
        'the kubelets of 1 node(s) run gates other than FeatureGate/cluster status says for 4.22.0, or cannot be read: worker-3 (CPUManagerPolicyAlphaOptions on) (featuregates verify)');
      // and the admission guard's params carry what the nodes' own configurations refuse (worker-2 sets AlwaysVerify)
      const params = async () => (await KubeTransport.for(kc).request({ method: 'GET', path: '/api/v1/namespaces/default/configmaps/featuregate-known-gates' }) as { data: Record<string, string> }).data;
      await eventually(async () => expect((await params())['start.kubelet']).toBe('KubeletEnsureSecretPulledImages=false|imagePullCredentialsVerificationPolicy|worker-2'), 30_000);
      // a spec applied past the guard that worker-2's kubelet refuses: the operator says so, naming the node
      await setFeatureGateSpec(kc, { featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: [], disabled: ['KubeletEnsureSecretPulledImages'] } });
      const degraded = async () => (await new ResourceClient(kc, ClusterOperatorResource).get('config-operator')).status?.conditions?.find((c) => c.type === 'Degraded');
      await eventually(async () => expect((await degraded())?.message).toContain('GatesThatStartDegraded: KubeletEnsureSecretPulledImages (config): invalid configuration: ' +
        '`imagePullCredentialsVerificationPolicy` must not be set if KubeletEnsureSecretPulledImages feature gate is not enabled (the kubelets of worker-2)'), 30_000, 200);
    } finally {
      await op.stop();
      // (the CustomNoUpgrade spec stays: it cannot be undone; what the next test reads is the status entry)
      await setFeatureGateStatus(kc, [{ version: '4.22.0', enabled: ['KubeletCrashLoopBackOffMax', 'OpenShiftPodSecurityAdmission'], disabled: ['CPUManagerPolicyAlphaOptions'] }]);
    }
  }, 60_000);

  it('a node whose kubelet stops answering is unreachable, named; then NotReady nodes are reported, not read', async () => {
    const gone = nodes.pop()!;
    await gone.stop();
    const r = verify('-o', 'json', '--request-timeout', '3s');
    const k = (JSON.parse(r.stdout) as VerifyReport).kubelets!;
    expect(r.code).toBe(1);
    const down = k.groups.find((g) => g.nodes.includes('worker-3'))!;
    expect(down.error).toMatch(/^unreachable: /);
    expect(k.groups.find((g) => g.nodes.includes('worker-1'))?.nodes).toEqual(['worker-1', 'worker-2']);

    // as the node lifecycle controller would mark it: Ready False — reported, not read, and no longer a failure
    const t = KubeTransport.for(readKubeconfigFile(plane.kubeconfigPath)!);
    const node = await t.request({ method: 'GET', path: '/api/v1/nodes/worker-3' }) as { status: { conditions: { type: string; status: string }[] } };
    node.status.conditions = node.status.conditions.map((c) => (c.type === 'Ready' ? { ...c, status: 'False', reason: 'KubeletStopped' } : c));
    await t.request({ method: 'PUT', path: '/api/v1/nodes/worker-3/status', body: node });
    const later = verify('-o', 'json');
    expect((JSON.parse(later.stdout) as VerifyReport).kubelets!.groups.map((g) => [g.error, g.nodes])).toEqual([[undefined, ['worker-1', 'worker-2']], ['not ready', ['worker-3']]]);
    expect(later.code).toBe(0);
    expect(verify().stdout).toContain('kubelets (3 nodes): 2 nodes match; 1 node not ready (not read): worker-3');
  }, 60_000);
});
