// Standalone rendering (pure): the resolved gates → kube-apiserver arguments and a kubelet configuration.
import { compareNames, isPresetFeatureSet, renderKubeAPIServerArgs, resolveFeatureSet, type FeatureSetRegistry, type GateLists } from '../api-types/index.js';
import { REQUIRED_FEATURE_GATES, type StandaloneFeatureGates } from './config.js';

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort(compareNames);

/** The gates a configuration sets: the four lists for CustomNoUpgrade, the payload's set for Tech/DevPreview. */
export function resolveStandaloneGates(fg: StandaloneFeatureGates, registry?: FeatureSetRegistry): GateLists {
  if (isPresetFeatureSet(fg.featureSet)) {
    if (!registry) throw new Error(`feature set ${fg.featureSet} needs payload manifests (--authoritative-feature-gate-dir)`);
    const r = resolveFeatureSet({ featureSet: fg.featureSet }, registry);
    return { enabledNames: [...r.enabled], disabledNames: [...r.disabled] };
  }
  const c = fg.customNoUpgrade;
  const s = fg.specialHandlingSupportExceptionRequired;
  return { enabledNames: sorted([...c.enabled, ...s.enabled]), disabledNames: sorted([...c.disabled, ...s.disabled]) };
}

/**
 * The gates kube-apiserver runs with: the resolved gates plus the required ones, on. The FeatureGate mirror
 * writes exactly these, so an SDK reader sees what the arguments enable.
 */
export function effectiveGates(gates: GateLists, required: readonly string[] = REQUIRED_FEATURE_GATES): GateLists {
  const requiredSet = new Set(required);
  return {
    enabledNames: sorted([...gates.enabledNames, ...required]),
    disabledNames: gates.disabledNames.filter((n) => !requiredSet.has(n)),
  };
}

/** Gates the kubelet configuration sets itself to another value than apiServer.featureGates (the kubelet's win). */
export function kubeletOverrides(gates: GateLists, base: Record<string, unknown> | undefined,
  required: readonly string[] = REQUIRED_FEATURE_GATES): { name: string; kubelet: boolean; apiServer: boolean }[] {
  const own = (base?.featureGates ?? {}) as Record<string, unknown>;
  const eff = effectiveGates(gates, required);
  const want = new Map<string, boolean>([
    ...eff.disabledNames.map((n) => [n, false] as const),
    ...eff.enabledNames.map((n) => [n, true] as const),
  ]);
  return [...want].filter(([n, v]) => typeof own[n] === 'boolean' && own[n] !== v).map(([name, apiServer]) => ({ name, kubelet: own[name] as boolean, apiServer }));
}

/** Repeated `--feature-gates=Name=bool`, byte-sorted, then the required gates (always true) appended. */
export function standaloneAPIServerArgs(gates: GateLists, required: readonly string[] = REQUIRED_FEATURE_GATES): string[] {
  const requiredSet = new Set(required);
  const args = renderKubeAPIServerArgs({
    enabledNames: gates.enabledNames.filter((n) => !requiredSet.has(n)),
    disabledNames: gates.disabledNames.filter((n) => !requiredSet.has(n)),
  });
  return [...args, ...required.map((n) => `--feature-gates=${n}=true`)];
}

/**
 * The kubelet configuration: `base` (a KubeletConfiguration the caller supplies, or a minimal one) with
 * featureGates deep-merged. A gate the base config already sets keeps its value (the kubelet's own
 * settings win, as in MicroShift); the others come from the resolved gates and the required gates.
 */
export function standaloneKubeletConfig(gates: GateLists, base: Record<string, unknown> | undefined,
  required: readonly string[] = REQUIRED_FEATURE_GATES): Record<string, unknown> {
  const cfg: Record<string, unknown> = base ? structuredClone(base) : { apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration' };
  const own = (cfg.featureGates ?? {}) as Record<string, boolean>;
  const merged: Record<string, boolean> = {};
  for (const n of gates.disabledNames) merged[n] = false;
  for (const n of gates.enabledNames) merged[n] = true;
  for (const n of required) merged[n] = true;
  const all = { ...merged, ...own };
  cfg.featureGates = Object.fromEntries(Object.keys(all).sort(compareNames).map((k) => [k, all[k] as boolean]));
  return cfg;
}
