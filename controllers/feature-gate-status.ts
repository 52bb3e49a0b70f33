// FeatureGateController: keeps FeatureGate/cluster status true for every version in ClusterVersion
// history. Triggered by FeatureGate and ClusterVersion changes; reads from caches only; writes /status
// (PUT with the cached resourceVersion, through the leader fence) only when the desired status differs;
// a 409 goes through the rate limiter (the cache catches up); resyncs every minute from the cache; a sync that
// fails sets FeatureGateControllerDegraded (both declared in its spec, run by runtime/controller/controller.ts).
import {
  CLUSTER_VERSION_NAME,
  ETCD_REQUEST_LIMIT_BYTES,
  FEATURE_GATE_NAME,
  desiredFeatureGates,
  featureGatesEqual,
  gateNames,
  jsonEqual,
  resolveFeatureGateDetails,
  serializedSizeBytes,
  syncDegraded,
  type ClusterVersion,
  type FeatureGate,
  type FeatureGateDetails,
  type EnabledDisabled,
  type FeatureSetRegistry,
  API_VERSION,
} from '../api-types/index.js';
import {
  apiErrorMessage,
  counter,
  gauge,
  isConflict,
  silentLogger,
  singleKeyController,
  type ControllerSpec,
  type EventRecorder,
  type Logger,
  type ReconcileResult,
  type Reflector,
  type ResourceClient,
} from '../runtime/index.js';
import type { Registry } from 'prom-client';
import type { OperatorConditions } from './operator-conditions.js';
import { WriteEcho } from './write-echo.js';

export const FEATURE_GATE_CONTROLLER = 'FeatureGateController';
export const RESYNC_MS = 60_000;

/** The version this operator runs as, and its payload's feature sets. */
export interface OperatorRelease {
  version: string;
  registry: FeatureSetRegistry;
}

export interface FeatureGateStatusDeps {
  /**
   * Read at every sync: the release the status is kept for (the single-cluster operator's is fixed; a hosted guest's
   * follows the version it runs). Undefined: none accepted yet — nothing is written and nothing is said.
   */
  release: () => OperatorRelease | undefined;
  featureGates: Pick<Reflector<FeatureGate>, 'get' | 'addListener'>;
  clusterVersions: Pick<Reflector<ClusterVersion>, 'get' | 'addListener'>;
  client: Pick<ResourceClient<FeatureGate>, 'replaceStatus'>;
  conditions: OperatorConditions;
  events: EventRecorder;
  logger?: Logger;
  metrics?: Registry;
  /** The request limit the whole object is checked against before a write (etcd's default 1.5 MiB). */
  sizeLimitBytes?: number;
  /** After a sync that left status as desired: it wrote it (true) or found it so (false). */
  onSettled?(wrote: boolean): void;
  /** How soon it looks again when nothing told it to (default RESYNC_MS, library-go's minute). */
  resyncMs?: number;
}

export function featureGateUpdateMessage(fg: FeatureGate, version: string, { enabled, disabled }: EnabledDisabled): string {
  return `FeatureSet=${JSON.stringify(fg.spec.featureSet ?? '')}, Version=${JSON.stringify(version)}, ` +
    `Enabled=${JSON.stringify(enabled.join(','))}, Disabled=${JSON.stringify(disabled.join(','))}`;
}

