// `featuregates verify`: do the running components have the gates their FeatureGate says? Desired: the
// FeatureGate status entry of the version the cluster runs (ClusterVersion status.desired.version, or
// --version), or — for standalone and bootstrap — the entry rendered from payload manifests (render inputs, as
// `featuregates render` takes them). Running: kube-apiserver's own report of its gates (/metrics, /version, /flagz through the
// kubeconfig), each --component's, and every node's kubelet (through the API server's node proxy, grouped); etcd's own gates (not in any
// FeatureGate) are reported, and judged only
// against what --etcd-feature-gates declares. Exit 0 when every gate matches (or differs only as a declared --override says), 1 when one
// mismatches or a component cannot be read, 2 on usage errors or when the desired gates cannot be read.
import { stringify } from 'yaml';
import {
  CLUSTER_VERSION_NAME,
  ETCD_COMPONENT,
  NOT_READY,
  clusterDesiredVersion,
  desiredGates,
  kubeletsSummary,
  verifyPasses,
  type FeatureGateDetails,
  type GateCheck,
  type GateLifecycle,
  type VerifyReport,
} from '../api-types/index.js';
import { renderedStatusEntry } from '../runtime/manifests/payload-manifests.js';
import { readFeatureGateFile } from '../runtime/manifests/feature-gate-file.js';
import { ClusterVersionResource, KubeTransport, ResourceClient, checkComponent, checkEtcd, checkKubelets, componentAccess, etcdAccess, kubernetesGateLifecycle, type ClusterAccess } from '../runtime/index.js';
import { connect, readFeatureGate } from './cluster-read.js';
import {
  REQUEST_TIMEOUT_OPTION,
  choiceFlag,
  clusterProfileFlag,
  componentCA,
  componentsFlag,
  overridesFlag,
  outputFlag,
  pemFile,
  payloadVersionFlag,
  requestTimeoutFlag,
  sayOnStderr,
  UsageError,
  CLUSTER_SEARCH_HELP,
  type CommandSpec,
} from './args.js';

const running = (v: boolean | null) => (v === null ? '-' : v ? 'on' : 'off');

/** The gates that are not a match (all of them with `wide`), as a table; nothing when there are none. */
function gateTable(gates: readonly GateCheck[], wide: boolean): string[] {
  const shown = gates.filter((g) => wide || g.verdict === 'mismatch' || g.verdict === 'overridden');
  if (shown.length === 0) return [];
  const w = Math.max(4, ...shown.map((g) => g.name.length));
  return [`  ${'GATE'.padEnd(w)} DESIRED RUNNING ${'VERDICT'.padEnd(23)} TOLD`, ...shown.map((g) => {
    const told = g.requested === undefined ? '' : g.requested === null ? 'not told' : `told ${running(g.requested)}`;
    return `  ${g.name.padEnd(w)} ${running(g.desired).padEnd(7)} ${running(g.running).padEnd(7)} ${g.verdict.padEnd(23)} ${told}`.trimEnd();
  })];
}

/** Per component one summary line; then every gate that is not a match (all of them with `wide`); then the nodes' kubelets, grouped. */
export function formatVerify(r: VerifyReport, wide: boolean): string {
  const lines = [`Desired: FeatureGate/cluster status for ${r.version}`];
  for (const c of r.components) {
    if (c.error) {
      lines.push('', `${c.name} (${c.url}): ${c.error}`);
      continue;
    }
    const counts = new Map<string, number>();
    for (const g of c.gates) counts.set(g.verdict, (counts.get(g.verdict) ?? 0) + 1);
    const reported = c.reported ? `reports ${c.reported.length} gates of its own, on: ${c.reported.filter((g) => g.enabled).map((g) => g.name).join(', ') || 'none'}` : '';
    lines.push('', `${c.name} (${c.url}${c.emulatedVersion ? `, emulated ${c.emulatedVersion}` : ''}): ` +
      [[...counts].map(([v, n]) => `${n} ${v}`).join(', '), reported].filter(Boolean).join('; '));
    lines.push(...gateTable(c.gates, wide));
  }
  if (r.kubelets) {
    lines.push('', `kubelets (${r.kubelets.nodes} node${r.kubelets.nodes === 1 ? '' : 's'}): ${kubeletsSummary(r.kubelets)}`);
    for (const g of r.kubelets.groups) {
      const table = gateTable(g.gates, wide);
      const why = g.error && g.error !== NOT_READY ? [`  ${g.error}`] : [];
      if (table.length || why.length) lines.push(`  ${g.nodes.join(', ')}:`, ...why.map((l) => `  ${l}`), ...table.map((l) => `  ${l}`));
    }
  }
  lines.push('', verifyPasses(r) ? 'Every gate each component has runs as desired.' : 'Some gates do not run as desired (exit 1).');
  return `${lines.join('\n')}\n`;
}

