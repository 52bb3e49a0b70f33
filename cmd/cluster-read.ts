// Reading the cluster for the CLI's status, explain and diff: the kubeconfig with --request-timeout applied,
// and FeatureGate/cluster with one set of errors.
import { FEATURE_GATE_NAME, gateNames, type EnabledDisabled, type FeatureGate } from '../api-types/index.js';
import { FeatureGateResource, KubeTransport, ResourceClient, apiErrorMessage, isNotFound, loadKubeConfig, type ClusterAccess } from '../runtime/index.js';
import { requestTimeoutFlag } from './args.js';

/** The cluster of --kubeconfig (or $KUBECONFIG, then in-cluster), its requests bounded by --request-timeout. */
export async function connect(kubeconfig: string | undefined, requestTimeout: string | undefined): Promise<ClusterAccess> {
  const timeoutMs = requestTimeoutFlag(requestTimeout);
  const kc = await loadKubeConfig(kubeconfig);
  KubeTransport.for(kc).defaultTimeoutMs = timeoutMs;
  return kc;
}

/** FeatureGate/cluster, or an error that says whether it is missing or which server failed how. */
export async function readFeatureGate(kc: ClusterAccess): Promise<FeatureGate> {
  try {
    return await new ResourceClient(kc, FeatureGateResource).get(FEATURE_GATE_NAME);
  } catch (e) {
    if (isNotFound(e)) throw new Error('featuregates.config.openshift.io/cluster not found: is the cluster running featuregate-coordinator or OpenShift?', { cause: e });
    const server = kc.getCurrentCluster()?.server ?? 'the API server';
    throw new Error(`reading featuregates/cluster from ${server}: ${apiErrorMessage(e)}`, { cause: e });
  }
}

/** One status entry's lists, by version; an error that lists the versions present otherwise. */
export function statusLists(fg: FeatureGate, version: string): EnabledDisabled {
  const entry = fg.status?.featureGates?.find((e) => e.version === version);
  if (!entry) {
    const have = (fg.status?.featureGates ?? []).map((e) => e.version);
    throw new Error(`version ${JSON.stringify(version)} is not in FeatureGate/cluster status (it has ${have.length ? have.join(', ') : 'no entries'})`);
  }
  return gateNames(entry);
}
