// Optional mirror: write the standalone FeatureGate spec and its one status entry to an API server, so
// components built on the SDK can read the gates the same way as on a cluster.
import type { ClusterAccess } from '../runtime/index.js';
import { emptyFeatureGate, FEATURE_GATE_NAME, FeatureSets, jsonEqual, toFeatureGateDetails, type FeatureGate, type GateLists } from '../api-types/index.js';
import { FeatureGateResource, ResourceClient, apiErrorMessage, retryOnConflict } from '../runtime/index.js';
import type { StandaloneFeatureGates } from './config.js';
import { effectiveGates } from './render.js';

export async function mirrorFeatureGate(
  kc: ClusterAccess,
  fg: StandaloneFeatureGates,
  version: string,
  gates: GateLists,
): Promise<FeatureGate> {
  const client = new ResourceClient(kc, FeatureGateResource);
  const spec: FeatureGate['spec'] =
    fg.featureSet === FeatureSets.CustomNoUpgrade
      ? { featureSet: fg.featureSet, customNoUpgrade: { enabled: [...gates.enabledNames], disabled: [...gates.disabledNames] } }
      : { featureSet: fg.featureSet };
  // Status: what kube-apiserver runs with (the required gates included), as the rendered arguments say.
  const eff = effectiveGates(gates);
  const status = { featureGates: [toFeatureGateDetails({ version, enabled: eff.enabledNames, disabled: eff.disabledNames })] };
  try {
    return await retryOnConflict(async () => {
      let cur = await client.getOrCreate(FEATURE_GATE_NAME, () => emptyFeatureGate(spec));
      if (!jsonEqual(cur.spec, spec)) cur = await client.replace({ ...cur, spec });
      return client.replaceStatus({ ...cur, status: { ...(cur.status ?? {}), ...status } });
    });
  } catch (e) {
    throw new Error(`mirroring FeatureGate/cluster: ${apiErrorMessage(e)}`, { cause: e });
  }
}
