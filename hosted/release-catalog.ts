// A payload catalog: one folder per release (`release-X.Y/`, as openshift/api's payload-featuregates
// releases are laid out), each holding that release's payload FeatureGate manifests for every cluster
// profile. The hosted coordinator serves many versions at once, and the versions come from guests (a
// guest's admin writes its ClusterVersion history): so what is kept is bounded by the catalog, never by the
// versions asked for. A release folder is read once; its registry is built once per profile and serves
// every z-version of the release — except a version a manifest of that folder names in its own status
// entries, which gets a registry of its own (bounded by what the payload names). A missing folder is an
// error naming the folder, never a guess from a neighbouring release.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parsePayloadVersion, releaseFolder, type ClusterProfile, type FeatureSetRegistry, type PayloadManifest } from '../api-types/index.js';
import { loadRegistry, readPayloadManifests } from '../runtime/manifests/payload-manifests.js';

interface Release {
  path: string;
  manifests: PayloadManifest[];
  /** Versions the manifests' status entries name explicitly (most payloads name none: their entry is ""). */
  named: Set<string>;
  /** Per profile (and per named version), the registry built. */
  registries: Map<string, FeatureSetRegistry>;
}

export class ReleaseCatalog {
  private readonly releasesRead = new Map<string, Release>();

  constructor(readonly dir: string) {
    if (!existsSync(dir)) throw new Error(`payload catalog ${dir} does not exist`);
  }

  /** The release folders present, e.g. ["release-4.22", "release-5.0"]. */
  releases(): string[] {
    return readdirSync(this.dir).filter((n) => /^release-\d+\.\d+$/.test(n)).sort();
  }

  /** Registries held: at most (release folders × profiles) plus the versions the payloads name. */
  get size(): number {
    let n = 0;
    for (const r of this.releasesRead.values()) n += r.registries.size;
    return n;
  }

  /** The registry of `version` for `profile`; throws (naming the folder) when its release is not in the catalog. */
  registry(version: string, profile: ClusterProfile): FeatureSetRegistry {
    const folder = releaseFolder(version);
    const release = this.release(folder, version);
    const exact = release.named.has(version);
    const key = exact ? `${profile}\u0000${version}` : profile;
    let registry = release.registries.get(key);
    if (!registry) {
      // Built for the release (X.Y.0) unless the payload names this very version: the same gates for every z-version.
      const { major, minor } = parsePayloadVersion(version);
      registry = loadRegistry(release.path, { operatorVersion: exact ? version : `${major}.${minor}.0`, clusterProfile: profile }, release.manifests);
      release.registries.set(key, registry);
    }
    return registry;
  }

  private release(folder: string, version: string): Release {
    const hit = this.releasesRead.get(folder);
    if (hit) return hit;
    const path = join(this.dir, folder);
    if (!existsSync(path)) {
      throw new Error(`release ${folder} (for version ${version}) is not in the payload catalog ${this.dir} ` +
        `(it has ${this.releases().join(', ') || 'no release folders'})`);
    }
    const manifests = readPayloadManifests(path);
    const named = new Set<string>();
    for (const m of manifests) {
      const entries = (m.object as { status?: { featureGates?: { version?: unknown }[] } } | null)?.status?.featureGates;
      for (const e of Array.isArray(entries) ? entries : []) if (typeof e?.version === 'string' && e.version !== '') named.add(e.version);
    }
    const release = { path, manifests, named, registries: new Map<string, FeatureSetRegistry>() };
    this.releasesRead.set(folder, release);
    return release;
  }
}
