// OKDFeatureSetMigrationController (cluster-config-operator since 4.22, SCOS builds only): on an OKD build a
// FeatureGate whose spec.featureSet is Default ("" or unset) is moved to OKD, by server-side apply with the
// controller's own field manager and force, as upstream does, with an Event. It happens once: the CRD refuses
// OKD → Default, so nothing can move it back for this controller to see again. Never started on other builds.
// Beyond upstream: the move is one-way, so it is not made when the payload has no OKD feature set (the status
// could then not be computed at all); that is said once in the log instead.
import { API_VERSION, FEATURE_GATE_NAME, FeatureSets, type FeatureGate } from '../api-types/index.js';
import type { ControllerSpec, EventRecorder, Logger, ReconcileResult, Reflector, ResourceClient } from '../runtime/index.js';
import { silentLogger, singleKeyController } from '../runtime/index.js';

export const OKD_MIGRATION_CONTROLLER = 'OKDFeatureSetMigrationController';

export interface OKDMigrationDeps {
  featureGates: Pick<Reflector<FeatureGate>, 'get' | 'addListener'>;
  client: Pick<ResourceClient<FeatureGate>, 'apply'>;
  events: EventRecorder;
  /** Whether the payload defines the OKD feature set. */
  payloadHasOKD: boolean;
  logger?: Logger;
}

export function okdMigrationReconciler(deps: OKDMigrationDeps) {
  const log = (deps.logger ?? silentLogger).with({ controller: OKD_MIGRATION_CONTROLLER });
  let warned = false;
  return async (): Promise<ReconcileResult> => {
    const fg = deps.featureGates.get(FEATURE_GATE_NAME);
    if (!fg || (fg.spec.featureSet ?? '') !== FeatureSets.Default) return {};
    if (!deps.payloadHasOKD) {
      if (!warned) log.warn('an OKD build whose payload has no OKD feature set: spec.featureSet stays Default (the move to OKD cannot be undone)');
      warned = true;
      return {};
    }
    const applied = await deps.client.apply({
      apiVersion: API_VERSION, kind: 'FeatureGate', metadata: { name: FEATURE_GATE_NAME }, spec: { featureSet: FeatureSets.OKD },
    }, OKD_MIGRATION_CONTROLLER, true);
    log.info('feature set moved from Default to OKD (an OKD build)');
    deps.events.event({ apiVersion: API_VERSION, kind: 'FeatureGate', name: FEATURE_GATE_NAME, ...(applied.metadata.uid ? { uid: applied.metadata.uid } : {}) },
      'Normal', 'OKDFeatureSetMigration', 'spec.featureSet moved from Default to OKD: this is an OKD build');
    return {};
  };
}

export function okdMigrationController(deps: OKDMigrationDeps): ControllerSpec {
  return singleKeyController({
    name: OKD_MIGRATION_CONTROLLER,
    key: FEATURE_GATE_NAME,
    reconcile: okdMigrationReconciler(deps),
    sources: [deps.featureGates],
  });
}
