// `featuregates explain GATE`: why a gate is on or off — in each feature set and cluster profile of a payload
// (and which manifest decided it), in each version of a cluster's status, and whether the spec forces it.
import { basename } from 'node:path';
import { stringify } from 'yaml';
import {
  BrokenPayloadError,
  GateRulesError,
  gateSpecAt,
  kubeletConfigRules,
  kubernetesGateRules,
  knownKubernetesOfOpenShift,
  ALL_CLUSTER_PROFILES,
  featureGateRequirements,
  MAJOR_VERSION_ANNOTATION,
  manifestObjectName,
  type ManifestObject,
  majorVersionDisagreement,
  parsePayloadVersion,
  closestName,
  featureSetName,
  gateNames,
  gateState,
  knownGates,
  type FeatureGate,
  type GateState,
} from '../api-types/index.js';
import { loadRegistry, readPayloadManifests } from '../runtime/manifests/payload-manifests.js';
import { connect, readFeatureGate } from './cluster-read.js';
import { REQUEST_TIMEOUT_OPTION, outputFlag, payloadVersionFlag, requestTimeoutFlag, sayOnStderr, UsageError, CLUSTER_SEARCH_HELP, type CommandSpec } from './args.js';

export interface Explanation {
  gate: string;
  payload?: {
    dir: string; version: string;
    /** Files whose major-version annotation the cluster-version operator's filter reads differently. */
    notes?: string[];
    profiles: { profile: string; error?: string; featureSets: { featureSet: string; state: GateState | 'absent'; decidedBy: string }[] }[];
  };
  /** Payload manifests the gate decides (release.openshift.io/feature-gate), each needing it on or (`-GATE`) off. */
  manifests?: { dir: string; decides: { file: string; object: string; needs: 'enabled' | 'disabled'; requirement: string }[] };
  cluster?: {
    server: string; featureSet: string;
    spec: 'forces enabled' | 'forces disabled' | 'not named';
    versions: { version: string; state: GateState | 'absent' }[];
  };
  /** The gate in Kubernetes' own rules at the cluster's Kubernetes minor, when it is a Kubernetes gate and the minor is known. */
  kubernetes?: {
    version: string; stage: string; default: boolean; locked: boolean; dependsOn: string[]; neededBy: string[];
    /** The kubelet's configuration checks of this gate: the field(s), whether the gate must be on or off for them, the kubelet's words. */
    kubeletConfiguration: { fields: string; refusedWhen: 'on' | 'off'; message: string }[];
    /** Fields the kubelet's defaulting sets only while the gate is on. */
    kubeletDefaults: { field: string }[];
  };
  known: boolean;
  suggestion?: string;
}

/** The Kubernetes side of a gate (undefined: not a Kubernetes gate there). */
function explainKubernetes(gate: string, kubernetesVersion: string): Explanation['kubernetes'] {
  const rules = kubernetesGateRules(kubernetesVersion);
  const kubelet = kubeletConfigRules(kubernetesVersion);
  const minor = rules.kubernetesVersion.split('.').slice(0, 2).join('.');
  const spec = gateSpecAt(rules, gate, minor);
  if (!spec) return undefined;
  return {
    version: rules.kubernetesVersion,
    stage: spec.preRelease,
    default: spec.default,
    locked: spec.lockToDefault,
    dependsOn: [...(rules.dependencies[gate] ?? [])],
    neededBy: Object.keys(rules.dependencies)
      .filter((g) => rules.dependencies[g]!.includes(gate))
      .sort(),
    kubeletConfiguration: kubelet.requires
      .filter((r) => r.gate === gate)
      .map((r) => ({
        fields: [...new Set(r.when.flatMap((w) => ('any' in w ? w.any.map((t) => t.field) : [w.field])))].join(', '),
        refusedWhen: r.enabled ? 'on' : 'off',
        message: r.message,
      })),
    kubeletDefaults: kubelet.defaults.filter((d) => d.gate === gate).map((d) => ({ field: d.field })),
  };
}

