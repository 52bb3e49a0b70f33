// CRD manifest paths shipped with the package.
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { packageRoot } from './binaries.js';

/** Our FeatureGate, ClusterVersion and ClusterOperator CRDs (deploy/crds). */
export function bundledCRDPaths(): string[] {
  const dir = join(packageRoot(), 'deploy', 'crds');
  return ['featuregates', 'clusterversions', 'clusteroperators'].map((r) => join(dir, `${r}.config.openshift.io.yaml`));
}

/** Where openshift/api's data is: $OPENSHIFT_API_DIR, else this repository's test fixtures copy. */
export function openshiftAPIDir(): string {
  return process.env.OPENSHIFT_API_DIR ?? join(packageRoot(), 'test', 'fixtures', 'openshift-api');
}

/** openshift/api's own CRDs for the same resources, from a folder holding the upstream files. */
export function upstreamCRDPaths(dir = openshiftAPIDir()): string[] {
  const files = [
    '0000_10_config-operator_01_featuregates.crd.yaml',
    '0000_00_cluster-version-operator_01_clusterversions-Default.crd.yaml',
    '0000_00_cluster-version-operator_01_clusteroperators.crd.yaml',
  ].map((f) => join(dir, f));
  for (const f of files) if (!existsSync(f)) throw new Error(`upstream CRD ${f} not found; set OPENSHIFT_API_DIR to the folder holding openshift/api's CRDs`);
  return files;
}

/**
 * openshift/api's APIServer CRD (the cluster's TLS security profile): the Default variant, or with `tlsAdherence`
 * the TechPreviewNoUpgrade one that holds spec.tlsAdherence and custom groups.
 */
export function apiServerCRDPath(tlsAdherence = false, dir = openshiftAPIDir()): string {
  const f = tlsAdherence ? join(dir, 'tls-adherence', '0000_10_config-operator_01_apiservers-TechPreviewNoUpgrade.crd.yaml')
    : join(dir, '0000_10_config-operator_01_apiservers-Default.crd.yaml');
  if (!existsSync(f)) throw new Error(`upstream CRD ${f} not found; set OPENSHIFT_API_DIR to the folder holding openshift/api's CRDs`);
  return f;
}

/** Where HyperShift's data is: $HYPERSHIFT_API_DIR, else this repository's test fixtures copy. */
export function hypershiftAPIDir(): string {
  return process.env.HYPERSHIFT_API_DIR ?? join(packageRoot(), 'test', 'fixtures', 'hypershift-api');
}

/** HyperShift's HostedControlPlane CRD (hypershift.openshift.io/v1beta1), as a management cluster has it. */
export function hypershiftCRDPaths(dir = hypershiftAPIDir()): string[] {
  const file = join(dir, 'hostedcontrolplanes-Hypershift-Default.crd.yaml');
  if (!existsSync(file)) throw new Error(`HostedControlPlane CRD ${file} not found; set HYPERSHIFT_API_DIR to the folder holding HyperShift's CRD`);
  return [file];
}
