// The CLI's reads of a cluster (status, explain, diff, start): the kubeconfig with a request timeout, and
// FeatureGate/cluster (plus the ClusterOperator and ClusterVersion that `status` reports) with one set of errors.
import {
  CLUSTER_VERSION_NAME, CONFIG_OPERATOR_NAME, FEATURE_GATE_NAME, clusterDesiredVersion, desiredGates, runningGatesSummary, summarize, type FeatureGate, type StatusSummary,
} from '../api-types/index.js';
import { checkComponent, kubernetesGateLifecycle } from './component-gates.js';
import { apiErrorMessage, isNotFound } from './api-errors.js';
import { loadKubeConfig, type ClusterAccess } from './kube-config.js';
import { withTransportConfig } from './kube-transport.js';
import { chooseCluster } from './local-cluster-record.js';
import { ResourceClient } from './resource-client.js';
import { ClusterOperatorResource, ClusterVersionResource, FeatureGateResource } from './resources.js';

/**
 * The cluster of `kubeconfig` (or $KUBECONFIG, then a running `featuregates start`'s local cluster — told to
 * `say` — then in-cluster), each request bounded by `requestTimeoutMs`.
 */
export async function connect(kubeconfig: string | undefined, requestTimeoutMs: number, say: (line: string) => void = () => {}): Promise<ClusterAccess> {
  const choice = chooseCluster(kubeconfig);
  if (choice.note) say(choice.note);
  return withTransportConfig(await loadKubeConfig(choice.kubeconfig), { timeoutMs: requestTimeoutMs });
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

/** FeatureGate/cluster with the ClusterOperator and ClusterVersion beside it (each optional), summarized. */
export async function readStatus(kc: ClusterAccess, clusterOperatorName = CONFIG_OPERATOR_NAME, withNames = false): Promise<StatusSummary> {
  const fg = await readFeatureGate(kc);
  const [co, cv] = await Promise.all([
    new ResourceClient(kc, ClusterOperatorResource).find(clusterOperatorName),
    new ResourceClient(kc, ClusterVersionResource).find(CLUSTER_VERSION_NAME),
  ]);
  // What kube-apiserver runs against the entry of the cluster's version (skipped without one: nothing to compare).
  const version = clusterDesiredVersion(cv);
  const entry = version ? fg.status?.featureGates?.find((e) => e.version === version) : undefined;
  const running = version && entry
    ? runningGatesSummary(version, await checkComponent(kc, 'kube-apiserver', desiredGates(entry), { lifecycle: () => kubernetesGateLifecycle() }))
    : undefined;
  return summarize(fg, co, cv, withNames, running);
}
