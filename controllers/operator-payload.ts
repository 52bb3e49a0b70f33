// The operator's payload: the feature-gate manifests of its own version, loaded once at start — or, when they are
// broken, the reason, which the operator reports as Degraded instead of crash-looping.
import { BrokenPayloadError, type ClusterProfile, type FeatureSetRegistry } from '../api-types/index.js';
import { loadRegistry, type Logger } from '../runtime/index.js';

/** Where the payload is and which of its manifests apply (the operator's flags). */
export interface PayloadOptions {
  featureGateDir: string;
  operatorVersion: string;
  clusterProfile?: ClusterProfile;
}

/** The payload's feature sets for this version, or why there are none (a broken payload is reported Degraded, not a crash loop). */
export interface Payload { registry?: FeatureSetRegistry; broken?: string }

/**
 * A broken payload (two manifests for one set, a status entry for another version, …) is reported, not a crash
 * loop: the operator runs, writes no FeatureGate status, and says why in its ClusterOperator (Degraded).
 */
export function loadPayload(options: PayloadOptions, log: Logger): Payload {
  try {
    const registry = loadRegistry(options.featureGateDir, {
      operatorVersion: options.operatorVersion,
      ...(options.clusterProfile ? { clusterProfile: options.clusterProfile } : {}),
    });
    log.info('payload feature sets loaded', {
      dir: options.featureGateDir, version: options.operatorVersion,
      featureSets: Object.fromEntries([...registry.featureSets].map(([k, v]) => [k || 'Default', `${v.enabled.length} enabled, ${v.disabled.length} disabled`])),
    });
    return { registry };
  } catch (e) {
    if (!(e instanceof BrokenPayloadError)) throw e;
    const broken = `payload manifests in ${options.featureGateDir}: ${e.message}`;
    log.error('payload manifests are broken: no FeatureGate status is written; reporting Degraded', { error: broken });
    return { broken };
  }
}