/** The desired entry rendered from payload manifests (as `featuregates render` renders it). */
function renderedEntry(dir: string, values: Record<string, string | undefined>): { version: string; entry: FeatureGateDetails } {
  const version = payloadVersionFlag(values['payload-version'], '--payload-version');
  if (!version) throw new UsageError('--payload-version is required with --authoritative-feature-gate-dir');
  const clusterProfile = clusterProfileFlag(values['cluster-profile']);
  const featureGate = values.featuregate ? readFeatureGateFile(values.featuregate) : undefined;
  return {
    version,
    entry: renderedStatusEntry(dir, version, { ...(featureGate ? { featureGate } : {}), ...(clusterProfile ? { clusterProfile } : {}) }),
  };
}

/** The cluster's FeatureGate status entry of `version` (default: the version ClusterVersion desires). */
async function clusterEntry(kc: ClusterAccess, wanted: string | undefined): Promise<{ version: string; entry: FeatureGateDetails }> {
  const fg = await readFeatureGate(kc);
  let version = wanted;
  if (!version) {
    const cv = await new ResourceClient(kc, ClusterVersionResource).find(CLUSTER_VERSION_NAME);
    version = clusterDesiredVersion(cv);
    if (!version) throw new Error('ClusterVersion/version names no desired version: pass --version');
  }
  const entry = fg.status?.featureGates.find((e) => e.version === version);
  if (!entry) {
    throw new Error(`FeatureGate/cluster status has no entry for ${version} (entries: ${fg.status?.featureGates.map((e) => e.version).join(', ') || 'none'})`);
  }
  return { version, entry };
}

const ETCD_FLAGS = ['etcd-cafile', 'etcd-certfile', 'etcd-keyfile', 'etcd-feature-gates'] as const;

/** etcd's client TLS and the declared expectation of its gates, from the --etcd-* flags. */
function etcdFlags(values: Record<string, string | undefined>) {
  const [ca, cert, key] = [values['etcd-cafile'], values['etcd-certfile'], values['etcd-keyfile']];
  if ((cert === undefined) !== (key === undefined)) throw new UsageError('--etcd-certfile and --etcd-keyfile go together');
  return {
    tls: {
      ...(ca !== undefined ? { ca: pemFile(ca, '--etcd-cafile', 'CERTIFICATE') } : {}),
      ...(cert !== undefined ? { cert: pemFile(cert, '--etcd-certfile', 'CERTIFICATE') } : {}),
      ...(key !== undefined ? { key: pemFile(key, '--etcd-keyfile', 'PRIVATE KEY') } : {}),
    },
    expected: overridesFlag(values['etcd-feature-gates'], '--etcd-feature-gates'),
  };
}

