// CRD manifest paths shipped with the package.
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { packageRoot } from './binaries.js';

/** Our FeatureGate, ClusterVersion and ClusterOperator CRDs (deploy/crds). */
export function bundledCRDPaths(): string[] {
  const dir = join(packageRoot(), 'deploy', 'crds');
  return ['featuregates', 'clusterversions', 'clusteroperators'].map((r) => join(dir, `${r}.config.openshift.io.yaml`));
}

/**
 * openshift/api's own CRDs for the same resources, from a folder holding the upstream files
 * (default: ../shared/openshift-api next to the repository, or $OPENSHIFT_API_DIR).
 */
export function upstreamCRDPaths(dir = process.env.OPENSHIFT_API_DIR ?? join(packageRoot(), '..', 'shared', 'openshift-api')): string[] {
  const files = [
    '0000_10_config-operator_01_featuregates.crd.yaml',
    '0000_00_cluster-version-operator_01_clusterversions-Default.crd.yaml',
    '0000_00_cluster-version-operator_01_clusteroperators.crd.yaml',
  ].map((f) => join(dir, f));
  for (const f of files) if (!existsSync(f)) throw new Error(`upstream CRD ${f} not found; set OPENSHIFT_API_DIR to the folder holding openshift/api's CRDs`);
  return files;
}
