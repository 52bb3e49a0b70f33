// Whether an HCP's control plane would start with the gates its spec resolves to: the gates-that-start check
// (api-types' checkSpecGates) for the Kubernetes minor of the HCP's release, judged once per spec and release (a
// render's worth of work, not redone at every look). Both the guest's requested spec (guest-session.ts) and the
// management ConfigMap (feature-gate-configmap.ts) hold back a set that would be refused.
import {
  ClusterProfiles, checkSpecGates, kubernetesOfOpenShift, type FeatureGateSpec,
} from '../api-types/index.js';
import type { ReleaseCatalog } from '../runtime/index.js';

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
      const check = checkSpecGates(spec, this.catalog.registry(release, ClusterProfiles.IBMCloudManaged), release, kube);
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
