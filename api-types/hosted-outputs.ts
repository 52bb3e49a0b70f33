// What the hosted coordinator writes on the management side, pure: the `feature-gate` ConfigMap as
// HyperShift's featuregate-generator Job leaves it (the rendered FeatureGate for the desired version and
// the ibm-cloud-managed profile — the one openshift/api names Hypershift — status entry first), and where a payload version's manifests
// live in a catalog.
import { parsePayloadVersion } from './payload-version.js';
import { emptyFeatureGate, renderFeatureGate } from './render.js';
import type { FeatureSetRegistry } from './registry.js';
import type { FeatureGateSpec } from './wire.js';
import { FEATURE_GATE_CONFIGMAP, FEATURE_GATE_CONFIGMAP_KEY, PAYLOAD_VERSION_ANNOTATION, type ConfigMap } from './hosted-control-plane.js';

/** The catalog folder of a payload version: X.Y.Z (any suffix) reads `release-X.Y/`. */
export function releaseFolder(version: string): string {
  const v = parsePayloadVersion(version);
  return `release-${v.major}.${v.minor}`;
}

/** The rendered FeatureGate text, byte for byte what `featuregates render -o json` prints for that spec. */
export function renderedFeatureGateText(spec: FeatureGateSpec, registry: FeatureSetRegistry, version: string): string {
  return `${JSON.stringify(renderFeatureGate(emptyFeatureGate(spec), registry, version), null, 2)}\n`;
}

/** The `feature-gate` ConfigMap of one HCP namespace (metadata and data only; the caller merges it onto the stored one). */
export function featureGateConfigMap(namespace: string, spec: FeatureGateSpec, registry: FeatureSetRegistry, version: string): ConfigMap {
  return {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name: FEATURE_GATE_CONFIGMAP, namespace, annotations: { [PAYLOAD_VERSION_ANNOTATION]: version } },
    data: { [FEATURE_GATE_CONFIGMAP_KEY]: renderedFeatureGateText(spec, registry, version) },
  };
}

/** True when `stored` already carries what `desired` says (other keys, labels and annotations are left alone). */
export function configMapCarries(stored: ConfigMap | undefined, desired: ConfigMap): boolean {
  if (!stored) return false;
  const a = desired.metadata.annotations ?? {};
  return Object.entries(a).every(([k, v]) => stored.metadata.annotations?.[k] === v)
    && Object.entries(desired.data ?? {}).every(([k, v]) => stored.data?.[k] === v);
}

/** `stored` with `desired`'s annotations and data laid over it. */
export function mergeConfigMap(stored: ConfigMap, desired: ConfigMap): ConfigMap {
  return {
    ...stored,
    metadata: { ...stored.metadata, annotations: { ...(stored.metadata.annotations ?? {}), ...(desired.metadata.annotations ?? {}) } },
    data: { ...(stored.data ?? {}), ...(desired.data ?? {}) },
  };
}