export function featureGateStatusReconciler(deps: FeatureGateStatusDeps): (key: string) => Promise<ReconcileResult> {
  const log = (deps.logger ?? silentLogger).with({ controller: FEATURE_GATE_CONTROLLER });
  const size = deps.metrics && gauge(deps.metrics, 'featuregates_status_size_bytes', 'Serialized size of FeatureGate/cluster status.featureGates', []);
  const objectSize = deps.metrics && gauge(deps.metrics, 'featuregates_object_size_bytes', 'Serialized size of the whole FeatureGate/cluster object as last written or checked', []);
  const versions = deps.metrics && gauge(deps.metrics, 'featuregates_status_versions', 'Number of versions in FeatureGate/cluster status', []);
  const writes = deps.metrics && counter(deps.metrics, 'featuregates_status_writes_total', 'FeatureGate status writes made by this process', []);
  const limit = deps.sizeLimitBytes ?? ETCD_REQUEST_LIMIT_BYTES;
  // The spec's resolution, kept while the spec and the release stay the same (most events change only status or ClusterVersion).
  let resolved: { spec: FeatureGate['spec']; release: OperatorRelease; current: FeatureGateDetails } | undefined;
  // The status size is measured once per distinct status, not at every look.
  let measured: FeatureGateDetails[] | undefined;
  const echo = new WriteEcho();

  const sync = async (release: OperatorRelease): Promise<ReconcileResult> => {
    const fg = deps.featureGates.get(FEATURE_GATE_NAME);
    const cv = deps.clusterVersions.get(CLUSTER_VERSION_NAME);
    if (!fg || !cv || echo.behind(fg)) return {};
    if (
      !resolved ||
      !jsonEqual(fg.spec, resolved.spec) ||
      resolved.release.version !== release.version ||
      resolved.release.registry !== release.registry
    ) {
      try {
        resolved = { spec: fg.spec, release, current: resolveFeatureGateDetails(fg.spec, release.registry, release.version) };
      } catch (e) {
        resolved = undefined;
        throw new Error(`unable to determine FeatureGateDetails from FeatureSets: ${(e as Error).message}`, { cause: e });
      }
    }
    const current = resolved.current;
    const desired = desiredFeatureGates({ current, existing: fg.status?.featureGates, history: cv.status?.history });
    const status = { ...(fg.status ?? {}), featureGates: desired };
    if (size && (measured === undefined || !featureGatesEqual(desired, measured))) {
      size.set(serializedSizeBytes(status.featureGates));
      measured = desired;
    }
    versions?.set(desired.length);
    if (featureGatesEqual(desired, fg.status?.featureGates)) {
      deps.onSettled?.(false);
      return {};
    }
    const next: FeatureGate = { ...fg, status };
    const bytes = serializedSizeBytes(next);
    objectSize?.set(bytes);
    if (bytes > limit) {
      throw new Error(`FeatureGate/${FEATURE_GATE_NAME} would be ${bytes} bytes with ${desired.length} versions in status, ` +
        `over the ${limit}-byte request limit; not written`);
    }
    try {
      await deps.client.replaceStatus(next);
    } catch (e) {
      // A 409 (someone wrote first) is no failure: retried with backoff, not reported (a hosted session would warn of an error).
      if (isConflict(e)) {
        log.info('FeatureGate changed while writing its status; retrying with backoff');
        return { requeue: true };
      }
      throw new Error(`updating FeatureGate status: ${apiErrorMessage(e)}`, { cause: e });
    }
    echo.wrote(fg);
    writes?.inc();
    deps.onSettled?.(true);
    log.info('FeatureGate status updated', { version: release.version, versions: desired.map((d) => d.version) });
    deps.events.event({ apiVersion: API_VERSION, kind: 'FeatureGate', name: FEATURE_GATE_NAME, ...(fg.metadata.uid ? { uid: fg.metadata.uid } : {}) },
      'Normal', 'FeatureGateUpdate', featureGateUpdateMessage(fg, release.version, gateNames(current)));
    return {};
  };

  return async () => {
    const release = deps.release();
    return release ? sync(release) : {};
  };
}

/** The controller: its reconciler, the watches that trigger it, its resync and its Degraded condition. */
export function featureGateStatusController(deps: FeatureGateStatusDeps): ControllerSpec {
  return singleKeyController({
    name: FEATURE_GATE_CONTROLLER, key: FEATURE_GATE_NAME,
    reconcile: featureGateStatusReconciler(deps),
    sources: [deps.featureGates, deps.clusterVersions],
    resyncEveryMs: deps.resyncMs ?? RESYNC_MS,
    degradedOnError: (message) => deps.conditions.set(syncDegraded(FEATURE_GATE_CONTROLLER, message)),
  });
}
