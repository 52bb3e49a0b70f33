// The CLI's reads of a cluster (status, explain, diff, start): the kubeconfig with a request timeout, and
// FeatureGate/cluster (plus the ClusterOperator and ClusterVersion that `status` reports) with one set of errors.
import {
  CLUSTER_VERSION_NAME,
  CONFIG_OPERATOR_NAME,
  FEATURE_GATE_NAME,
  GateRulesError,
  clusterDesiredVersion,
  desiredGates,
  gateNames,
  gatesOfLists,
  gatesThatStartSummary,
  knownKubernetesOfOpenShift,
  preflight,
  runningGatesSummary,
  summarize,
  type ClusterVersion,
  type FeatureGate,
  type StatusSummary,
} from '../api-types/index.js';
import { apiServerVersion } from '../runtime/rest/api-server-version.js';
import { checkComponent, kubernetesGateLifecycle } from '../runtime/components/component-gates.js';
import { apiErrorMessage, isNotFound } from '../runtime/rest/api-errors.js';
import { loadKubeConfig, type ClusterAccess } from '../runtime/rest/kube-config.js';
import { withTransportConfig } from '../runtime/rest/kube-transport.js';
import { chooseCluster } from '../control-plane/local-cluster-record.js';
import { ResourceClient } from '../runtime/rest/resource-client.js';
import { ClusterOperatorResource, ClusterVersionResource, FeatureGateResource } from '../runtime/rest/resources.js';

/**
 * The cluster of `kubeconfig` (or $KUBECONFIG, then a running `featuregates start`'s local cluster — told to
 * `say` — then in-cluster), each request bounded by `requestTimeoutMs`.
 */
export async function connect(
  kubeconfig: string | undefined,
  requestTimeoutMs: number,
  say: (line: string) => void = () => {},
): Promise<ClusterAccess> {
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
  let start: StatusSummary['gatesThatStart'];
  try {
    const set = await readClusterGateSet(kc, fg, cv);
    start = gatesThatStartSummary(set, preflight({ kubernetesVersion: set.kubernetesVersion, flavor: 'openshift', gates: set.gates }));
  } catch (e) {
    if (!(e instanceof GateRulesError)) throw e;
    start = { unchecked: e.message };
  }
  return summarize(fg, co, cv, withNames, running, start);
}

/** The gates a cluster's components get at the version it is going to, and the Kubernetes minor they will run. */
export interface ClusterGateSet {
  /** The OpenShift version ClusterVersion is going to (its status entry's). */
  version: string;
  kubernetesVersion: string;
  /** Where kubernetesVersion came from, in words. */
  kubernetesSource: string;
  gates: Map<string, boolean>;
}

/**
 * The status entry of the version ClusterVersion is going to (the spec as the operator resolved it: what that version's
 * components receive), at the Kubernetes version they run: `kubernetesVersion`; else, when the cluster has completed
 * that version, the API server's own (`/version`); else (an upgrade under way) the minor that version runs by the
 * built-in map; else the API server's. GateRulesError saying what is missing.
 */
export async function readClusterGateSet(
  kc: ClusterAccess,
  fg: FeatureGate,
  cv: ClusterVersion | undefined,
  kubernetesVersion?: string,
): Promise<ClusterGateSet> {
  const version = clusterDesiredVersion(cv);
  if (!version) throw new GateRulesError('not checked: ClusterVersion/version names no version (no desired version, no history)');
  const entry = fg.status?.featureGates?.find((e) => e.version === version);
  if (!entry) throw new GateRulesError(`not checked: FeatureGate/cluster status has no entry for ${version} yet`);
  const gates = gatesOfLists(gateNames(entry));
  if (kubernetesVersion) return { version, kubernetesVersion, kubernetesSource: 'given', gates };
  const head = cv?.status?.history?.[0];
  const there = head?.version === version && head.state === 'Completed';
  const mapped = knownKubernetesOfOpenShift(version);
  const served = there || !mapped ? await apiServerVersion(kc)() : undefined;
  if (served) return { version, kubernetesVersion: served, kubernetesSource: "the API server's /version", gates };
  if (mapped) return { version, kubernetesVersion: mapped, kubernetesSource: `the Kubernetes minor OpenShift ${version} runs`, gates };
  throw new GateRulesError(
    `not checked: which Kubernetes minor OpenShift ${version} runs is not known to this build and the API server's /version could not be read`,
  );
}
