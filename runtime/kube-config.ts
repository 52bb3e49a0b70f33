// Where the cluster is: --kubeconfig, then $KUBECONFIG, then in-cluster service-account credentials.
import { existsSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';

export class NoClusterConfiguredError extends Error {
  override name = 'NoClusterConfiguredError';
}

export function clusterConfigured(kubeconfig?: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(kubeconfig || env.KUBECONFIG || env.KUBERNETES_SERVICE_HOST);
}

export function loadKubeConfig(kubeconfig?: string, env: NodeJS.ProcessEnv = process.env): KubeConfig {
  const kc = new KubeConfig();
  const path = kubeconfig ?? env.KUBECONFIG?.split(':').find((p) => p && existsSync(p));
  if (path) {
    if (!existsSync(path)) throw new Error(`kubeconfig ${path} does not exist`);
    kc.loadFromFile(path);
  } else if (env.KUBERNETES_SERVICE_HOST) {
    kc.loadFromCluster();
  } else {
    throw new NoClusterConfiguredError('no cluster configured: pass --kubeconfig, set KUBECONFIG, or run in a pod');
  }
  if (!kc.getCurrentCluster()) throw new Error(`kubeconfig ${path ?? '(in-cluster)'} has no current cluster`);
  return kc;
}
