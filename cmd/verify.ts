// `featuregates verify`: do the running components have the gates their FeatureGate says? Desired: the
// FeatureGate status entry of the version the cluster runs (ClusterVersion status.desired.version, or
// --version). Running: kube-apiserver's own report of its gates (/metrics, /version, /flagz through the
// kubeconfig). Exit 0 when every gate matches (or differs only as a declared --override says), 1 when one
// mismatches or a component cannot be read, 2 on usage errors or when the desired gates cannot be read.
import { stringify } from 'yaml';
import {
  CLUSTER_VERSION_NAME, clusterDesiredVersion, desiredGates, verifyPasses, type VerifyReport,
} from '../api-types/index.js';
import {
  ClusterVersionResource, ResourceClient, checkKubeAPIServer, connect, isNotFound, kubernetesGateLifecycle, readFeatureGate,
} from '../runtime/index.js';
import { REQUEST_TIMEOUT_OPTION, outputFlag, requestTimeoutFlag, sayOnStderr, UsageError, CLUSTER_SEARCH_HELP, type CommandSpec } from './args.js';

/** `A=false,B=true` → the declared overrides (a usage error names a malformed one). */
export function overridesFlag(v: string | undefined): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const pair of (v ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([A-Za-z0-9]+)=(true|false)$/.exec(pair);
    if (!m) throw new UsageError(`--override: expected GATE=true|false, got ${JSON.stringify(pair)}`);
    out.set(m[1]!, m[2] === 'true');
  }
  return out;
}

const running = (v: boolean | null) => (v === null ? '-' : v ? 'on' : 'off');

/** Per component one summary line; then every gate that is not a match (all of them with `wide`). */
export function formatVerify(r: VerifyReport, wide: boolean): string {
  const lines = [`Desired: FeatureGate/cluster status for ${r.version}`];
  for (const c of r.components) {
    if (c.error) {
      lines.push('', `${c.name} (${c.url}): ${c.error}`);
      continue;
    }
    const counts = new Map<string, number>();
    for (const g of c.gates) counts.set(g.verdict, (counts.get(g.verdict) ?? 0) + 1);
    lines.push('', `${c.name} (${c.url}${c.emulatedVersion ? `, emulated ${c.emulatedVersion}` : ''}): ` +
      [...counts].map(([v, n]) => `${n} ${v}`).join(', '));
    const shown = c.gates.filter((g) => wide || g.verdict === 'mismatch' || g.verdict === 'overridden');
    if (shown.length === 0) continue;
    const w = Math.max(4, ...shown.map((g) => g.name.length));
    lines.push(`  ${'GATE'.padEnd(w)} DESIRED RUNNING ${'VERDICT'.padEnd(23)} TOLD`);
    for (const g of shown) {
      const told = g.requested === undefined ? '' : g.requested === null ? 'not told' : `told ${running(g.requested)}`;
      lines.push(`  ${g.name.padEnd(w)} ${running(g.desired).padEnd(7)} ${running(g.running).padEnd(7)} ${g.verdict.padEnd(23)} ${told}`.trimEnd());
    }
  }
  lines.push('', verifyPasses(r) ? 'Every gate the component has runs as desired.' : 'Some gates do not run as desired (exit 1).');
  return `${lines.join('\n')}\n`;
}

export const verifyCommand: CommandSpec = {
  name: 'verify',
  errorExitCode: 2,
  usage: 'featuregates verify [--kubeconfig P] [--version V] [--override GATE=true|false[,…]] [--request-timeout D] [-o table|wide|json|yaml]',
  options: {
    kubeconfig: { type: 'string', help: `kubeconfig file (default: ${CLUSTER_SEARCH_HELP})` },
    version: { type: 'string', help: 'the status entry to check against (default: ClusterVersion status.desired.version)' },
    override: { type: 'string', help: 'known, deliberate differences (HyperShift forces OpenShiftPodSecurityAdmission=false): reported as overridden, not mismatch' },
    output: { type: 'string', short: 'o', help: 'table (default: summaries and differences), wide (every gate), json or yaml' },
    'request-timeout': REQUEST_TIMEOUT_OPTION,
  },
  async run(values) {
    const output = outputFlag(values.output, ['table', 'wide', 'json', 'yaml']);
    const overrides = overridesFlag(values.override);
    const kc = await connect(values.kubeconfig, requestTimeoutFlag(values['request-timeout']), sayOnStderr);
    const fg = await readFeatureGate(kc);
    let version = values.version;
    if (!version) {
      const cv = await new ResourceClient(kc, ClusterVersionResource).get(CLUSTER_VERSION_NAME).catch((e: unknown) => {
        if (isNotFound(e)) return undefined;
        throw e;
      });
      version = clusterDesiredVersion(cv);
      if (!version) throw new Error('ClusterVersion/version names no desired version: pass --version');
    }
    const entry = fg.status?.featureGates.find((e) => e.version === version);
    if (!entry) {
      throw new Error(`FeatureGate/cluster status has no entry for ${version} (entries: ${fg.status?.featureGates.map((e) => e.version).join(', ') || 'none'})`);
    }
    const component = await checkKubeAPIServer(kc, desiredGates(entry), { lifecycle: kubernetesGateLifecycle(), overrides });
    const report: VerifyReport = { version, components: [component] };
    process.stdout.write(output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : output === 'yaml' ? stringify(report) : formatVerify(report, output === 'wide'));
    return verifyPasses(report) ? 0 : 1;
  },
};
