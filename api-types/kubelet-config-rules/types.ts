// The shape of the kubelet's configuration rules of one release: what hack/update-kubelet-config-rules.mjs generates
// beside this file (kube-1.NN.ts) and api-types/kubelet-config.ts judges a node's configuration with.
import type { KubeletCondition, KubeletFieldValue } from '../kubelet-config-fields.js';

/** One release's rules: each check refuses when its gate is in the state `enabled` and every condition holds. */
export interface KubeletConfigRules {
  kubernetesVersion: string;
  /** Fields the rules test that the kubelet's defaulting sets whatever the gates (absent is never "unset"). */
  defaulted: readonly string[];
  requires: readonly { gate: string; enabled: boolean; when: readonly KubeletCondition[]; message: string }[];
  /** Fields the defaulting sets only while the gate is on (and the field is unset). */
  defaults: readonly { gate: string; field: string; value: KubeletFieldValue }[];
  /** Checks of a field's value under a gate (a range, an enum): not modelled — their fields are wrong with or without it. */
  valueChecks: readonly { gate: string; enabled: boolean }[];
}
