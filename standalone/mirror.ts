// Optional mirror: write the standalone FeatureGate spec and its one status entry to an API server, so
// components built on the SDK can read the gates the same way as on a cluster.
import type { KubeConfig } from '@kubernetes/client-node';
import { FEATURE_GATE_NAME, FeatureSets, type FeatureGate } from '../api-types/index.js';
import { FeatureGates, ResourceClient, apiErrorMessage, isConflict, isNotFound } from '../runtime/index.js';
import type { StandaloneFeatureGates } from './config.js';
import type { ResolvedGates } from './render.js';

export async function mirrorFeatureGate(kc: KubeConfig, fg: StandaloneFeatureGates, version: string, gates: ResolvedGates): Promise<FeatureGate> {
  const client = new ResourceClient(kc, FeatureGates);
  const spec: FeatureGate['spec'] = fg.featureSet === FeatureSets.CustomNoUpgrade
    ? { featureSet: fg.featureSet, customNoUpgrade: { enabled: gates.enabledNames, disabled: gates.disabledNames } }
    : { featureSet: fg.featureSet };
  const status = { featureGates: [{ version, enabled: gates.enabledNames.map((name) => ({ name })), disabled: gates.disabledNames.map((name) => ({ name })) }] };
  for (let attempt = 0; attempt < 10; attempt++) {
    try {
      let cur: FeatureGate;
      try {
        cur = await client.get(FEATURE_GATE_NAME);
        cur = await client.replace({ ...cur, spec });
      } catch (e) {
        if (!isNotFound(e)) throw e;
        cur = await client.create({ apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', metadata: { name: FEATURE_GATE_NAME }, spec });
      }
      return await client.replaceStatus({ ...cur, status: { ...(cur.status ?? {}), ...status } });
    } catch (e) {
      if (isConflict(e)) continue;
      throw new Error(`mirroring FeatureGate/cluster: ${apiErrorMessage(e)}`, { cause: e });
    }
  }
  throw new Error('mirroring FeatureGate/cluster: kept conflicting with other writers');
}
