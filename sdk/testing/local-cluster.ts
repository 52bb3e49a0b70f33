// The local cluster `featuregates start` runs when no cluster is configured: a control plane with our CRDs,
// ClusterVersion/version at one Completed version and an empty FeatureGate/cluster spec, its kubeconfig path
// recorded where `featuregates simulate` and `status` find it (runtime/local-cluster-record.ts). Stopping it removes the record and every file.
import type { KubeConfig } from '@kubernetes/client-node';
import { recordLocalCluster } from '../../runtime/local-cluster-record.js';
import { startControlPlane } from './control-plane.js';
import { bundledCRDPaths } from './crds.js';
import { setClusterVersion, setFeatureGateSpec } from './fake-versions.js';

export interface LocalCluster {
  readonly kubeConfig: KubeConfig;
  readonly kubeconfigPath: string;
  /** `Kubernetes vX.Y.Z` */
  readonly kubernetesVersion: string;
  stop(): Promise<void>;
}

export async function startLocalCluster(clusterVersion: string): Promise<LocalCluster> {
  const plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
  let unrecord: () => void;
  try {
    await setClusterVersion(plane.kubeConfig, { history: [clusterVersion] });
    await setFeatureGateSpec(plane.kubeConfig, {});
    unrecord = recordLocalCluster(plane.kubeconfigPath, plane.server);
  } catch (e) {
    await plane.stop();
    throw e;
  }
  return {
    kubeConfig: plane.kubeConfig, kubeconfigPath: plane.kubeconfigPath, kubernetesVersion: plane.version,
    async stop() {
      unrecord();
      await plane.stop();
    },
  };
}
