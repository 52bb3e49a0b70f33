// KnownGatesParamsController: keeps the admission policy's params ConfigMap (api-types/admission-params.ts)
// current — this version's known gate names, and no keys for versions that left ClusterVersion history.
// Triggered by ClusterVersion changes; a GET only when the data last seen would change, a write only when the
// data read differs; writes go through ResourceClient with the leader fence, like every other write; a 409 is
// retried through the rate limiter.
// (A hand edit of the ConfigMap is corrected at the next change that touches it or at operator start.)
import {
  CLUSTER_VERSION_NAME, desiredKnownGatesData, KNOWN_GATES_CONFIGMAP, knownGates, type ClusterVersion, type ConfigMap, type FeatureSetRegistry,
} from '../api-types/index.js';
import { ConfigMapResource, isConflict, ResourceClient, type ClusterAccess, type ControllerSpec, type ReconcileResult, type Reflector } from '../runtime/index.js';
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
}

export function knownGatesParamsReconciler(deps: KnownGatesParamsDeps): () => Promise<ReconcileResult> {
  const configMaps = new ResourceClient<ConfigMap>(deps.kubeConfig, ConfigMapResource, deps.metrics, {
    namespace: deps.namespace, ...(deps.fence ? { fence: deps.fence } : {}), ...(deps.signal ? { signal: deps.signal } : {}),
  });
  const known = knownGates(deps.registry);
  // ClusterVersion status changes often (heartbeats, and history during upgrades), the ConfigMap rarely: the
  // data last read or written is kept, and the GET happens only when that data would have to change.
  let lastData: Record<string, string> | undefined;
  return async () => {
    const cv = deps.clusterVersions.get(CLUSTER_VERSION_NAME);
    const history = (cv?.status?.history ?? []).map((h) => h.version);
    if (lastData && !desiredKnownGatesData(lastData, deps.operatorVersion, known, history)) return {};
    let data: Record<string, string> | undefined;
    try {
      const { stored } = await configMaps.upsert(KNOWN_GATES_CONFIGMAP, (current) => {
        data = desiredKnownGatesData(current?.data, deps.operatorVersion, known, history);
        if (!data) return undefined;
        return current ? { ...current, data } : { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: KNOWN_GATES_CONFIGMAP, namespace: deps.namespace }, data };
      });
      if (!data) {
        lastData = stored?.data ?? {};
        return {};
      }
    } catch (e) {
      if (isConflict(e)) return { requeue: true };
      throw e;
    }
    lastData = data;
    return {};
  };
}

export function knownGatesParamsController(deps: KnownGatesParamsDeps): ControllerSpec {
  return {
    name: KNOWN_GATES_CONTROLLER,
    reconcile: knownGatesParamsReconciler(deps),
    watches: [{ source: deps.clusterVersions, keys: () => [KNOWN_GATES_CONFIGMAP] }],
    initialKeys: [KNOWN_GATES_CONFIGMAP],
  };
}
