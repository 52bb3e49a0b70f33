// `featuregates preflight`: would the components start with the gates a user is about to choose? Either an explicit
// `--feature-gates` for a Kubernetes version (vanilla components by default), or a FeatureGate file resolved for a
// payload (OpenShift's components: OpenShift gate names are ignored, the Kubernetes gates among them judged), or a
// cluster's: the status entry of the version ClusterVersion is going to. Exit 0 when every component starts, 1 when
// one would refuse, 2 on usage errors.
import { stringify } from 'yaml';
import {
  CLUSTER_VERSION_NAME,
  GateRulesError,
  gatesOfLists,
  kubernetesOfOpenShift,
  parseGateFlag,
  preflight,
  preflightNodeGroups,
  preflightStarts,
  previewSpec,
  type GateFlavor,
  type KubeletGateRoute,
  type KubeletStartInput,
  type PreflightReport,
} from '../api-types/index.js';
import { loadRegistry, readNodeConfigurations, ClusterVersionResource, KubeTransport, ResourceClient, type NodeConfigurations } from '../runtime/index.js';
import { connect, readClusterGateSet, readFeatureGate } from './cluster-read.js';
import { readFeatureGateFile } from '../runtime/manifests/feature-gate-file.js';
import { readKubeletConfigFile } from '../runtime/manifests/manifest-file.js';
import {
  CLUSTER_SEARCH_HELP,
  REQUEST_TIMEOUT_OPTION,
  choiceFlag,
  clusterProfileFlag,
  outputFlag,
  requestTimeoutFlag,
  sayOnStderr,
  UsageError,
  type CommandSpec,
} from './args.js';

const nodeList = (nodes: readonly string[], shown = 8) => `${nodes.slice(0, shown).join(', ')}${nodes.length > shown ? `, … (${nodes.length} nodes)` : ''}`;

