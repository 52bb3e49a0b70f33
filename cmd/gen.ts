// `featuregates gen gate-names --payload-dir D [-o F.ts]`: a TypeScript module with `type GateName` (every
// gate in the payload manifests) and `GateNames` constants, for compile-time checked names in SDK users.
import { writeFileSync } from 'node:fs';
import { gateNamesFromManifests, gateNamesModule } from '../api-types/index.js';
import { readPayloadManifests } from '../runtime/manifests/payload-manifests.js';
import { UsageError, type CommandSpec } from './args.js';

export const genCommand: CommandSpec = {
  name: 'gen',
  usage: 'featuregates gen gate-names --payload-dir D [-o F.ts]',
  positionals: ['gate-names'],
  options: {
    'payload-dir': { type: 'string', help: 'payload FeatureGate manifests to take the names from (required)' },
    output: { type: 'string', short: 'o', help: 'write to this file (default: standard output)' },
  },
  run(values, _flags, positionals) {
    if (positionals[0] !== 'gate-names') throw new UsageError(`expected "gate-names", got ${JSON.stringify(positionals[0] ?? '')}`);
    const dir = values['payload-dir'];
    if (!dir) throw new UsageError('--payload-dir is required');
    const names = gateNamesFromManifests(readPayloadManifests(dir));
    if (names.length === 0) throw new Error(`no gate names in the payload manifests in ${dir}`);
    const text = gateNamesModule(names, dir);
    if (values.output) {
      writeFileSync(values.output, text);
      process.stderr.write(`wrote ${names.length} gate names to ${values.output}\n`);
    } else {
      process.stdout.write(text);
    }
    return 0;
  },
};
