// `featuregates preflight`: would the components start with the gates a user is about to choose? Either an explicit
// `--feature-gates` for a Kubernetes version (vanilla components by default), or a FeatureGate file resolved for a
// payload (OpenShift's components: OpenShift gate names are ignored, the Kubernetes gates among them judged). No
// cluster. Exit 0 when every component starts, 1 when one would refuse, 2 on usage errors.
import { stringify } from 'yaml';
import {
  GateRulesError, gatesOfLists, kubernetesOfOpenShift, parseGateFlag, preflight, previewSpec, type GateFlavor, type PreflightReport,
} from '../api-types/index.js';
import { loadRegistry } from '../runtime/payload-manifests.js';
import { readFeatureGateFile } from '../runtime/feature-gate-file.js';
import { choiceFlag, clusterProfileFlag, outputFlag, UsageError, type CommandSpec } from './args.js';

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
    for (const p of g.problems) lines.push(`  ${p.kind.padEnd(10)} ${p.gate}: ${p.message}`, `  ${''.padEnd(10)} fix: ${p.fix}`);
  }
  if (r.ignored.length) {
    lines.push('', `${r.ignored.length} names are not Kubernetes gates (OpenShift's components ignore them)${wide ? `: ${r.ignored.join(', ')}` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

export const preflightCommand: CommandSpec = {
  name: 'preflight',
  usage: 'featuregates preflight (--kubernetes-version X.Y --feature-gates A=true,B=false | -f FILE --authoritative-feature-gate-dir D ' +
    '--payload-version V [--kubernetes-version X.Y]) [--emulated-version X.Y] [--flavor vanilla|openshift] [-o table|wide|json|yaml]',
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
    output: { type: 'string', short: 'o', help: 'table (default), wide, json or yaml' },
  },
  run(values) {
    const output = outputFlag(values.output, ['table', 'wide', 'json', 'yaml']);
    const file = values.filename;
    if (file !== undefined && values['feature-gates'] !== undefined) throw new UsageError('give --feature-gates or -f, not both');
    if (file === undefined && values['feature-gates'] === undefined) throw new UsageError('give --feature-gates (with --kubernetes-version) or -f (with a payload)');
    try {
      let gates: Map<string, boolean>;
      let kubernetesVersion = values['kubernetes-version'];
      let flavor: GateFlavor;
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
      } else {
        if (!kubernetesVersion) throw new UsageError('--feature-gates needs --kubernetes-version');
        gates = parseGateFlag(values['feature-gates']!);
        flavor = choiceFlag('--flavor', values.flavor ?? 'vanilla', ['vanilla', 'openshift']);
      }
      const r = preflight({ kubernetesVersion, flavor, gates, ...(values['emulated-version'] ? { emulatedVersion: values['emulated-version'] } : {}) });
      process.stdout.write(output === 'json' ? `${JSON.stringify(r, null, 2)}\n` : output === 'yaml' ? stringify(r) : formatPreflight(r, output === 'wide'));
      return r.components.every((c) => c.starts) ? 0 : 1;
    } catch (e) {
      if (e instanceof GateRulesError) throw new UsageError(e.message);
      throw e;
    }
  },
};
