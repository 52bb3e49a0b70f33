// `featuregates manifests`: which payload manifests the cluster-version operator would apply, skip or reject
// for one cluster, and why — by release.openshift.io/feature-gate (the gates of the status entry for --version),
// release.openshift.io/feature-set, release.openshift.io/major-version and the profile annotation, in
// library-go's manifest filter's words. The gates come from a cluster (--kubeconfig) or from a FeatureGate
// file resolved against payload FeatureGate manifests (--featuregate + --authoritative-feature-gate-dir).
import { basename } from 'node:path';
import { stringify } from 'yaml';
import {
  ClusterProfiles,
  gateNames,
  includeManifest,
  manifestObjectName,
  parsePayloadVersion,
  resolveFeatureSet,
  type ManifestDecision,
  type ManifestObject,
} from '../api-types/index.js';
import { connect, readFeatureGate } from './cluster-read.js';
import { readFeatureGateFile } from '../runtime/manifests/feature-gate-file.js';
import { loadRegistry, readPayloadManifests } from '../runtime/manifests/payload-manifests.js';
import {
  clusterProfileFlag, fullVersionFlag, outputFlag, REQUEST_TIMEOUT_OPTION, requestTimeoutFlag, sayOnStderr, UsageError, type CommandSpec,
} from './args.js';

export interface ManifestRow { file: string; object: string; decision: ManifestDecision['decision']; reason?: string; gates: string[] }
export interface ManifestReport {
  dir: string;
  version: string;
  profile: string;
  featureSet: string;
  gatesFrom: string;
  enabledGates: number;
  manifests: ManifestRow[];
}

const requirement = (gates: readonly string[]) => gates.map((g) => (g.startsWith('-') ? `${g.slice(1)} not enabled` : `${g} enabled`)).join(', ');

export function formatManifestReport(r: ManifestReport): string {
  const lines = [`Payload manifests ${r.dir} for version ${r.version} (profile ${r.profile}, feature set ${r.featureSet || 'Default'}; ` +
    `${r.enabledGates} gates enabled, from ${r.gatesFrom}):`];
  for (const m of r.manifests) {
    const why = m.reason ?? (m.gates.length ? `feature gate ${requirement(m.gates)}` : 'no feature-gate or feature-set requirement');
    lines.push(`  ${m.decision.padEnd(6)} ${m.file} (${m.object}): ${why}`);
  }
  return `${lines.join('\n')}\n`;
}

export const manifestsCommand: CommandSpec = {
  name: 'manifests',
  usage: 'featuregates manifests --payload-manifests DIR --version V (--kubeconfig P | --featuregate F --authoritative-feature-gate-dir D) [--cluster-profile P] [-o text|json|yaml]',
  options: {
    'payload-manifests': { type: 'string', help: 'folder of payload manifests to judge, as the CVO reads a release (required)' },
    version: { type: 'string', help: 'the payload version, X.Y.Z: its FeatureGate status entry gives the gates; its major, major-version (required)' },
    kubeconfig: { type: 'string', help: 'take the feature set and gates from this cluster\'s FeatureGate/cluster' },
    featuregate: { type: 'string', help: 'or from this FeatureGate file, resolved against --authoritative-feature-gate-dir' },
    'authoritative-feature-gate-dir': { type: 'string', help: 'payload FeatureGate manifests (with --featuregate)' },
    'cluster-profile': { type: 'string', help: 'self-managed-high-availability (default) or ibm-cloud-managed (alias Hypershift)' },
    output: { type: 'string', short: 'o', help: 'text (default), json or yaml' },
    'request-timeout': REQUEST_TIMEOUT_OPTION,
  },
  async run(values) {
    const dir = values['payload-manifests'];
    if (!dir) throw new UsageError('--payload-manifests is required');
    const version = fullVersionFlag(values.version, '--version');
    if (!version) throw new UsageError('--version is required');
    const fromFile = values.featuregate !== undefined;
    if (fromFile === (values.kubeconfig !== undefined)) throw new UsageError('give either --kubeconfig, or --featuregate with --authoritative-feature-gate-dir');
    if (fromFile && !values['authoritative-feature-gate-dir']) throw new UsageError('--featuregate needs --authoritative-feature-gate-dir');
    const profile = clusterProfileFlag(values['cluster-profile']) ?? ClusterProfiles.SelfManagedHighAvailability;
    const output = outputFlag(values.output, ['text', 'json', 'yaml']);
    let featureSet: string;
    let enabled: readonly string[];
    let gatesFrom: string;
    if (fromFile) {
      const fg = readFeatureGateFile(values.featuregate!);
      featureSet = fg.spec.featureSet ?? '';
      enabled = resolveFeatureSet(fg.spec, loadRegistry(values['authoritative-feature-gate-dir']!, { operatorVersion: version, clusterProfile: profile })).enabled;
      gatesFrom = `${values.featuregate} resolved against ${values['authoritative-feature-gate-dir']}`;
    } else {
      const kc = await connect(values.kubeconfig, requestTimeoutFlag(values['request-timeout']), sayOnStderr);
      const fg = await readFeatureGate(kc);
      featureSet = fg.spec.featureSet ?? '';
      const entry = fg.status?.featureGates.find((e) => e.version === version);
      // As the CVO: no entry for its version means no gate is enabled.
      enabled = entry ? gateNames(entry).enabled : [];
      gatesFrom = `${kc.getCurrentCluster()?.server}'s status entry for ${version}${entry ? '' : ' (none: no gate counts as enabled, as in the CVO)'}`;
    }
    const cluster = { profile, featureSet, enabledGates: new Set(enabled), major: parsePayloadVersion(version).major };
    const manifests = readPayloadManifests(dir).map(({ source, object }): ManifestRow => {
      const o = object as ManifestObject;
      const d = includeManifest(o, cluster);
      return { file: basename(source), object: manifestObjectName(o),
        decision: d.decision, ...('reason' in d ? { reason: d.reason } : {}), gates: d.gates };
    });
    const report: ManifestReport = { dir, version, profile, featureSet, gatesFrom, enabledGates: enabled.length, manifests };
    process.stdout.write(output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : output === 'yaml' ? stringify(report) : formatManifestReport(report));
    return manifests.some((m) => m.decision === 'reject') ? 1 : 0;
  },
};
