// FeatureUpgradeableController: FeatureGatesUpgradeable from spec.featureSet — NoUpgrade sets (and OKD
// outside OKD builds) block minor upgrades. Triggered by FeatureGate changes.
import { FEATURE_GATE_NAME, featureGatesUpgradeable, type FeatureGate } from '../api-types/index.js';
import type { ControllerSpec, ReconcileResult, Reflector } from '../runtime/index.js';
import type { OperatorConditions } from './operator-conditions.js';

export const UPGRADEABLE_CONTROLLER = 'FeatureUpgradeableController';

export interface UpgradeableDeps {
  featureGates: Pick<Reflector<FeatureGate>, 'get' | 'addListener'>;
  conditions: OperatorConditions;
  okdBuild?: boolean;
}

export function upgradeableReconciler(deps: UpgradeableDeps) {
  return async (): Promise<ReconcileResult> => {
    const fg = deps.featureGates.get(FEATURE_GATE_NAME);
    if (!fg) return {};
    deps.conditions.set(featureGatesUpgradeable(fg.spec.featureSet, { okdBuild: deps.okdBuild ?? false }));
    return {};
  };
}

export function upgradeableController(deps: UpgradeableDeps): ControllerSpec {
  return {
    name: UPGRADEABLE_CONTROLLER,
    reconcile: upgradeableReconciler(deps),
    watches: [{ source: deps.featureGates, keys: () => [FEATURE_GATE_NAME] }],
    initialKeys: [FEATURE_GATE_NAME],
  };
}
