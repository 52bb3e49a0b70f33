// KnownGatesParamsController: keeps the admission policies' params ConfigMap (api-types/admission-params.ts)
// current — this version's known gate names, and no keys for versions that left ClusterVersion history; and the
// gates-that-start keys: Kubernetes' rules for the version the cluster's API server reports (GET /version, read
// again at most every 10 minutes), with this payload's Default set as what a CustomNoUpgrade spec starts from.
// Triggered by ClusterVersion changes; a GET only when the data last seen would change, a write only when the
// data read differs; writes go through ResourceClient with the leader fence, like every other write; a 409 is
// retried through the rate limiter.
// (A hand edit of the ConfigMap is corrected at the next change that touches it or at operator start.)
import {
  CLUSTER_VERSION_NAME,
  GATE_START_KEYS,
  desiredKnownGatesData,
  FeatureSets,
  gatesThatStartParams,
  GateRulesError,
  KNOWN_GATES_CONFIGMAP,
  knownGates,
  kubeletConfigRules,
  kubeletStartParams,
  kubernetesGateRules,
  resolveFeatureSet,
  type ClusterVersion,
  type ConfigMap,
  type FeatureSetRegistry,
  type NodeConfigurationGroup,
} from '../api-types/index.js';
import {
  ConfigMapResource,
  singleKeyController,
  ResourceClient,
  silentLogger,
  type ClusterAccess,
  type ControllerSpec,
  type Logger,
  type ReconcileResult,
  type Reflector,
} from '../runtime/index.js';
import type { Registry } from 'prom-client';

export const KNOWN_GATES_CONTROLLER = 'KnownGatesParamsController';

export interface KnownGatesParamsDeps {
  kubeConfig: ClusterAccess;
  namespace: string;
  operatorVersion: string;
  registry: FeatureSetRegistry;
  clusterVersions: Pick<Reflector<ClusterVersion>, 'get' | 'addListener'>;
  fence?: () => void;
  /** Ends a write in flight (the operator stopping). */
  signal?: AbortSignal;
  metrics?: Registry;
  /** The Kubernetes version the cluster's API server runs ("1.36.3"; the manager's shared reader); undefined: unknown. */
  kubernetesVersion: () => Promise<string | undefined>;
  /**
   * The nodes' kubelet configurations, grouped (runtime's readNodeConfigurations, read at most every few minutes by
   * the manager); absent: not read (the `start.kubelet` key is not written). Undefined from it: not answered — the key
   * last written stays.
   */
  nodeConfigurations?: (kubernetesVersion: string) => Promise<readonly NodeConfigurationGroup[] | undefined>;
  logger?: Logger;
}

export function knownGatesParamsReconciler(deps: KnownGatesParamsDeps): () => Promise<ReconcileResult> {
  const configMaps = new ResourceClient<ConfigMap>(deps.kubeConfig, ConfigMapResource, deps.metrics, {
    namespace: deps.namespace, ...(deps.fence ? { fence: deps.fence } : {}), ...(deps.signal ? { signal: deps.signal } : {}),
  });
  const known = knownGates(deps.registry);
  const log = deps.logger ?? silentLogger;
  // A CustomNoUpgrade spec starts from the payload's Default set (resolveFeatureSet): what its lists change.
  const base = deps.registry.featureSets.has(FeatureSets.Default) ? resolveFeatureSet({ featureSet: '' }, deps.registry) : { enabled: [], disabled: [] };
  let start: { version: string | undefined; params: Record<string, string> | undefined } | undefined;
  const startParams = async () => {
    const version = await deps.kubernetesVersion();
    // Not answered: what was known stays (a failed read never turns the guard off).
    if (version === undefined && start) return start.params;
    if (start && version === start.version) return start.params;
    let params: Record<string, string> | undefined;
    try {
      params = version ? gatesThatStartParams(kubernetesGateRules(version), base) : undefined;
    } catch (e) {
      if (!(e instanceof GateRulesError)) throw e;
      log.warn('the gates-that-start admission guard is off: no rules for the cluster\'s Kubernetes version', { version, error: e.message });
    }
    start = { version, params };
    return params;
  };
  // The kubelets' refusals with the nodes' own configurations (start.kubelet), beside the rules of the version.
  let lastKubelet: Record<string, string> | undefined;
  const kubeletParams = async (rules: Record<string, string> | undefined) => {
    const version = rules?.[GATE_START_KEYS.kubernetes];
    if (!deps.nodeConfigurations || !version) return {};
    const groups = await deps.nodeConfigurations(version);
    if (groups) {
      try {
        lastKubelet = kubeletStartParams(kubernetesGateRules(version), kubeletConfigRules(version), groups);
      } catch (e) {
        if (!(e instanceof GateRulesError)) throw e;
        lastKubelet = {};
      }
    }
    return lastKubelet ?? {};
  };
  // ClusterVersion status changes often (heartbeats, and history during upgrades), the ConfigMap rarely: the
  // data last read or written is kept, and the GET happens only when that data would have to change.
  let lastData: Record<string, string> | undefined;
  // With the nodes read, looked at again every 10 minutes whatever ClusterVersion does (nodes change on their own).
  const again: ReconcileResult = deps.nodeConfigurations ? { requeueAfterMs: 10 * 60_000 } : {};
  return async () => {
    const cv = deps.clusterVersions.get(CLUSTER_VERSION_NAME);
    const history = (cv?.status?.history ?? []).map((h) => h.version);
    const versionRules = await startParams();
    const rules = versionRules ? { ...versionRules, ...(await kubeletParams(versionRules)) } : undefined;
    if (lastData && !desiredKnownGatesData(lastData, deps.operatorVersion, known, history, rules)) return again;
    let data: Record<string, string> | undefined;
    // A 409 (someone wrote first) is the controller's to retry with backoff.
    const { stored } = await configMaps.upsert(KNOWN_GATES_CONFIGMAP, (current) => {
      data = desiredKnownGatesData(current?.data, deps.operatorVersion, known, history, rules);
      if (!data) return undefined;
      return current ? { ...current, data } : { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: KNOWN_GATES_CONFIGMAP, namespace: deps.namespace }, data };
    });
    if (!data) {
      lastData = stored?.data ?? {};
      return again;
    }
    lastData = data;
    return again;
  };
}

export function knownGatesParamsController(deps: KnownGatesParamsDeps): ControllerSpec {
  return singleKeyController({
    name: KNOWN_GATES_CONTROLLER, key: KNOWN_GATES_CONFIGMAP, reconcile: knownGatesParamsReconciler(deps), sources: [deps.clusterVersions],
  });
}
