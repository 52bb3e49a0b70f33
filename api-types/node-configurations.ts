// The nodes' kubelet configurations as a cluster holds them: a running kubelet's /configz read as what a restart starts
// from, and nodes grouped by what the kubelet's configuration rules read of them (a node's address, port or certificate
// paths never change a verdict). Pure.
import { sortKeys } from './deep-equal.js';
import { effectiveGates, kubernetesGateRules, type KubernetesGateRules } from './gate-rules.js';
import { fieldAt, fieldsOf, sameValue, withValue, without } from './kubelet-config-fields.js';
import { kubeletConfigRules, type KubeletConfigRules, type KubeletConfiguration } from './kubelet-config.js';

/**
 * What a running kubelet's configuration (its /configz answer, defaulted) says a restart would start from: the fields
 * its defaulting set only because a gate was on are taken out (a field set explicitly to exactly that value is taken
 * for the default — the one reading /configz cannot tell apart), and its featureGates too — the gates being judged
 * replace them, as machine-config rewrites the file's featureGates.
 */
export function configurationOfRunningKubelet(
  configz: KubeletConfiguration,
  kubernetesVersion: string,
  gateRules: KubernetesGateRules = kubernetesGateRules(kubernetesVersion),
  rules: KubeletConfigRules = kubeletConfigRules(kubernetesVersion),
): KubeletConfiguration {
  const on = effectiveGates(gateRules, configz.featureGates, { component: 'kubelet' });
  let fields: Record<string, unknown> = { ...configz.fields };
  delete fields.featureGates;
  for (const d of rules.defaults) {
    if (on(d.gate) && sameValue(fieldAt(fields, d.field), d.value)) fields = without(fields, d.field);
  }
  return { fields, featureGates: new Map() };
}

/** Nodes whose kubelets run the same configuration (as configurationOfRunningKubelet reads it). */
export interface NodeConfigurationGroup { nodes: string[]; configuration: KubeletConfiguration }

/** The configuration fields a minor's rules look at (its checks and its gated defaults). */
export function fieldsTheRulesRead(rules: KubeletConfigRules): string[] {
  return [...new Set([...rules.requires.flatMap((r) => r.when.flatMap(fieldsOf)), ...rules.defaults.map((d) => d.field)])].sort();
}

/**
 * Groups nodes by what the rules read of their configuration (`fields`: a node's address, port or certificate paths do
 * not change a verdict), keeping those fields only; node names sorted, the largest group first.
 */
export function groupNodeConfigurations(
  nodes: readonly { node: string; configuration: KubeletConfiguration }[],
  fields: readonly string[],
): NodeConfigurationGroup[] {
  const groups = new Map<string, NodeConfigurationGroup>();
  for (const { node, configuration } of nodes) {
    let kept: Record<string, unknown> = {};
    for (const f of fields) {
      const v = fieldAt(configuration.fields, f);
      if (v !== undefined) kept = withValue(kept, f, v);
    }
    const key = JSON.stringify(sortKeys(kept));
    const g = groups.get(key) ?? { nodes: [], configuration: { fields: kept, featureGates: configuration.featureGates } };
    g.nodes.push(node);
    groups.set(key, g);
  }
  return [...groups.values()]
    .map((g) => ({ ...g, nodes: g.nodes.sort() }))
    .sort((a, b) => b.nodes.length - a.nodes.length || (a.nodes[0]! < b.nodes[0]! ? -1 : 1));
}
