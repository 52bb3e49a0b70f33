// Reading FeatureGate/cluster for the CLI's explain and diff (status per version, spec), with the errors
// `status` gives.
import { FEATURE_GATE_NAME, type FeatureGate } from '../api-types/index.js';
import { FeatureGateResource, KubeTransport, ResourceClient, apiErrorMessage, isNotFound, loadKubeConfig } from '../runtime/index.js';
import { requestTimeoutFlag } from './args.js';

export async function readClusterFeatureGate(kubeconfig: string | undefined, requestTimeout: string | undefined): Promise<{ fg: FeatureGate; server: string }> {
  const kc = await loadKubeConfig(kubeconfig);
  KubeTransport.for(kc).defaultTimeoutMs = requestTimeoutFlag(requestTimeout);
  const server = kc.getCurrentCluster()?.server ?? 'the API server';
  try {
    return { fg: await new ResourceClient(kc, FeatureGateResource).get(FEATURE_GATE_NAME), server };
  } catch (e) {
    if (isNotFound(e)) throw new Error(`featuregates.config.openshift.io/cluster not found on ${server}`, { cause: e });
    throw new Error(`reading featuregates/cluster from ${server}: ${apiErrorMessage(e)}`, { cause: e });
  }
}

/** One status entry's lists, by version; an error that lists the versions present otherwise. */
export function statusLists(fg: FeatureGate, version: string): { enabled: string[]; disabled: string[] } {
  const entry = fg.status?.featureGates?.find((e) => e.version === version);
  if (!entry) {
    const have = (fg.status?.featureGates ?? []).map((e) => e.version);
    throw new Error(`version ${JSON.stringify(version)} is not in FeatureGate/cluster status (it has ${have.length ? have.join(', ') : 'no entries'})`);
  }
  return { enabled: entry.enabled.map((g) => g.name), disabled: entry.disabled.map((g) => g.name) };
}
