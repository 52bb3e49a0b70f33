// The local cluster `featuregates start` runs when no cluster is configured: a control plane with our CRDs,
// the admission policies of deploy/base/admission (so a misspelt custom gate warns at apply time here too)
// and their namespace, kube-apiserver started (and restartable) with the caller's --feature-gates, ClusterVersion/version at one Completed
// version and an empty FeatureGate/cluster spec,
// its kubeconfig path
// recorded where `featuregates simulate` and `status` find it (control-plane/local-cluster-record.ts). Stopping it removes the record and
// every file.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { recordLocalCluster } from './local-cluster-record.js';
import { parseYamlDocuments } from '../runtime/util/yaml.js';
import { packageRoot } from './binaries.js';
import { rawRequest } from './raw-request.js';
import { startControlPlane } from './control-plane.js';
import { bundledCRDPaths } from './crds.js';
import { setClusterVersion, setFeatureGateSpec } from './fake-versions.js';

export interface LocalCluster {
  readonly kubeConfig: KubeConfig;
  readonly kubeconfigPath: string;
  /** `Kubernetes vX.Y.Z` */
  readonly kubernetesVersion: string;
  /** The extra kube-apiserver flags it runs with now (its `--feature-gates`). */
  apiServerArgs(): readonly string[];
  /** Restarts kube-apiserver with these extra flags instead (as OpenShift's kube-apiserver operator rolls out new gates). */
  restartAPIServer(args: readonly string[]): Promise<void>;
  stop(): Promise<void>;
}

/** The namespace the deployed operator runs in (deploy/base): the admission binding reads its params there. */
export const LOCAL_CLUSTER_NAMESPACE = 'featuregate-coordinator';

const COLLECTIONS: Record<string, string> = {
  Namespace: '/api/v1/namespaces',
  ValidatingAdmissionPolicy: '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies',
  ValidatingAdmissionPolicyBinding: '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings',
};

interface Manifest { kind: string; metadata: { name: string } }

async function create(server: string, token: string, doc: Manifest): Promise<void> {
  if (!COLLECTIONS[doc.kind]) throw new Error(`the local cluster does not install ${doc.kind} objects (${doc.metadata.name})`);
  const r = await rawRequest(`${server}${COLLECTIONS[doc.kind]}`, { token }, 'POST', JSON.stringify(doc));
  if (r.status >= 300) throw new Error(`creating ${doc.kind} ${doc.metadata.name} on the local cluster: HTTP ${r.status}: ${r.body}`);
}

/** `apiServerArgs`: extra kube-apiserver flags (the `--feature-gates` rendered for `clusterVersion`). */
export async function startLocalCluster(clusterVersion: string, apiServerArgs: readonly string[] = []): Promise<LocalCluster> {
  const plane = await startControlPlane({ crdPaths: bundledCRDPaths(), extraAPIServerArgs: [...apiServerArgs] });
  let args = apiServerArgs;
  let unrecord: () => void;
  try {
    await create(plane.server, plane.adminToken, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: LOCAL_CLUSTER_NAMESPACE } } as Manifest);
    for (const file of ['known-gates-policy.yaml', 'irreversible-feature-set-policy.yaml']) {
      const path = join(packageRoot(), 'deploy', 'base', 'admission', file);
      for (const doc of parseYamlDocuments(readFileSync(path, 'utf8'), path)) await create(plane.server, plane.adminToken, doc as Manifest);
    }
    await setClusterVersion(plane.kubeConfig, { history: [clusterVersion] });
    await setFeatureGateSpec(plane.kubeConfig, {});
    unrecord = recordLocalCluster(plane.kubeconfigPath, plane.server);
  } catch (e) {
    await plane.stop();
    throw e;
  }
  return {
    kubeConfig: plane.kubeConfig, kubeconfigPath: plane.kubeconfigPath, kubernetesVersion: plane.version,
    apiServerArgs: () => args,
    async restartAPIServer(next) {
      await plane.stopAPIServer();
      args = next;
      await plane.startAPIServer(next);
    },
    async stop() {
      unrecord();
      await plane.stop();
    },
  };
}
