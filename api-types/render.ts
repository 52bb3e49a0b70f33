// Bootstrap render (pure): a FeatureGate manifest → the same FeatureGate with status filled for one
// payload version, as openshift/api's render command does at install time.
import { API_VERSION } from './wire.js';
import { FeatureSets } from './feature-set.js';
import { PROFILE_ANNOTATION_PREFIX, type FeatureSetRegistry } from './registry.js';
import { resolveFeatureGateDetails } from './resolve.js';
import type { FeatureGate } from './wire.js';

export function renderFeatureGate(featureGate: FeatureGate, registry: FeatureSetRegistry, payloadVersion: string): FeatureGate {
  const out: FeatureGate = structuredClone(featureGate);
  const existing = out.status?.featureGates ?? [];
  if (out.spec.featureSet === FeatureSets.CustomNoUpgrade) {
    // Someone already rendered it for a real version: leave it alone.
    if (existing.length > 1 || (existing.length === 1 && existing[0]?.version !== '')) return out;
    out.status = { ...(out.status ?? {}), featureGates: [resolveFeatureGateDetails(out.spec, registry, payloadVersion)] };
    return out;
  }
  const annotations = { ...(out.metadata.annotations ?? {}) };
  const profileKey = PROFILE_ANNOTATION_PREFIX + registry.clusterProfile;
  const included = Object.entries(annotations).filter(([k, v]) => k.startsWith(PROFILE_ANNOTATION_PREFIX) && v === 'true');
  if (included.length > 0 && !included.some(([k]) => k === profileKey)) {
    throw new Error(`FeatureGate ${out.metadata.name ?? ''} is not for cluster profile ${registry.clusterProfile}: ` +
      `it is annotated ${included.map(([k]) => k).join(', ')}`);
  }
  if (included.length === 0) annotations[profileKey] = 'true';
  out.metadata = { ...out.metadata, annotations };
  out.status = { ...(out.status ?? {}), featureGates: [resolveFeatureGateDetails(out.spec, registry, payloadVersion)] };
  return out;
}

/** FeatureGate/cluster with only a spec (empty by default, as the payload's create-only manifest defines it). */
export function emptyFeatureGate(spec: FeatureGate['spec'] = {}): FeatureGate {
  return { apiVersion: API_VERSION, kind: 'FeatureGate', metadata: { name: 'cluster' }, spec };
}
