// `featuregates status`: the feature set, whether minor upgrades are allowed, and per-version counts.
import type { StatusSummary } from '../api-types/index.js';
import { connect, readStatus } from './cluster-read.js';
import { stringify } from 'yaml';
import { REQUEST_TIMEOUT_OPTION, outputFlag, requestTimeoutFlag, sayOnStderr, CLUSTER_SEARCH_HELP, type CommandSpec } from './args.js';

export function formatTable(s: StatusSummary): string {
  const lines = [
    `Feature set:  ${s.featureSet}`,
    `Upgradeable:  ${s.upgradeable.status}${s.upgradeable.reason ? ` (${s.upgradeable.reason})` : ''}${s.upgradeable.message && s.upgradeable.status !== 'True' ? ` — ${s.upgradeable.message}` : ''} [${s.upgradeable.source}]`,
  ];
  if (s.clusterVersion) lines.push(`Cluster:      desired ${s.clusterVersion.desired ?? '-'}, history ${s.clusterVersion.history.join(', ') || '-'}`);
  if (s.gatesThatStart) lines.push(`Starts:       ${gatesThatStartLine(s.gatesThatStart)}`);
  if (s.runningGates) lines.push(`Running:      ${runningGatesLine(s.runningGates)}`);
  lines.push('', `${'VERSION'.padEnd(24)} ${'ENABLED'.padStart(7)} ${'DISABLED'.padStart(8)}`);
  if (s.versions.length === 0) lines.push('(no status entries yet)');
  for (const v of s.versions) lines.push(`${v.version.padEnd(24)} ${String(v.enabled).padStart(7)} ${String(v.disabled).padStart(8)}`);
  return `${lines.join('\n')}\n`;
}

/** What kube-apiserver runs against the entry of the cluster's version, in one line (`featuregates verify` has the detail). */
export function runningGatesLine(r: NonNullable<StatusSummary['runningGates']>): string {
  if (r.verdict === 'unreadable') return `${r.component} could not be read — ${r.error} (featuregates verify)`;
  if (r.verdict === 'match' && r.checked === 0) return `${r.component} has none of ${r.version}'s gates (featuregates verify)`;
  if (r.verdict === 'match') return `${r.component} runs the ${r.checked} gate(s) of ${r.version}'s entry it has as the entry says (featuregates verify)`;
  const named = r.mismatches.slice(0, 5).join(', ') + (r.mismatches.length > 5 ? `, and ${r.mismatches.length - 5} more` : '');
  return `${r.component} runs ${r.mismatches.length} gate(s) other than ${r.version}'s entry says: ${named} (featuregates verify)`;
}

/** Would the components start with the entry of the version the cluster is going to, in one line (or more: each problem). */
export function gatesThatStartLine(g: NonNullable<StatusSummary['gatesThatStart']>): string {
  if ('unchecked' in g) return g.unchecked;
  const where = `${g.version}'s gates on Kubernetes ${g.kubernetesVersion} (${g.kubernetesSource})`;
  if (g.starts) return `yes — every component starts with ${where}`;
  return [`NO — ${g.refusedBy.join(', ')} would refuse ${where} (featuregates preflight --kubeconfig):`,
    ...g.problems.map((p) => `              ${p.gate} (${p.kind}): ${p.message}; ${p.fix}`)].join('\n');
}

/** `table` plus every version's gate names (kubectl's -o wide). */
export function formatWide(s: StatusSummary): string {
  const lines = [formatTable(s).trimEnd()];
  for (const v of s.versions) {
    lines.push('', `${v.version} enabled:  ${(v.enabledNames ?? []).join(', ') || '-'}`, `${v.version} disabled: ${(v.disabledNames ?? []).join(', ') || '-'}`);
  }
  return `${lines.join('\n')}\n`;
}

export const statusCommand: CommandSpec = {
  name: 'status',
  usage: 'featuregates status [--kubeconfig P] [--request-timeout D] [-o table|wide|json|yaml]',
  options: {
    kubeconfig: { type: 'string', help: `kubeconfig file (default: ${CLUSTER_SEARCH_HELP})` },
    output: { type: 'string', short: 'o', help: 'table (default), wide (with gate names), json or yaml' },
    'cluster-operator-name': { type: 'string', help: 'ClusterOperator to read Upgradeable from (default config-operator)' },
    'request-timeout': REQUEST_TIMEOUT_OPTION,
  },
  async run(values) {
    const output = outputFlag(values.output, ['table', 'wide', 'json', 'yaml']);
    const kc = await connect(values.kubeconfig, requestTimeoutFlag(values['request-timeout']), sayOnStderr);
    const s = await readStatus(kc, values['cluster-operator-name'], output !== 'table');
    process.stdout.write(output === 'json' ? `${JSON.stringify(s, null, 2)}\n` : output === 'yaml' ? stringify(s) : output === 'wide' ? formatWide(s) : formatTable(s));
    return 0;
  },
};
