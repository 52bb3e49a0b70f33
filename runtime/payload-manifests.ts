// Reads a folder of payload FeatureGate manifests (JSON or YAML, one or more documents per file) for
// the registry in api-types. Files are read in byte order of their names; other files are ignored.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { buildRegistry, compareNames, type FeatureSetRegistry, type PayloadManifest, type RegistryOptions } from '../api-types/index.js';

export function readPayloadManifests(dir: string): PayloadManifest[] {
  let names: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new Error('not a directory');
    names = readdirSync(dir);
  } catch (e) {
    throw new Error(`cannot read payload manifest folder ${dir}: ${(e as Error).message}`, { cause: e });
  }
  const out: PayloadManifest[] = [];
  for (const name of names.filter((n) => /\.(ya?ml|json)$/.test(n)).sort(compareNames)) {
    const path = join(dir, name);
    if (!statSync(path).isFile()) continue;
    const docs = parseAllDocuments(readFileSync(path, 'utf8'));
    docs.forEach((doc, i) => {
      if (doc.errors.length > 0) {
        const err = doc.errors[0];
        const line = err?.linePos?.[0]?.line;
        throw new Error(`${path}${line ? `:${line}` : ''}: not valid YAML or JSON: ${err?.message.split('\n')[0]}`);
      }
      const object = doc.toJS() as unknown;
      if (object === null || object === undefined) return;
      out.push({ source: docs.length > 1 ? `${path}#${i}` : path, object });
    });
  }
  return out;
}

export function loadRegistry(dir: string, options: RegistryOptions): FeatureSetRegistry {
  const manifests = readPayloadManifests(dir);
  if (manifests.length === 0) throw new Error(`no payload FeatureGate manifests (*.yaml, *.yml, *.json) in ${dir}`);
  return buildRegistry(manifests, options);
}
