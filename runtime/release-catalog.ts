// A payload catalog: one folder per release (`release-X.Y/`, as openshift/api's payload-featuregates
// releases are laid out), each holding that release's payload FeatureGate manifests for every cluster
// profile. The hosted coordinator serves many versions at once: a version's registry is read from its
// release folder on first use and kept (per version and profile). A missing folder is an error naming
// the folder, never a guess from a neighbouring release.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { releaseFolder, type ClusterProfile, type FeatureSetRegistry } from '../api-types/index.js';
import { loadRegistry } from './payload-manifests.js';

export class ReleaseCatalog {
  private readonly cache = new Map<string, FeatureSetRegistry>();

  constructor(readonly dir: string) {
    if (!existsSync(dir)) throw new Error(`payload catalog ${dir} does not exist`);
  }

  /** The release folders present, e.g. ["release-4.22", "release-5.0"]. */
  releases(): string[] {
    return readdirSync(this.dir).filter((n) => /^release-\d+\.\d+$/.test(n)).sort();
  }

  /** The registry of `version` for `profile`; throws (naming the folder) when its release is not in the catalog. */
  registry(version: string, profile: ClusterProfile): FeatureSetRegistry {
    const key = `${version}\u0000${profile}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const folder = releaseFolder(version);
    const path = join(this.dir, folder);
    if (!existsSync(path)) {
      throw new Error(`release ${folder} (for version ${version}) is not in the payload catalog ${this.dir} ` +
        `(it has ${this.releases().join(', ') || 'no release folders'})`);
    }
    const registry = loadRegistry(path, { operatorVersion: version, clusterProfile: profile });
    this.cache.set(key, registry);
    return registry;
  }
}
