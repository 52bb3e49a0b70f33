// FeatureUpgradeableController: FeatureGatesUpgradeable from spec.featureSet — NoUpgrade sets (and OKD
// outside OKD builds) block minor upgrades. Triggered by FeatureGate changes. In hosted mode the set the
// HostedControlPlane asks for counts too (`requested`): a NoUpgrade choice there blocks even while the
// guest refuses the spec (upgradeBlockingFeatureSet).
import { FEATURE_GATE_NAME, featureGatesUpgradeable, upgradeBlockingFeatureSet, type FeatureGate } from '../api-types/index.js';
import { singleKeyController, type ControllerSpec, type ReconcileResult, type Reflector, type WatchSource } from '../runtime/index.js';
import type { OperatorConditions } from './operator-conditions.js';

export const UPGRADEABLE_CONTROLLER = 'FeatureUpgradeableController';

export interface UpgradeableDeps {
  featureGates: Pick<Reflector<FeatureGate>, 'get' | 'addListener'>;
  conditions: OperatorConditions;
  okdBuild?: boolean;
  /** A feature set asked for elsewhere (a hosted guest's HostedControlPlane), and when it changes. */
  requested?: WatchSource & { featureSet(): string | undefined };
}

export function upgradeableReconciler(deps: UpgradeableDeps) {
  return async (): Promise<ReconcileResult> => {
    const fg = deps.featureGates.get(FEATURE_GATE_NAME);
    if (!fg) return {};
    const set = deps.requested ? upgradeBlockingFeatureSet(fg.spec.featureSet, deps.requested.featureSet()) : fg.spec.featureSet;
    deps.conditions.set(featureGatesUpgradeable(set, { okdBuild: deps.okdBuild ?? false }));
    return {};
  };
}

export function upgradeableController(deps: UpgradeableDeps): ControllerSpec {
  return singleKeyController({
    name: UPGRADEABLE_CONTROLLER, key: FEATURE_GATE_NAME, reconcile: upgradeableReconciler(deps),
    sources: deps.requested ? [deps.featureGates, deps.requested] : [deps.featureGates],
  });
}
