// `featuregates status`: the feature set, whether minor upgrades are allowed, and per-version counts.
import {
  CLUSTER_VERSION_NAME, featureGatesUpgradeable, featureSetName, type ClusterOperator, type FeatureGate,
} from '../api-types/index.js';
import { ClusterOperatorResource, ClusterVersionResource, ResourceClient, isNotFound, type ClusterAccess } from '../runtime/index.js';
import { stringify } from 'yaml';
import { REQUEST_TIMEOUT_OPTION, outputFlag, type CommandSpec } from './args.js';
import { connect, readFeatureGate } from './cluster-read.js';

export interface StatusSummary {
  featureSet: string;
  upgradeable: { status: string; reason: string; message: string; source: string };
  clusterVersion: { desired: string | undefined; history: string[] } | undefined;
  versions: { version: string; enabled: number; disabled: number; enabledNames?: string[]; disabledNames?: string[] }[];
}

export function summarize(fg: FeatureGate, co: ClusterOperator | undefined, cvHistory: string[] | undefined, desired?: string, withNames = false): StatusSummary {
  const coCond = co?.status?.conditions?.find((c) => c.type === 'Upgradeable');
  const own = featureGatesUpgradeable(fg.spec.featureSet);
  return {
    featureSet: featureSetName(fg.spec.featureSet ?? ''),
    upgradeable: coCond
      ? { status: coCond.status, reason: coCond.reason ?? '', message: coCond.message ?? '', source: `clusteroperator/${co?.metadata.name}` }
      : { status: own.status, reason: own.reason, message: own.message, source: 'computed from spec' },
    clusterVersion: cvHistory ? { desired, history: cvHistory } : undefined,
    versions: (fg.status?.featureGates ?? []).map((e) => ({
      version: e.version, enabled: e.enabled.length, disabled: e.disabled.length,
      ...(withNames ? { enabledNames: e.enabled.map((g) => g.name), disabledNames: e.disabled.map((g) => g.name) } : {}),
    })),
  };
}

export function formatTable(s: StatusSummary): string {
  const lines = [
    `Feature set:  ${s.featureSet}`,
    `Upgradeable:  ${s.upgradeable.status}${s.upgradeable.reason ? ` (${s.upgradeable.reason})` : ''}${s.upgradeable.message && s.upgradeable.status !== 'True' ? ` — ${s.upgradeable.message}` : ''}`,
  ];
  if (s.clusterVersion) lines.push(`Cluster:      desired ${s.clusterVersion.desired ?? '-'}, history ${s.clusterVersion.history.join(', ') || '-'}`);
  lines.push('', `${'VERSION'.padEnd(24)} ${'ENABLED'.padStart(7)} ${'DISABLED'.padStart(8)}`);
  if (s.versions.length === 0) lines.push('(no status entries yet)');
  for (const v of s.versions) lines.push(`${v.version.padEnd(24)} ${String(v.enabled).padStart(7)} ${String(v.disabled).padStart(8)}`);
  return `${lines.join('\n')}\n`;
}

/** `table` plus every version's gate names (kubectl's -o wide). */
export function formatWide(s: StatusSummary): string {
  const lines = [formatTable(s).trimEnd()];
  for (const v of s.versions) {
    lines.push('', `${v.version} enabled:  ${(v.enabledNames ?? []).join(', ') || '-'}`, `${v.version} disabled: ${(v.disabledNames ?? []).join(', ') || '-'}`);
  }
  return `${lines.join('\n')}\n`;
}

export async function readStatus(kc: ClusterAccess, clusterOperatorName = 'config-operator', withNames = false): Promise<StatusSummary> {
  const fg = await readFeatureGate(kc);
  const optional = async <T>(p: Promise<T>) => p.catch((e: unknown) => { if (isNotFound(e)) return undefined; throw e; });
  const co = await optional(new ResourceClient(kc, ClusterOperatorResource).get(clusterOperatorName));
  const cv = await optional(new ResourceClient(kc, ClusterVersionResource).get(CLUSTER_VERSION_NAME));
  return summarize(fg, co, cv?.status?.history.map((h) => `${h.version}${h.state === 'Partial' ? ' (Partial)' : ''}`), cv?.status?.desired?.version, withNames);
}

export const statusCommand: CommandSpec = {
  name: 'status',
  summary: 'show the feature set, whether upgrades are allowed, and the gates per version',
  usage: 'featuregates status [--kubeconfig P] [--request-timeout D] [-o table|wide|json|yaml]',
  options: {
    kubeconfig: { type: 'string', help: 'kubeconfig file (default: $KUBECONFIG, then in-cluster)' },
    output: { type: 'string', short: 'o', help: 'table (default), wide (with gate names), json or yaml' },
    'cluster-operator-name': { type: 'string', help: 'ClusterOperator to read Upgradeable from (default config-operator)' },
    'request-timeout': REQUEST_TIMEOUT_OPTION,
  },
  async run(values) {
    const output = outputFlag(values.output, ['table', 'wide', 'json', 'yaml']);
    const kc = await connect(values.kubeconfig, values['request-timeout']);
    const s = await readStatus(kc, values['cluster-operator-name'], output !== 'table');
    process.stdout.write(output === 'json' ? `${JSON.stringify(s, null, 2)}\n` : output === 'yaml' ? stringify(s) : output === 'wide' ? formatWide(s) : formatTable(s));
    return 0;
  },
};