export const verifyCommand: CommandSpec = {
  name: 'verify',
  errorExitCode: 2,
  usage: 'featuregates verify [--kubeconfig P] [--version V | --authoritative-feature-gate-dir D --payload-version V [--featuregate F] [--cluster-profile P]] ' +
    '[--component NAME=URL]… [--component-ca-file F] [--etcd-cafile F --etcd-certfile F --etcd-keyfile F] [--etcd-feature-gates G=B,…] [--override GATE=true|false[,…]] ' +
    '[--kubelets all|none] [--request-timeout D] [-o table|wide|json|yaml]',
  options: {
    kubeconfig: { type: 'string', help: `kubeconfig file (default: ${CLUSTER_SEARCH_HELP})` },
    version: { type: 'string', help: 'the status entry to check against (default: ClusterVersion status.desired.version)' },
    'authoritative-feature-gate-dir': { type: 'string', help: 'render the desired gates from these payload manifests instead of reading the cluster\'s FeatureGate (standalone, bootstrap)' },
    'payload-version': { type: 'string', help: 'with --authoritative-feature-gate-dir: the version to render (required)' },
    featuregate: { type: 'string', help: 'with --authoritative-feature-gate-dir: the FeatureGate manifest to render (default: an empty spec)' },
    'cluster-profile': { type: 'string', help: 'with --authoritative-feature-gate-dir: self-managed-high-availability (default) or ibm-cloud-managed (alias Hypershift)' },
    component: { type: 'string', multiple: true, help: 'also check this component at its secure port (kube-controller-manager=https://HOST:10257, kube-scheduler=https://HOST:10259), with the kubeconfig\'s credentials; etcd=https://HOST:2379 reads etcd\'s own gates with --etcd-certfile\'s certificate instead' },
    'component-ca-file': { type: 'string', help: 'PEM bundle of the CAs of the components\' serving certificates (default: the kubeconfig\'s CA)' },
    'etcd-cafile': { type: 'string', help: 'with --component etcd=URL: PEM bundle of the CAs of etcd\'s serving certificate (default: the system\'s)' },
    'etcd-certfile': { type: 'string', help: 'with --component etcd=URL: client certificate (PEM) for etcd, as kube-apiserver\'s --etcd-certfile' },
    'etcd-keyfile': { type: 'string', help: 'its private key (PEM)' },
    'etcd-feature-gates': { type: 'string', help: 'with --component etcd=URL: what etcd\'s --feature-gates says, GATE=true|false[,…]: each judged match or mismatch (without it etcd\'s gates are reported, not judged: no FeatureGate names them)' },
    kubelets: { type: 'string', help: 'all (default): every node\'s kubelet through the API server\'s node proxy (list nodes, get nodes/proxy), grouped by what they report; none: no kubelet' },
    override: { type: 'string', help: 'known, deliberate differences (HyperShift forces OpenShiftPodSecurityAdmission=false): reported as overridden, not mismatch' },
    output: { type: 'string', short: 'o', help: 'table (default: summaries and differences), wide (every gate), json or yaml' },
    'request-timeout': REQUEST_TIMEOUT_OPTION,
  },
  async run(values, _flags, _positionals, lists) {
    const output = outputFlag(values.output, ['table', 'wide', 'json', 'yaml']);
    const kubeletsFlag = choiceFlag('--kubelets', values.kubelets ?? 'all', ['all', 'none']);
    const overrides = overridesFlag(values.override);
    const components = componentsFlag(lists.component ?? [], '--component', { etcd: true });
    const etcdURL = components.get(ETCD_COMPONENT);
    components.delete(ETCD_COMPONENT);
    const etcd = etcdURL !== undefined ? etcdFlags(values) : undefined;
    if (etcdURL === undefined) {
      for (const flag of ETCD_FLAGS) if (values[flag] !== undefined) throw new UsageError(`--${flag} goes with --component etcd=URL`);
    }
    const caFile = values['component-ca-file'];
    if (caFile && components.size === 0) throw new UsageError('--component-ca-file goes with --component (of a Kubernetes component; etcd takes --etcd-cafile)');
    const ca = caFile ? componentCA(caFile) : undefined;
    const dir = values['authoritative-feature-gate-dir'];
    for (const flag of ['payload-version', 'featuregate', 'cluster-profile'] as const) {
      if (values[flag] !== undefined && !dir) throw new UsageError(`--${flag} goes with --authoritative-feature-gate-dir (render inputs)`);
    }
    if (dir && values.version) throw new UsageError('--version reads the cluster\'s FeatureGate; with render inputs use --payload-version');
    const kc = await connect(values.kubeconfig, requestTimeoutFlag(values['request-timeout']), sayOnStderr);
    const { version, entry } = dir ? renderedEntry(dir, values) : await clusterEntry(kc, values.version);
    const desired = desiredGates(entry);
    let lifecycle: GateLifecycle | undefined;
    const timeoutMs = KubeTransport.for(kc).defaultTimeoutMs;
    const checks = [
      ['kube-apiserver', kc] as const,
      ...[...components].map(([name, url]) => [name, componentAccess(kc, url, ca)] as const),
    ].map(([name, access]) =>
      checkComponent(access, name, desired, { lifecycle: () => (lifecycle ??= kubernetesGateLifecycle()), overrides, timeoutMs }),
    );
    if (etcd) checks.push(checkEtcd(etcdAccess(etcdURL!, etcd.tls), etcd.expected, timeoutMs));
    const kubelets = kubeletsFlag === 'all' ? checkKubelets(kc, desired, { lifecycle: () => (lifecycle ??= kubernetesGateLifecycle()), timeoutMs }) : undefined;
    const report: VerifyReport = { version, components: await Promise.all(checks), ...(kubelets ? { kubelets: await kubelets } : {}) };
    process.stdout.write(output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : output === 'yaml' ? stringify(report) : formatVerify(report, output === 'wide'));
    return verifyPasses(report) ? 0 : 1;
  },
};
