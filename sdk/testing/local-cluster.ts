// The local cluster `featuregates start` runs when no cluster is configured: a control plane with our CRDs,
// ClusterVersion/version at one Completed version and an empty FeatureGate/cluster spec, its kubeconfig path
// recorded where `featuregates simulate` finds it. Stopping it removes the record and every file.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { startControlPlane } from './control-plane.js';
import { bundledCRDPaths } from './crds.js';
import { setClusterVersion, setFeatureGateSpec } from './fake-versions.js';

/** Where a running local cluster records its kubeconfig path. */
const KUBECONFIG_RECORD = join(tmpdir(), 'featuregates-start.kubeconfig-path');

export interface LocalCluster {
  readonly kubeConfig: KubeConfig;
  readonly kubeconfigPath: string;
  /** `Kubernetes vX.Y.Z` */
  readonly kubernetesVersion: string;
  stop(): Promise<void>;
}

export async function startLocalCluster(clusterVersion: string): Promise<LocalCluster> {
  const plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
  try {
    await setClusterVersion(plane.kubeConfig, { history: [clusterVersion] });
    await setFeatureGateSpec(plane.kubeConfig, {});
    writeFileSync(KUBECONFIG_RECORD, plane.kubeconfigPath);
  } catch (e) {
    await plane.stop();
    throw e;
  }
  return {
    kubeConfig: plane.kubeConfig, kubeconfigPath: plane.kubeconfigPath, kubernetesVersion: plane.version,
    async stop() {
      rmSync(KUBECONFIG_RECORD, { force: true });
      await plane.stop();
    },
  };
}

/** The kubeconfig path of the running local cluster, if there is one. */
export function localClusterKubeconfig(): string | undefined {
  return existsSync(KUBECONFIG_RECORD) ? readFileSync(KUBECONFIG_RECORD, 'utf8').trim() : undefined;
}
