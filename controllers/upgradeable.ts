// FeatureUpgradeableController: FeatureGatesUpgradeable from spec.featureSet — NoUpgrade sets (and OKD
// outside OKD builds) block minor upgrades.
import { FEATURE_GATE_NAME, featureGatesUpgradeable, type FeatureGate } from '../api-types/index.js';
import type { ReconcileResult, Reflector } from '../runtime/index.js';
import type { OperatorConditions } from './operator-conditions.js';

export function upgradeableReconciler(deps: { featureGates: Reflector<FeatureGate>; conditions: OperatorConditions; okdBuild?: boolean }) {
  return async (): Promise<ReconcileResult> => {
    const fg = deps.featureGates.get(FEATURE_GATE_NAME);
    if (!fg) return {};
    deps.conditions.set(featureGatesUpgradeable(fg.spec.featureSet, { okdBuild: deps.okdBuild ?? false }));
    return {};
  };
}
