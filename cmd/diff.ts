// `featuregates diff`: what flips between two payloads (--from DIR --to DIR) or two versions in a cluster's
// status (--from-version --to-version), for one feature set. Exit 0 without differences, 1 with (as
// diff(1), for CI), 2 on usage errors.
import { stringify } from 'yaml';
import { diffGates, diffIsEmpty, FeatureSets, featureSetName, resolveFeatureSet, statusLists, type EnabledDisabled, type GateDiff } from '../api-types/index.js';
import { loadRegistry } from '../runtime/manifests/payload-manifests.js';
import { connect, readFeatureGate } from './cluster-read.js';
import { REQUEST_TIMEOUT_OPTION, clusterProfileFlag, outputFlag, payloadVersionFlag, requestTimeoutFlag, sayOnStderr, UsageError, CLUSTER_SEARCH_HELP, type CommandSpec } from './args.js';

export function formatDiff(d: GateDiff, from: string, to: string): string {
  if (diffIsEmpty(d)) return `no differences between ${from} and ${to}\n`;
  const rows: [string, string, string][] = [
    ...d.added.map((g) => ['added', g.name, g.state] as [string, string, string]),
    ...d.removed.map((g) => ['removed', g.name, `was ${g.state}`] as [string, string, string]),
    ...d.enabledToDisabled.map((n) => ['enabled→disabled', n, ''] as [string, string, string]),
    ...d.disabledToEnabled.map((n) => ['disabled→enabled', n, ''] as [string, string, string]),
  ];
  const w = Math.max(4, ...rows.map((r) => r[1].length));
  return [`${from} → ${to}`, `${'CHANGE'.padEnd(17)} ${'GATE'.padEnd(w)} STATE`, ...rows.map(([c, n, s]) => `${c.padEnd(17)} ${n.padEnd(w)} ${s}`.trimEnd()), ''].join('\n');
}

export const diffCommand: CommandSpec = {
  name: 'diff',
  errorExitCode: 2,
  usage: 'featuregates diff (--from DIR --to DIR [--from-version V --to-version V] | --from-version V --to-version V [--kubeconfig P]) [--feature-set S] [-o table|json|yaml]',
  options: {
    from: { type: 'string', help: 'the older payload\'s FeatureGate manifests' },
    to: { type: 'string', help: 'the newer payload\'s FeatureGate manifests' },
    'from-version': { type: 'string', help: 'with --from: that payload\'s version (default 4.0.0; selects manifests by major); without: a version in the cluster\'s status' },
    'to-version': { type: 'string', help: 'with --to: that payload\'s version (default: --from-version); without: a version in the cluster\'s status' },
    'feature-set': { type: 'string', help: 'payloads: compare this feature set (default: Default); cluster: informational' },
    'cluster-profile': { type: 'string', help: 'payloads: self-managed-high-availability (default) or ibm-cloud-managed' },
    kubeconfig: { type: 'string', help: `compare two versions of this cluster's FeatureGate/cluster status (default ${CLUSTER_SEARCH_HELP})` },
    output: { type: 'string', short: 'o', help: 'table (default), json or yaml' },
    'request-timeout': REQUEST_TIMEOUT_OPTION,
  },
  async run(values) {
    const output = outputFlag(values.output, ['table', 'json', 'yaml']);
    let from: EnabledDisabled;
    let to: EnabledDisabled;
    let fromName: string;
    let toName: string;
    if (values.from || values.to) {
      if (!values.from || !values.to) throw new UsageError('--from and --to go together');
      if (values.kubeconfig) throw new UsageError('--kubeconfig compares status versions; it does not go with --from/--to');
      const fromVersion = payloadVersionFlag(values['from-version'], '--from-version') ?? '4.0.0';
      const toVersion = payloadVersionFlag(values['to-version'], '--to-version') ?? fromVersion;
      const profile = clusterProfileFlag(values['cluster-profile']);
      // "Default" is how people say it; the API's Default feature set is "".
      const set = values['feature-set'] === 'Default' ? FeatureSets.Default : values['feature-set'] ?? FeatureSets.Default;
      const resolve = (dir: string, version: string) => resolveFeatureSet({ featureSet: set },
        loadRegistry(dir, { operatorVersion: version, ...(profile ? { clusterProfile: profile } : {}) }));
      from = resolve(values.from, fromVersion);
      to = resolve(values.to, toVersion);
      fromName = `${values.from} (${featureSetName(set)})`;
      toName = `${values.to} (${featureSetName(set)})`;
    } else {
      const fv = values['from-version'];
      const tv = values['to-version'];
      if (!fv || !tv) throw new UsageError('give --from DIR --to DIR (payloads), or --from-version and --to-version (a cluster\'s status)');
      const fg = await readFeatureGate(await connect(values.kubeconfig, requestTimeoutFlag(values['request-timeout']), sayOnStderr));
      from = statusLists(fg, fv);
      to = statusLists(fg, tv);
      fromName = fv;
      toName = tv;
    }
    const d = diffGates(from, to);
    process.stdout.write(output === 'json' ? `${JSON.stringify(d, null, 2)}\n` : output === 'yaml' ? stringify(d) : formatDiff(d, fromName, toName));
    return diffIsEmpty(d) ? 0 : 1;
  },
};
