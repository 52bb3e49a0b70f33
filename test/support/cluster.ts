// Access to the shared control planes started by test/global-setup.ts. Tests on them use unique object
// names; the singletons FeatureGate/cluster and ClusterVersion/version are never created there (tests of
// code that reads them start a control plane of their own).
import { KubeConfig } from '@kubernetes/client-node';

export type CRDSet = 'ours' | 'upstream';
export const CRD_SETS: CRDSet[] = ['ours', 'upstream'];

export function kubeconfigPath(set: CRDSet = 'ours'): string {
  const p = set === 'ours' ? process.env.FGC_TEST_KUBECONFIG : process.env.FGC_TEST_UPSTREAM_KUBECONFIG;
  if (!p) throw new Error('no shared control plane: run the tests through `npm test` (jest global setup)');
  return p;
}

export function kubeConfig(set: CRDSet = 'ours'): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath(set));
  return kc;
}
