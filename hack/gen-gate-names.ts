// Usage: npm run gen:gate-names -- <payload-manifest-dir> <out.ts>
// Writes a module exporting `type GateName` (a union of every gate name in the manifests) and
// `GateNames` constants. Use with the SDK: `access.current() as FeatureGates<GateName>`.
import { writeFileSync } from 'node:fs';
import { readPayloadManifests } from '../runtime/payload-manifests.js';
import { gateNamesFromManifests, gateNamesModule } from './gate-names-module.js';

const [dir, out] = process.argv.slice(2);
if (!dir || !out) {
  process.stderr.write('usage: npm run gen:gate-names -- <payload-manifest-dir> <out.ts>\n');
  process.exit(2);
}
const names = gateNamesFromManifests(readPayloadManifests(dir));
writeFileSync(out, gateNamesModule(names, dir));
process.stderr.write(`wrote ${names.length} gate names to ${out}\n`);
