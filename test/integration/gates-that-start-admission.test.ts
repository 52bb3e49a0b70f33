// The gates-that-start admission guard on a real API server (issue 45): deploy/base/admission's policy, its params
// written by the operator's KnownGatesParams reconciler from Kubernetes' rules for the version the API server
// reports (GET /version: v1.36.3) and the release-4.23 payload's Default set. The CustomNoUpgrade (two
// locked gates disabled) is refused naming gates and rule; a valid one is admitted; a dependency broken through
// a default is refused; when the cluster's Kubernetes version moves (1.35), the params move: a gate locked only from
// 1.36 is admitted, and another refusal names 1.35's rule. With the nodes' kubelet configurations (issue 65), a setting
// some nodes' kubelets refuse is refused naming them. Its own plane: the policy is cluster-wide.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { KNOWN_GATES_CONFIGMAP } from '../../api-types/index.js';
import { ConfigMapResource, KubeTransport, apiServerVersion, ResourceClient, loadRegistry } from '../../runtime/index.js';
import { knownGatesParamsReconciler } from '../../controllers/known-gates-params.js';
import { bundledCRDPaths, ensureNamespace, startControlPlane, type ControlPlane } from '../../sdk/testing/index.js';
import { eventually } from '../support/timing.js';
import { PAYLOAD_ROOT } from '../support/payloads.js';

const NS = 'featuregate-coordinator';
const FEATUREGATES = '/apis/config.openshift.io/v1/featuregates';

