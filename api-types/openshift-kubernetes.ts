// Which Kubernetes minor each OpenShift minor runs: data with its source, never a guess.
import { GateRulesError } from './gate-rules.js';
import { parsePayloadVersion } from './payload-version.js';

/** One OpenShift minor → the Kubernetes minor it runs, and where that was read. */
export interface OpenShiftKubernetes {
  kubernetes: string;
  source: string;
}

/**
 * Source for every row: the `k8s.io/api` requirement in openshift/api's `go.mod` on that release branch (the API
 * types each release is built against move with OpenShift's Kubernetes rebase), read from a snapshot of openshift/api
 * whose master head is 2a3d739 (2026-08-22). 4.15–4.21 also agree with each release's notes ("This release uses
 * Kubernetes 1.N"). Left out on purpose: release-4.23 and release-5.1, whose tips in that snapshot are master commits
 * with no commit of their own, so their go.mod says where master was, not what the release ships. 4.22 is the last
 * OpenShift 4 minor (library-go's linearVersion: 4.22 → 5.0).
 */
export const OPENSHIFT_KUBERNETES: Readonly<Record<string, OpenShiftKubernetes>> = {
  '4.15': { kubernetes: '1.28', source: 'openshift/api release-4.15 (0a58f8c) go.mod: k8s.io/api v0.28.2' },
  '4.16': { kubernetes: '1.29', source: 'openshift/api release-4.16 (0677a88) go.mod: k8s.io/api v0.29.0' },
  '4.17': { kubernetes: '1.30', source: 'openshift/api release-4.17 (92c55bf) go.mod: k8s.io/api v0.30.1' },
  '4.18': { kubernetes: '1.31', source: 'openshift/api release-4.18 (f9b2d1a) go.mod: k8s.io/api v0.31.1' },
  '4.19': { kubernetes: '1.32', source: 'openshift/api release-4.19 (1ebdd7b) go.mod: k8s.io/api v0.32.1' },
  '4.20': { kubernetes: '1.33', source: 'openshift/api release-4.20 (05da40e) go.mod: k8s.io/api v0.33.2' },
  '4.21': { kubernetes: '1.34', source: 'openshift/api release-4.21 (1cb630c) go.mod: k8s.io/api v0.34.1' },
  '4.22': { kubernetes: '1.35', source: 'openshift/api release-4.22 (9fda517) go.mod: k8s.io/api v0.35.1' },
  '5.0': { kubernetes: '1.36', source: 'openshift/api release-5.0 (e543cc5, own commits to 2026-08-21) go.mod: k8s.io/api v0.36.2' },
};

/**
 * The Kubernetes minor of an OpenShift payload version, or a GateRulesError saying to name it. `also`: more
 * OpenShift minor → Kubernetes minor pairs (a flag's), which win over the built-in ones.
 */
export function kubernetesOfOpenShift(payloadVersion: string, also: Readonly<Record<string, string>> = {}): string {
  const v = parsePayloadVersion(payloadVersion);
  const minor = `${v.major}.${v.minor}`;
  const kube = also[minor] ?? OPENSHIFT_KUBERNETES[minor]?.kubernetes;
  if (!kube) {
    const known = [...new Set([...Object.keys(OPENSHIFT_KUBERNETES), ...Object.keys(also)])].join(', ');
    throw new GateRulesError(`which Kubernetes minor OpenShift ${minor} runs is not known to this build (it knows ${known}); name it with --kubernetes-version`);
  }
  return kube;
}

/**
 * kubernetesOfOpenShift, or undefined where the mapping (or the version) is unknown: for commands that only add the rules' view when they
 * can.
 */
export function knownKubernetesOfOpenShift(payloadVersion: string, also: Readonly<Record<string, string>> = {}): string | undefined {
  try {
    return kubernetesOfOpenShift(payloadVersion, also);
  } catch {
    return undefined;
  }
}

/** `4.22=1.35,5.0=1.36`: OpenShift minors and the Kubernetes minors they run (GateRulesError naming the bad part). */
export function parseKubernetesVersionMap(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const m = /^(\d+\.\d+)=(\d+\.\d+)$/.exec(part);
    if (!m) throw new GateRulesError(`${JSON.stringify(part)} is not OPENSHIFT_MINOR=KUBERNETES_MINOR (for example 4.22=1.35)`);
    out[m[1]!] = m[2]!;
  }
  return out;
}
