// `featuregates render`: the bootstrap path. Prints the FeatureGate from --featuregate (default: an
// empty spec) with its status filled for --payload-version.
import { stringify } from 'yaml';
import { emptyFeatureGate, previewSpec, renderFeatureGate, unknownGateMessage } from '../api-types/index.js';
import { loadRegistry } from '../runtime/manifests/payload-manifests.js';
import { readFeatureGateFile } from '../runtime/manifests/feature-gate-file.js';
import { clusterProfileFlag, payloadVersionFlag, UsageError, type CommandSpec, outputFlag } from './args.js';

export const renderCommand: CommandSpec = {
  name: 'render',
  usage: 'featuregates render --payload-version V --authoritative-feature-gate-dir D [--featuregate FILE] [--cluster-profile P] [-o yaml|json]',
  options: {
    'payload-version': { type: 'string', help: 'the payload version whose entry to compute (required)' },
    'authoritative-feature-gate-dir': { type: 'string', help: 'folder of payload FeatureGate manifests (required)' },
    featuregate: { type: 'string', help: 'a FeatureGate manifest (YAML or JSON) to complete; default: FeatureGate/cluster with an empty spec' },
    'cluster-profile': { type: 'string', help: 'self-managed-high-availability (default) or ibm-cloud-managed (alias Hypershift)' },
    output: { type: 'string', short: 'o', help: 'yaml (default) or json' },
  },
  run(values) {
    const version = payloadVersionFlag(values['payload-version'], '--payload-version');
    const dir = values['authoritative-feature-gate-dir'];
    if (!version) throw new UsageError('--payload-version is required');
    if (!dir) throw new UsageError('--authoritative-feature-gate-dir is required');
    const profile = clusterProfileFlag(values['cluster-profile']);
    const output = outputFlag(values.output, ['yaml', 'json']);
    const fg = values.featuregate ? readFeatureGateFile(values.featuregate) : emptyFeatureGate();
    const registry = loadRegistry(dir, {
      operatorVersion: version,
      ...(profile ? { clusterProfile: profile } : {}),
    });
    const rendered = renderFeatureGate(fg, registry, version);
    // As upstream's render, an unknown custom name is rendered as given; unlike it, it is not silent.
    for (const u of previewSpec(fg.spec, registry).unknown) process.stderr.write(`warning: ${unknownGateMessage(u)}\n`);
    process.stdout.write(output === 'json' ? `${JSON.stringify(rendered, null, 2)}\n` : stringify(rendered));
    return 0;
  },
};