describe('the gates-that-start admission guard', () => {
  let plane: ControlPlane;
  let t: KubeTransport;
  const registry = loadRegistry(join(PAYLOAD_ROOT, 'releases', 'release-4.23'), { operatorVersion: '4.23.0' });
  const clusterVersions = { get: () => undefined, addListener: () => () => true };
  /** A dry-run create of FeatureGate/cluster with these lists: '' when admitted, else the refusal. */
  const tryCustom = async (customNoUpgrade: { enabled?: string[]; disabled?: string[] }) => {
    try {
      await t.request({ method: 'POST', path: FEATUREGATES, query: { dryRun: 'All' }, body: {
        apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', metadata: { name: 'cluster' }, spec: { featureSet: 'CustomNoUpgrade', customNoUpgrade },
      } });
      return '';
    } catch (e) {
      return (e as Error).message;
    }
  };

  beforeAll(async () => {
    plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
    t = KubeTransport.for(plane.kubeConfig);
    await ensureNamespace(plane.kubeConfig, NS);
    const docs = parseAllDocuments(readFileSync(join('deploy', 'base', 'admission', 'gates-that-start-policy.yaml'), 'utf8')).map((d) => d.toJS() as { kind: string });
    for (const doc of docs) {
      const plural = doc.kind === 'ValidatingAdmissionPolicy' ? 'validatingadmissionpolicies' : 'validatingadmissionpolicybindings';
      await t.request({ method: 'POST', path: `/apis/admissionregistration.k8s.io/v1/${plural}`, body: doc });
    }
  }, 120_000);
  afterAll(async () => plane?.stop());

  it('refuses the issue\'s spec naming gates and rule, admits a valid one, and follows the cluster\'s Kubernetes version', async () => {
    // No params yet: nothing is checked (the operator has not written them).
    expect(await tryCustom({ disabled: ['MutableCSINodeAllocatableCount'] })).toBe('');
    await knownGatesParamsReconciler({ kubeConfig: plane.kubeConfig, namespace: NS, operatorVersion: '4.23.0', registry, clusterVersions,
      kubernetesVersion: apiServerVersion(plane.kubeConfig) })();
    const params = (await new ResourceClient(plane.kubeConfig, ConfigMapResource, undefined, { namespace: NS }).get(KNOWN_GATES_CONFIGMAP))
      .data!;
    expect(params['start.kubernetes']).toBe('1.36.3'); // the API server's own /version
    expect(params['start.refused']!.split(',')).toContain('ServiceAccountTokenNodeBinding=false');

    // The policy loads asynchronously: in force once the spec is refused.
    await eventually(async () => expect(await tryCustom({ disabled: ['MutableCSINodeAllocatableCount', 'ServiceAccountTokenNodeBinding'] }))
      .toContain('kube-apiserver 1.36.3 (and every component of the cluster) would refuse to start with this CustomNoUpgrade spec: ' +
        'cannot set feature gate MutableCSINodeAllocatableCount to false, feature is locked to true; ' +
        'cannot set feature gate ServiceAccountTokenNodeBinding to false, feature is locked to true.'), 20_000, 200);
    // Valid custom sets: a Kubernetes gate on, OpenShift gates either way, a locked gate at its own value.
    expect(await tryCustom({ enabled: ['DRAAdminAccess', 'CRIListStreaming', 'GatewayAPI'], disabled: ['ExampleGate'] })).toBe('');
    expect(await tryCustom({ enabled: ['ServiceAccountTokenNodeBinding'] })).toBe('');
    // A dependency broken through a default: ClusterTrustBundle is off by default at 1.36, its projection is not asked for.
    expect(await tryCustom({ enabled: ['ClusterTrustBundleProjection'] }))
      .toContain('ClusterTrustBundleProjection is enabled, but depends on features that are disabled: [ClusterTrustBundle]');
    expect(await tryCustom({ enabled: ['ClusterTrustBundleProjection', 'ClusterTrustBundle'] })).toBe('');

    expect(await tryCustom({ disabled: ['UserNamespacesSupport'] })).toContain('cannot set feature gate UserNamespacesSupport to false, feature is locked to true');

    // The cluster's Kubernetes version moves (an upgrade's API server reports 1.35): the params follow.
    await knownGatesParamsReconciler({ kubeConfig: plane.kubeConfig, namespace: NS, operatorVersion: '4.23.0', registry, clusterVersions,
      kubernetesVersion: async () => '1.35.4' })();
    // MutableCSINodeAllocatableCount is locked from 1.36 only; at 1.35 UserNamespacesSupport=false breaks a default-on dependent.
    await eventually(async () => expect(await tryCustom({ disabled: ['MutableCSINodeAllocatableCount'] })).toBe(''), 20_000, 200);
    expect(await tryCustom({ disabled: ['UserNamespacesSupport'] }))
      .toContain('kube-apiserver 1.35.4 (and every component of the cluster) would refuse to start with this CustomNoUpgrade spec: ' +
        'ProcMountType is enabled, but depends on features that are disabled: [UserNamespacesSupport]');
  }, 90_000);

  it('with the nodes\' configurations read: a setting some nodes\' kubelets refuse is refused naming them; without such nodes, admitted (issue 65)', async () => {
    const reconcile = (nodes: { nodes: string[]; fields: Record<string, unknown> }[]) => knownGatesParamsReconciler({
      kubeConfig: plane.kubeConfig, namespace: NS, operatorVersion: '4.23.0', registry, clusterVersions, kubernetesVersion: async () => '1.36.3',
      nodeConfigurations: async () => nodes.map((g) => ({ nodes: g.nodes, configuration: { fields: g.fields, featureGates: new Map() } })),
    })();
    // Every node with the kubelet's defaults: turning KubeletCrashLoopBackOffMax off starts (the gates go in their file).
    await reconcile([{ nodes: ['worker-1', 'worker-2'], fields: {} }]);
    const params = async () =>
      (await new ResourceClient(plane.kubeConfig, ConfigMapResource, undefined, { namespace: NS }).get(KNOWN_GATES_CONFIGMAP)).data!;
    await eventually(async () => expect((await params())['start.kubelet']).toBe(''), 20_000, 200);
    await eventually(async () => expect(await tryCustom({ disabled: ['KubeletCrashLoopBackOffMax', 'KubeletEnsureSecretPulledImages'] })).toBe(''), 20_000, 200);
    // worker-3 sets a field KubeletEnsureSecretPulledImages must be on for
    await reconcile([{ nodes: ['worker-1', 'worker-2'], fields: {} }, { nodes: ['worker-3'], fields: { imagePullCredentialsVerificationPolicy: 'AlwaysVerify' } }]);
    expect((await params())['start.kubelet']).toBe('KubeletEnsureSecretPulledImages=false|imagePullCredentialsVerificationPolicy|worker-3');
    await eventually(async () => expect(await tryCustom({ disabled: ['KubeletCrashLoopBackOffMax', 'KubeletEnsureSecretPulledImages'] }))
      .toContain('the nodes\' kubelets (Kubernetes 1.36.3) would refuse to start with this CustomNoUpgrade spec: the kubelets of worker-3 refuse ' +
        'KubeletEnsureSecretPulledImages=false with their configuration\'s imagePullCredentialsVerificationPolicy.'), 20_000, 200);
    expect(await tryCustom({ disabled: ['KubeletCrashLoopBackOffMax'] })).toBe('');
    expect(await tryCustom({ enabled: ['KubeletEnsureSecretPulledImages'] })).toBe('');
  }, 90_000);
});
