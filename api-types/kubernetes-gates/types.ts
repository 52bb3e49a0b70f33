// The shape of Kubernetes' feature-gate rules of one release: what hack/update-gate-rules.mjs generates beside this
// file (kube-1.NN.ts) and api-types/gate-rules.ts judges gates with.

export type GatePreRelease = 'Alpha' | 'Beta' | 'GA' | 'Deprecated';
/** One versioned spec: [version "X.Y", default, lockToDefault, preRelease, minCompatibilityVersion?]. */
export type KubernetesGateSpec = readonly [string, boolean, boolean, GatePreRelease, string?];

/** One Kubernetes release's gates (every versioned spec) and dependencies. */
export interface KubernetesGateRules {
  kubernetesVersion: string;
  gates: Readonly<Record<string, readonly KubernetesGateSpec[]>>;
  dependencies: Readonly<Record<string, readonly string[]>>;
  /**
   * Gates only binaries that import k8s.io/controller-manager's feature registration have (kube-apiserver,
   * kube-controller-manager, kubelet; not kube-scheduler).
   */
  controllerManagerGates: readonly string[];
}
