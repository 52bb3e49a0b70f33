// The real payload FeatureGate manifests (openshift/api, copied into test/fixtures) and their INDEX.json.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterProfile } from '../../api-types/index.js';

// test/fixtures/openshift-api (a copy of ../shared/openshift-api), or $OPENSHIFT_API_DIR.
export const PAYLOAD_ROOT = join(process.env.OPENSHIFT_API_DIR ?? join(process.cwd(), 'test', 'fixtures', 'openshift-api'), 'payload-featuregates');

export interface IndexEntry {
  path: string;
  profile: 'SelfManagedHA' | 'Hypershift' | null;
  featureSet: string;
  specFeatureSet: string | null;
  enabledCount: number;
  disabledCount: number;
}

export function payloadIndex(): IndexEntry[] {
  return (JSON.parse(readFileSync(join(PAYLOAD_ROOT, 'INDEX.json'), 'utf8')) as { files: IndexEntry[] }).files;
}

/** Every payload folder: releases/release-X.Y and current, with an operator version that fits it. */
export function payloadFolders(): { folder: string; dir: string; version: string }[] {
  const releases = readdirSync(join(PAYLOAD_ROOT, 'releases')).sort().map((r) => ({
    folder: `releases/${r}`, dir: join(PAYLOAD_ROOT, 'releases', r), version: `${r.replace('release-', '')}.3`,
  }));
  return [...releases, { folder: 'current', dir: join(PAYLOAD_ROOT, 'current'), version: '4.24.0' }];
}

export const PROFILE_OF: Record<string, ClusterProfile> = {
  SelfManagedHA: 'self-managed-high-availability',
  Hypershift: 'ibm-cloud-managed',
};

/**
 * A one-manifest Default payload naming two Kubernetes gates and one OpenShift-only gate (the example payloads have
 * only made-up names, which a vanilla kube-apiserver does not have): APIResponseCompression on (as kube-apiserver
 * v1.36 runs it by default), APIServingWithRoutine off (its default), OpenShiftOnlyGate on — or `gates`. Written under `parent`.
 */
export function kubernetesGatesPayload(parent: string, gates: { enabled: string[]; disabled: string[] } =
  { enabled: ['APIResponseCompression', 'OpenShiftOnlyGate'], disabled: ['APIServingWithRoutine'] }): string {
  const dir = join(parent, 'payload');
  mkdirSync(dir);
  writeFileSync(join(dir, 'featureGate-Default.yaml'), JSON.stringify({
    apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate',
    metadata: { name: 'cluster', annotations: {
      'include.release.openshift.io/self-managed-high-availability': 'false-except-for-the-config-operator',
      'release.openshift.io/feature-set': 'Default', 'release.openshift.io/major-version': '4',
    } },
    spec: {},
    status: { featureGates: [{ version: '', enabled: gates.enabled.map((name) => ({ name })), disabled: gates.disabled.map((name) => ({ name })) }] },
  }));
  return dir;
}
