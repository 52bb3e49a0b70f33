// FeatureGateController: keeps FeatureGate/cluster status true for every version in ClusterVersion
// history. Reads from caches only; writes /status (PUT with the cached resourceVersion) only when the
// desired status differs; 409 requeues at once; resyncs every minute from the cache.
import {
  CLUSTER_VERSION_NAME, ETCD_REQUEST_LIMIT_BYTES, FEATURE_GATE_NAME, desiredFeatureGates, featureGatesEqual,
  resolveFeatureGateDetails, serializedSizeBytes, syncDegraded, type ClusterVersion, type FeatureGate, type FeatureSetRegistry,
} from '../api-types/index.js';
import {
  apiErrorMessage, counter, gauge, isConflict, silentLogger, type EventRecorder, type Logger, type ReconcileResult, type Reflector,
  type ResourceClient,
} from '../runtime/index.js';
import type { Registry } from 'prom-client';
import type { OperatorConditions } from './operator-conditions.js';

export const FEATURE_GATE_CONTROLLER = 'FeatureGateController';
export const RESYNC_MS = 60_000;

export interface FeatureGateStatusDeps {
  operatorVersion: string;
  registry: FeatureSetRegistry;
  featureGates: Reflector<FeatureGate>;
  clusterVersions: Reflector<ClusterVersion>;
  client: ResourceClient<FeatureGate>;
  conditions: OperatorConditions;
  events: EventRecorder;
  logger?: Logger;
  metrics?: Registry;
}

export function featureGateUpdateMessage(fg: FeatureGate, version: string, enabled: string[], disabled: string[]): string {
  return `FeatureSet=${JSON.stringify(fg.spec.featureSet ?? '')}, Version=${JSON.stringify(version)}, ` +
    `Enabled=${JSON.stringify(enabled.join(','))}, Disabled=${JSON.stringify(disabled.join(','))}`;
}

export function featureGateStatusReconciler(deps: FeatureGateStatusDeps): (key: string) => Promise<ReconcileResult> {
  const log = (deps.logger ?? silentLogger).with({ controller: FEATURE_GATE_CONTROLLER });
  const size = deps.metrics && gauge(deps.metrics, 'featuregates_status_size_bytes', 'Serialized size of FeatureGate/cluster status.featureGates', []);
  const versions = deps.metrics && gauge(deps.metrics, 'featuregates_status_versions', 'Number of versions in FeatureGate/cluster status', []);
  const writes = deps.metrics && counter(deps.metrics, 'featuregates_status_writes_total', 'FeatureGate status writes made by this process', []);

  const sync = async (): Promise<ReconcileResult> => {
    const fg = deps.featureGates.get(FEATURE_GATE_NAME);
    const cv = deps.clusterVersions.get(CLUSTER_VERSION_NAME);
    if (!fg || !cv) return { requeueAfterMs: RESYNC_MS };
    const current = resolveFeatureGateDetails(fg.spec, deps.registry, deps.operatorVersion);
    const desired = desiredFeatureGates({ current, existing: fg.status?.featureGates, history: cv.status?.history });
    const status = { ...(fg.status ?? {}), featureGates: desired };
    const bytes = serializedSizeBytes(status);
    size?.set(bytes);
    versions?.set(desired.length);
    if (featureGatesEqual(desired, fg.status?.featureGates)) return { requeueAfterMs: RESYNC_MS };
    if (bytes > ETCD_REQUEST_LIMIT_BYTES) {
      throw new Error(`FeatureGate status would be ${bytes} bytes for ${desired.length} versions, over etcd's ${ETCD_REQUEST_LIMIT_BYTES}-byte request limit`);
    }
    try {
      await deps.client.replaceStatus({ ...fg, status });
    } catch (e) {
      if (isConflict(e)) {
        log.info('FeatureGate changed while writing its status; retrying from the cache');
        return { requeueAfterMs: 0 };
      }
      throw new Error(`updating FeatureGate status: ${apiErrorMessage(e)}`, { cause: e });
    }
    writes?.inc();
    const enabled = current.enabled.map((g) => g.name);
    const disabled = current.disabled.map((g) => g.name);
    log.info('FeatureGate status updated', { version: deps.operatorVersion, versions: desired.map((d) => d.version) });
    await deps.events.event({ apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', name: FEATURE_GATE_NAME, ...(fg.metadata.uid ? { uid: fg.metadata.uid } : {}) },
      'Normal', 'FeatureGateUpdate', featureGateUpdateMessage(fg, deps.operatorVersion, enabled, disabled));
    return { requeueAfterMs: RESYNC_MS };
  };

  return async () => {
    try {
      const result = await sync();
      deps.conditions.set(syncDegraded(FEATURE_GATE_CONTROLLER, undefined));
      return result;
    } catch (e) {
      deps.conditions.set(syncDegraded(FEATURE_GATE_CONTROLLER, (e as Error).message));
      throw e;
    }
  };
}
