// Reads a folder of payload FeatureGate manifests (JSON or YAML, one or more documents per file) for
// the registry in api-types. Files are read in byte order of their names; other files are ignored.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseYamlDocuments } from '../util/yaml.js';
import {
  buildRegistry,
  compareNames,
  emptyFeatureGate,
  renderFeatureGate,
  type ClusterProfile,
  type FeatureGate,
  type FeatureGateDetails,
  type FeatureSetRegistry,
  type PayloadManifest,
  type RegistryOptions,
} from '../../api-types/index.js';

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
    const docs = parseYamlDocuments(readFileSync(path, 'utf8'), path);
    docs.forEach((object, i) => {
      if (object === null || object === undefined) return;
      out.push({ source: docs.length > 1 ? `${path}#${i}` : path, object });
    });
  }
  return out;
}

/** The registry of the manifests in `dir` (already read ones may be passed, to read the folder once). */
export function loadRegistry(
  dir: string,
  options: RegistryOptions,
  manifests: PayloadManifest[] = readPayloadManifests(dir),
): FeatureSetRegistry {
  if (manifests.length === 0) throw new Error(`no payload FeatureGate manifests (*.yaml, *.yml, *.json) in ${dir}`);
  return buildRegistry(manifests, options);
}

/**
 * The status entry of `version` rendered from the payload manifests in `dir` for `featureGate` (default: an
 * empty spec), as `featuregates render` renders it — the gates a cluster of that version asks for before any
 * operator has written a status (bootstrap, standalone).
 */
export function renderedStatusEntry(
  dir: string,
  version: string,
  o: { featureGate?: FeatureGate; clusterProfile?: ClusterProfile } = {},
): FeatureGateDetails {
  const registry = loadRegistry(dir, { operatorVersion: version, ...(o.clusterProfile ? { clusterProfile: o.clusterProfile } : {}) });
  const entry = renderFeatureGate(o.featureGate ?? emptyFeatureGate(), registry, version).status?.featureGates.find(
    (e) => e.version === version,
  );
  if (!entry) throw new Error(`rendering ${dir} for ${version} gave no status entry for ${version}`);
  return entry;
}
