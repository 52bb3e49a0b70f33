// `featuregates preview -f featuregate.yaml`: what a FeatureGate spec would resolve to for a payload, before
// it is applied — unknown names (with the closest known one), conflicts, and the one-way warning. No cluster.
import { stringify } from 'yaml';
import {
  GateRulesError,
  checkFeatureGates,
  checkKubeletStart,
  featureSetName,
  gatesOfLists,
  kubernetesGateRules,
  knownKubernetesOfOpenShift,
  previewSpec,
  unknownGateMessage,
  type GateStartCheck,
  type SpecPreview,
} from '../api-types/index.js';
import { loadRegistry } from '../runtime/manifests/payload-manifests.js';
import { readFeatureGateFile } from '../runtime/manifests/feature-gate-file.js';
import { clusterProfileFlag, outputFlag, UsageError, type CommandSpec } from './args.js';
import { kubeletFlags } from './preflight.js';

/** What preview shows: the spec's resolution and, when the Kubernetes version is known, whether the components start with it. */
export type PreviewReport = SpecPreview & { gatesThatStart?: Pick<GateStartCheck, 'kubernetesVersion' | 'starts' | 'problems'> };

export function formatPreview(p: PreviewReport): string {
  const lines = [`Feature set: ${featureSetName(p.featureSet)}`];
  if (p.irreversible) {
    lines.push(`WARNING: ${featureSetName(p.featureSet)} cannot be undone: once applied, the cluster can never return to Default and minor upgrades are blocked.`);
  }
  for (const u of p.unknown) lines.push(unknownGateMessage(u));
  if (p.conflicts.length) lines.push(`conflict: enabled and disabled at once: ${p.conflicts.join(', ')} (the operator refuses this spec and reports Degraded)`);
  if (p.error) lines.push(`does not resolve: ${p.error}`);
  for (const g of p.gatesThatStart?.problems ?? []) {
    const who = g.kind === 'config' ? `the kubelets (${g.field}) of Kubernetes` : 'the components of Kubernetes';
    lines.push(`would not start: ${who} ${p.gatesThatStart!.kubernetesVersion} refuse ${g.gate} (${g.kind}): ${g.message}; ${g.fix}`);
  }
  if (p.resolved) {
    lines.push('', `Enabled (${p.resolved.enabled.length}):`, ...p.resolved.enabled.map((n) => `  ${n}`));
    lines.push(`Disabled (${p.resolved.disabled.length}):`, ...p.resolved.disabled.map((n) => `  ${n}`));
  }
  return `${lines.join('\n')}\n`;
}

export const previewCommand: CommandSpec = {
  name: 'preview',
  usage: 'featuregates preview -f FILE --authoritative-feature-gate-dir D --payload-version V [--cluster-profile P] [--kubernetes-version X.Y] ' +
    '[--kubelet-config FILE] [--kubelet-gates file|flag] [-o text|json|yaml]',
  positionals: [],
  options: {
    filename: { type: 'string', short: 'f', help: 'a FeatureGate manifest (YAML or JSON), or - for standard input (required)' },
    'authoritative-feature-gate-dir': { type: 'string', help: 'payload FeatureGate manifests (required)' },
    'payload-version': { type: 'string', help: 'the payload version, X.Y.Z (required: it selects manifests by major version)' },
    'cluster-profile': { type: 'string', help: 'self-managed-high-availability (default) or ibm-cloud-managed' },
    'kubernetes-version': { type: 'string', help: 'the cluster\'s Kubernetes minor, X.Y: the resolved gates are checked against its rules (default: the payload version\'s, when known; featuregates preflight says more)' },
    'kubelet-config': { type: 'string', help: 'the nodes\' KubeletConfiguration (YAML or JSON): the kubelet\'s configuration checks judge it with the gates (default: the kubelet\'s defaults)' },
    'kubelet-gates': { type: 'string', help: 'how the kubelets are given the gates: file (their configuration\'s featureGates, as machine-config writes them; default) or flag' },
    output: { type: 'string', short: 'o', help: 'text (default), json or yaml' },
  },
  run(values) {
    const file = values.filename;
    const dir = values['authoritative-feature-gate-dir'];
    const version = values['payload-version'];
    if (!file) throw new UsageError('-f is required');
    if (!dir) throw new UsageError('--authoritative-feature-gate-dir is required');
    if (!version) throw new UsageError('--payload-version is required');
    const output = outputFlag(values.output, ['text', 'json', 'yaml']);
    const profile = clusterProfileFlag(values['cluster-profile']);
    const fg = readFeatureGateFile(file);
    const registry = loadRegistry(dir, { operatorVersion: version, ...(profile ? { clusterProfile: profile } : {}) });
    const p: PreviewReport = previewSpec(fg.spec, registry);
    const kube = values['kubernetes-version'] ?? knownKubernetesOfOpenShift(version);
    if (p.resolved && kube) {
      try {
        const gates = gatesOfLists(p.resolved);
        const c = checkFeatureGates({ kubernetesVersion: kube, flavor: 'openshift', gates }, kubernetesGateRules(kube));
        // the kubelet also refuses by its configuration (the nodes' one with --kubelet-config), once the gates themselves pass
        const kubelet = c.starts ? checkKubeletStart({ kubernetesVersion: kube, flavor: 'openshift', gates, kubelet: kubeletFlags(values) }) : c;
        p.gatesThatStart = {
          kubernetesVersion: c.kubernetesVersion,
          starts: kubelet.starts,
          problems: c.starts ? kubelet.problems : c.problems,
        };
      } catch (e) {
        if (!(e instanceof GateRulesError)) throw e;
        if (values['kubernetes-version'] !== undefined) throw new UsageError(`--kubernetes-version: ${e.message}`);
      }
    }
    process.stdout.write(output === 'json' ? `${JSON.stringify(p, null, 2)}\n` : output === 'yaml' ? stringify(p) : formatPreview(p));
    return p.unknown.length || p.conflicts.length || p.error || p.gatesThatStart?.starts === false ? 1 : 0;
  },
};