function explainCluster(fg: FeatureGate, gate: string): NonNullable<Explanation['cluster']> & { names: string[] } {
  const custom = fg.spec.customNoUpgrade;
  const names = new Set<string>();
  const versions = (fg.status?.featureGates ?? []).map((e) => {
    for (const g of [...e.enabled, ...e.disabled]) names.add(g.name);
    return { version: e.version, state: gateState(gateNames(e), gate) ?? 'absent' as const };
  });
  const spec = fg.spec.featureSet === 'CustomNoUpgrade' && custom?.enabled?.includes(gate) ? 'forces enabled' as const
    : fg.spec.featureSet === 'CustomNoUpgrade' && custom?.disabled?.includes(gate) ? 'forces disabled' as const : 'not named' as const;
  return { server: '', featureSet: fg.spec.featureSet ?? '', spec, versions, names: [...names] };
}

export function formatExplanation(x: Explanation): string {
  const lines = [`Gate ${x.gate}`];
  if (!x.known) lines.push(`not known to ${x.payload && x.cluster ? 'the payload or the cluster' : x.payload ? 'the payload' : 'the cluster'}${x.suggestion ? ` (did you mean ${JSON.stringify(x.suggestion)}?)` : ''}`);
  if (x.payload) {
    lines.push('', `Payload ${x.payload.dir} (version ${x.payload.version}):`, `  ${'PROFILE'.padEnd(32)} ${'FEATURE SET'.padEnd(22)} ${'STATE'.padEnd(9)} DECIDED BY`);
    for (const p of x.payload.profiles) {
      if (p.error) lines.push(`  ${p.profile.padEnd(32)} ${p.error.startsWith('featuregates not located') ? '(no manifests for this profile and major version)' : `(${p.error.split('\n')[0]})`}`);
      for (const f of p.featureSets) lines.push(`  ${p.profile.padEnd(32)} ${featureSetName(f.featureSet).padEnd(22)} ${f.state.padEnd(9)} ${basename(f.decidedBy)}`);
    }
    for (const n of x.payload.notes ?? []) lines.push(`  note: ${n}`);
  }
  if (x.manifests) {
    lines.push('', `Payload manifests ${x.manifests.dir} this gate decides (release.openshift.io/feature-gate):`);
    if (x.manifests.decides.length === 0) lines.push('  (none)');
    for (const m of x.manifests.decides) lines.push(`  ${m.file} (${m.object}): applied only while ${x.gate} is ${m.needs} (requires "${m.requirement}")`);
  }
  if (x.kubernetes) {
    const k = x.kubernetes;
    lines.push('', `Kubernetes ${k.version}: ${k.stage}, ${k.default ? 'on' : 'off'} by default${k.locked ? `, locked: setting it ${k.default ? 'false' : 'true'} stops every component` : ''}`);
    if (k.dependsOn.length) lines.push(`  needs ${k.dependsOn.join(', ')} on (a component with it on and one of those off does not start)`);
    if (k.neededBy.length) lines.push(`  needed by ${k.neededBy.join(', ')} (turning it off while one of them is on stops the components)`);
    for (const c of k.kubeletConfiguration) lines.push(`  while it is ${c.refusedWhen}, the kubelet checks its configuration's ${c.fields}: "${c.message}"`);
    for (const d of k.kubeletDefaults) {
      lines.push(`  the kubelet's defaults set ${d.field} while it is on: turned off by --feature-gates on a kubelet without a configuration file, that kubelet stops`);
    }
  }
  if (x.cluster) {
    const spec = x.cluster.spec === 'not named' ? 'the spec does not name this gate' : `the spec's customNoUpgrade forces it ${x.cluster.spec.replace('forces ', '')}`;
    lines.push('', `Cluster ${x.cluster.server}: feature set ${featureSetName(x.cluster.featureSet)}; ${spec}`);
    lines.push(`  ${'VERSION'.padEnd(24)} STATE`);
    if (x.cluster.versions.length === 0) lines.push('  (no status entries)');
    for (const v of x.cluster.versions) lines.push(`  ${v.version.padEnd(24)} ${v.state}`);
  }
  return `${lines.join('\n')}\n`;
}