export function formatPreflight(r: PreflightReport, wide = false): string {
  const lines = [`Kubernetes ${r.kubernetesVersion}, emulated version ${r.emulatedVersion}`, ''];
  const width = Math.max(...r.components.map((c) => c.name.length));
  for (const c of r.components) {
    lines.push(`${c.name.padEnd(width)}  ${c.starts ? 'starts' : `REFUSES (${c.problems.length})`}`);
  }
  // Components that refuse for the same reasons are told together.
  const groups = new Map<string, { names: string[]; problems: PreflightReport['components'][number]['problems'] }>();
  for (const c of r.components.filter((x) => !x.starts)) {
    const key = JSON.stringify(c.problems);
    const g = groups.get(key) ?? { names: [], problems: c.problems };
    g.names.push(c.name);
    groups.set(key, g);
  }
  for (const g of groups.values()) {
    lines.push('', g.names.length === r.components.length ? 'Each of them refuses to start:' : `${g.names.join(', ')} ${g.names.length > 1 ? 'refuse' : 'refuses'} to start:`);
    for (const p of g.problems) {
      lines.push(`  ${p.kind.padEnd(10)} ${p.gate}${p.field ? ` (${p.field})` : ''}: ${p.message}`, `  ${''.padEnd(10)} fix: ${p.fix}`);
    }
  }
  if (r.nodes) {
    const n = r.nodes;
    lines.push('', 'The nodes\' kubelets, each with its own configuration (/configz):');
    if (n.groups.length === 0) lines.push('  (no node\'s configuration was read)');
    for (const g of n.groups) {
      lines.push(`  ${nodeList(g.nodes)}: ${g.starts ? 'start' : `REFUSE (${g.problems.length})`}`);
      for (const p of g.problems) lines.push(`    ${p.kind} ${p.gate}${p.field ? ` (${p.field})` : ''}: ${p.message}`, `      fix: ${p.fix}`);
    }
    for (const u of n.unread) lines.push(`  ${u.node}: not judged (${u.error})`);
    if (n.notReady.length) lines.push(`  not ready, not read: ${nodeList(n.notReady)}`);
  }
  if (r.ignored.length) {
    lines.push('', `${r.ignored.length} names are not Kubernetes gates (OpenShift's components ignore them)${wide ? `: ${r.ignored.join(', ')}` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

export const preflightCommand: CommandSpec = {
  name: 'preflight',
  usage: 'featuregates preflight (--kubernetes-version X.Y --feature-gates A=true,B=false | -f FILE --authoritative-feature-gate-dir D ' +
    '--payload-version V [--kubernetes-version X.Y] | [--kubeconfig P] [--kubernetes-version X.Y]) [--emulated-version X.Y] [--flavor vanilla|openshift] ' +
    '[--kubelet-config FILE] [--kubelet-gates flag|file] [--kubelets all|none] [-o table|wide|json|yaml]',
  positionals: [],
  options: {
    'kubernetes-version': { type: 'string', help: 'the components\' Kubernetes minor, X.Y (with -f: default from the payload version, when known)' },
    'emulated-version': { type: 'string', help: 'their --emulated-version (default: the Kubernetes minor)' },
    'feature-gates': { type: 'string', help: 'the gates, as the flag takes them: A=true,B=false' },
    flavor: { type: 'string', help: 'vanilla (unknown names refused; default with --feature-gates) or openshift (ignored; default with -f)' },
    filename: { type: 'string', short: 'f', help: 'a FeatureGate manifest (YAML or JSON), or - for standard input, resolved for the payload' },
    'authoritative-feature-gate-dir': { type: 'string', help: 'payload FeatureGate manifests (with -f)' },
    'payload-version': { type: 'string', help: 'the payload version, X.Y.Z (with -f)' },
    'cluster-profile': { type: 'string', help: 'self-managed-high-availability (default) or ibm-cloud-managed (with -f)' },
    kubeconfig: { type: 'string', help: `the cluster, when neither --feature-gates nor -f is given: the gates of FeatureGate/cluster's status entry for the version ClusterVersion is going to (default: ${CLUSTER_SEARCH_HELP}); ` +
      'its Kubernetes minor: --kubernetes-version, else the one that version runs when this build knows it, else the API server\'s' },
    'kubelet-config': { type: 'string', help: 'the nodes\' KubeletConfiguration (YAML or JSON, as machine-config or MicroShift render it); default: the kubelet\'s defaults' },
    kubelets: { type: 'string', help: 'with a cluster: all (default) judges every Ready node\'s kubelet with its own configuration (/configz through the node proxy; list nodes, get nodes/proxy), nodes with the same configuration together; none: no node' },
    'kubelet-gates': { type: 'string', help: 'how the kubelet is given the gates: file (its configuration\'s featureGates; default with -f and --kubeconfig) or flag (--feature-gates; default with --feature-gates)' },
    'request-timeout': REQUEST_TIMEOUT_OPTION,
    output: { type: 'string', short: 'o', help: 'table (default), wide, json or yaml' },
  },
  async run(values) {
    const output = outputFlag(values.output, ['table', 'wide', 'json', 'yaml']);
    const file = values.filename;
    const modes = [file !== undefined && '-f', values['feature-gates'] !== undefined && '--feature-gates', values.kubeconfig !== undefined && '--kubeconfig'].filter(Boolean);
    if (modes.length > 1) throw new UsageError(`give one of --feature-gates, -f or --kubeconfig, not ${modes.join(' and ')}`);
    try {
      let gates: Map<string, boolean>;
      let kubernetesVersion = values['kubernetes-version'];
      let flavor: GateFlavor;
      let nodes: NodeConfigurations | undefined;
      if (file !== undefined) {
        const dir = values['authoritative-feature-gate-dir'];
        const version = values['payload-version'];
        if (!dir) throw new UsageError('-f needs --authoritative-feature-gate-dir');
        if (!version) throw new UsageError('-f needs --payload-version');
        const profile = clusterProfileFlag(values['cluster-profile']);
        const registry = loadRegistry(dir, { operatorVersion: version, ...(profile ? { clusterProfile: profile } : {}) });
        const p = previewSpec(readFeatureGateFile(file).spec, registry);
        if (!p.resolved) throw new UsageError(`the FeatureGate does not resolve for payload ${version}: ${p.error ?? `conflicts: ${p.conflicts.join(', ')}`} (see featuregates preview)`);
        gates = gatesOfLists(p.resolved);
        kubernetesVersion ??= kubernetesOfOpenShift(version);
        flavor = choiceFlag('--flavor', values.flavor ?? 'openshift', ['vanilla', 'openshift']);
      } else if (values['feature-gates'] !== undefined) {
        if (!kubernetesVersion) throw new UsageError('--feature-gates needs --kubernetes-version');
        gates = parseGateFlag(values['feature-gates']);
        flavor = choiceFlag('--flavor', values.flavor ?? 'vanilla', ['vanilla', 'openshift']);
      } else {
        // Neither: a cluster.
        const kc = await connect(values.kubeconfig, requestTimeoutFlag(values['request-timeout']), sayOnStderr);
        const fg = await readFeatureGate(kc);
        const cv = await new ResourceClient(kc, ClusterVersionResource).find(CLUSTER_VERSION_NAME);
        const set = await readClusterGateSet(kc, fg, cv, kubernetesVersion);
        sayOnStderr(`the gates of FeatureGate/cluster's entry for ${set.version}, at Kubernetes ${set.kubernetesVersion} (${set.kubernetesSource})`);
        ({ gates, kubernetesVersion } = set);
        flavor = choiceFlag('--flavor', values.flavor ?? 'openshift', ['vanilla', 'openshift']);
        if (choiceFlag('--kubelets', values.kubelets ?? 'all', ['all', 'none']) === 'all') {
          nodes = await readNodeConfigurations(kc, kubernetesVersion, { timeoutMs: KubeTransport.for(kc).defaultTimeoutMs });
        }
      }
      const kubelet = kubeletFlags(values);
      const r: PreflightReport = preflight({ kubernetesVersion, flavor, gates, kubelet, ...(values['emulated-version'] ? { emulatedVersion: values['emulated-version'] } : {}) });
      if (nodes)
        r.nodes = {
          groups: preflightNodeGroups({ kubernetesVersion, flavor, gates, kubelet }, nodes.groups),
          unread: nodes.unread,
          notReady: nodes.notReady,
        };
      process.stdout.write(output === 'json' ? `${JSON.stringify(r, null, 2)}\n` : output === 'yaml' ? stringify(r) : formatPreflight(r, output === 'wide'));
      return preflightStarts(r) ? 0 : 1;
    } catch (e) {
      if (e instanceof GateRulesError) throw new UsageError(e.message);
      throw e;
    }
  },
};

/** `--kubelet-config` and `--kubelet-gates` (preflight, preview): what the kubelet is judged with. */
export function kubeletFlags(values: Record<string, string | undefined>): KubeletStartInput {
  return {
    ...(values['kubelet-config'] !== undefined ? { configuration: kubeletConfigOrUsage(values['kubelet-config']) } : {}),
    ...(values['kubelet-gates'] !== undefined ? { route: choiceFlag<KubeletGateRoute>('--kubelet-gates', values['kubelet-gates'], ['flag', 'file']) } : {}),
  };
}

/** A bad configuration file is the caller's to fix (exit 2), never "the kubelet refuses" (exit 1). */
function kubeletConfigOrUsage(file: string) {
  try {
    return readKubeletConfigFile(file);
  } catch (e) {
    throw new UsageError(`--kubelet-config: ${(e as Error).message}`);
  }
}
