// Whether an HCP's control plane would start with the gates its spec resolves to: the gates-that-start check
// (api-types' checkSpecGates) for the Kubernetes minor of the HCP's release, judged once per spec and release for every
// HCP of the replica (a render's worth of work: a replica taking over hundreds of HCPs of one release and one spec
// judged it for each). Both the guest's requested spec (guest-session.ts) and the
// management ConfigMap (feature-gate-configmap.ts) hold back a set that would be refused.
import {
  ClusterProfiles, checkSpecGates, kubernetesOfOpenShift, type FeatureGateSpec, type FeatureSetRegistry, type GateStartCheck,
} from '../api-types/index.js';
import type { ReleaseCatalog } from './release-catalog.js';

export class HcpGatesRefusal {
  private last: { key: string; refusal: string | undefined } | undefined;

  /** `kubernetesVersions`: more OpenShift minor → Kubernetes minor pairs (--kubernetes-versions). */
  constructor(private readonly hcpKey: string, private readonly catalog: Pick<ReleaseCatalog, 'registry'>,
    private readonly kubernetesVersions?: Readonly<Record<string, string>>) {}

  /**
   * Why the HCP's kube-apiserver (the Kubernetes minor of `release`) would refuse to start with the gates `spec`
   * resolves to, or undefined when it would start or cannot be judged (a release whose Kubernetes minor is not known:
   * --kubernetes-versions names more; a spec that does not resolve is reported where it is rendered).
   */
  of(spec: FeatureGateSpec, release: string): string | undefined {
    const key = JSON.stringify([spec, release]);
    if (this.last?.key === key) return this.last.refusal;
    let refusal: string | undefined;
    try {
      const kube = kubernetesOfOpenShift(release, this.kubernetesVersions);
      const check = judged(spec, this.catalog.registry(release, ClusterProfiles.IBMCloudManaged), release, kube);
      if (!check.starts) {
        refusal = `HostedControlPlane ${this.hcpKey}: its kube-apiserver (Kubernetes ${kube}, release ${release}) would refuse to start with the gates of ` +
          `spec.configuration.featureGate: ${check.problems.map((p) => `${p.gate} (${p.kind}): ${p.message}; ${p.fix}`).join('; ')}. ` +
          'The feature-gate ConfigMap and the guest FeatureGate keep their last set that starts';
      }
    } catch {
      // Not judged: a release whose Kubernetes minor this build does not know (GateRulesError), or a spec or release
      // that does not resolve (reported where the spec is rendered).
    }
    this.last = { key, refusal };
    return refusal;
  }
}

/** The specs judged last, per release registry; a tenant's specs are its own to vary, so at most JUDGED_SPECS are kept. */
const judgedSpecs = new WeakMap<FeatureSetRegistry, Map<string, GateStartCheck>>();
export const JUDGED_SPECS = 64;

/** How many specs are kept judged for a release registry (tests: the bound holds whatever the tenants write). */
export function judgedSpecCount(registry: FeatureSetRegistry): number {
  return judgedSpecs.get(registry)?.size ?? 0;
}

function judged(spec: FeatureGateSpec, registry: FeatureSetRegistry, release: string, kube: string): GateStartCheck {
  let checks = judgedSpecs.get(registry);
  if (!checks) judgedSpecs.set(registry, checks = new Map());
  const key = JSON.stringify([spec, release, kube]);
  const known = checks.get(key);
  if (known) return known;
  const check = checkSpecGates(spec, registry, release, kube);
  if (checks.size >= JUDGED_SPECS) checks.delete(checks.keys().next().value!);
  checks.set(key, check);
  return check;
}