export const explainCommand: CommandSpec = {
  name: 'explain',
  usage: 'featuregates explain GATE [--authoritative-feature-gate-dir D --payload-version V] [--payload-manifests DIR] [--kubeconfig P] [--kubernetes-version X.Y] [-o text|json|yaml]',
  positionals: ['GATE'],
  options: {
    'authoritative-feature-gate-dir': { type: 'string', help: 'explain from these payload FeatureGate manifests' },
    'payload-version': { type: 'string', help: 'the payload version, X.Y.Z (selects manifests by major version; default 4.0.0)' },
    'payload-manifests': { type: 'string', help: 'also list the payload manifests (any kind) whose release.openshift.io/feature-gate names this gate' },
    'kubernetes-version': { type: 'string', help: 'also say what Kubernetes X.Y\'s own rules say of the gate (default with a payload: its version\'s minor, when known)' },
    kubeconfig: { type: 'string', help: `explain from this cluster's FeatureGate/cluster (default when no payload folder is given: ${CLUSTER_SEARCH_HELP})` },
    output: { type: 'string', short: 'o', help: 'text (default), json or yaml' },
    'request-timeout': REQUEST_TIMEOUT_OPTION,
  },
  async run(values, _flags, positionals) {
    const gate = positionals[0];
    if (!gate) throw new UsageError('which gate? featuregates explain GATE');
    const output = outputFlag(values.output, ['text', 'json', 'yaml']);
    const dir = values['authoritative-feature-gate-dir'];
    const version = payloadVersionFlag(values['payload-version'], '--payload-version') ?? '4.0.0';
    const x: Explanation = { gate, known: false };
    const names = new Set<string>();
    let broken = false;
    if (dir) {
      x.payload = { dir, version, profiles: [] };
      const major = parsePayloadVersion(version).major;
      const read = readPayloadManifests(dir);
      const notes = read.flatMap((m) => {
        const value = (m.object as { metadata?: { annotations?: Record<string, string> } }).metadata?.annotations?.[
          MAJOR_VERSION_ANNOTATION
        ];
        const differ = value === undefined ? undefined : majorVersionDisagreement(value, major);
        return differ ? [`${basename(m.source)}: ${differ}`] : [];
      });
      if (notes.length) x.payload.notes = notes;
      for (const profile of ALL_CLUSTER_PROFILES) {
        try {
          const registry = loadRegistry(dir, { operatorVersion: version, clusterProfile: profile }, read);
          for (const n of knownGates(registry)) names.add(n);
          x.payload.profiles.push({
            profile,
            featureSets: [...registry.featureSets].map(([featureSet, lists]) => ({
              featureSet, state: gateState(lists, gate) ?? 'absent', decidedBy: registry.sources.get(featureSet) ?? '',
            })),
          });
        } catch (e) {
          // Nothing for this profile and major is an answer; a broken payload is an error (exit 1, after the table).
          if (e instanceof BrokenPayloadError) broken = true;
          x.payload.profiles.push({ profile, error: (e as Error).message, featureSets: [] });
        }
      }
    }
    if (values['payload-manifests']) {
      const mdir = values['payload-manifests'];
      x.manifests = { dir: mdir, decides: readPayloadManifests(mdir).flatMap(({ source, object }) => {
        const o = object as ManifestObject;
        const reqs = featureGateRequirements(o.metadata?.annotations ?? {});
        for (const r of reqs) names.add(r.replace(/^-/, ''));
        if (!reqs.includes(gate) && !reqs.includes(`-${gate}`)) return [];
        return [{ file: basename(source), object: manifestObjectName(o), needs: reqs.includes(gate) ? 'enabled' as const : 'disabled' as const, requirement: reqs.join(',') }];
      }) };
    }
    if (values.kubeconfig || (!dir && !values['payload-manifests'])) {
      const kc = await connect(values.kubeconfig, requestTimeoutFlag(values['request-timeout']), sayOnStderr);
      const fg = await readFeatureGate(kc);
      const server = kc.getCurrentCluster()?.server ?? 'the API server';
      const { names: clusterNames, ...cluster } = explainCluster(fg, gate);
      x.cluster = { ...cluster, server };
      for (const n of clusterNames) names.add(n);
    }
    const kube = values['kubernetes-version'] ?? (dir ? knownKubernetesOfOpenShift(version) : undefined);
    if (kube) {
      try {
        const k = explainKubernetes(gate, kube);
        if (k) x.kubernetes = k;
      } catch (e) {
        if (!(e instanceof GateRulesError)) throw e;
        if (values['kubernetes-version'] !== undefined) throw new UsageError(`--kubernetes-version: ${e.message}`);
      }
    }
    x.known = names.has(gate);
    if (!x.known) {
      const s = closestName(gate, names);
      if (s) x.suggestion = s;
    }
    process.stdout.write(output === 'json' ? `${JSON.stringify(x, null, 2)}\n` : output === 'yaml' ? stringify(x) : formatExplanation(x));
    return x.known && !broken ? 0 : 1;
  },
};
