// CRD manifest paths shipped with the package.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { packageRoot } from './binaries.js';

/** Our FeatureGate, ClusterVersion and ClusterOperator CRDs (deploy/crds). */
export function bundledCRDPaths(): string[] {
  const dir = join(packageRoot(), 'deploy', 'crds');
  return ['featuregates', 'clusterversions', 'clusteroperators'].map((r) => join(dir, `${r}.config.openshift.io.yaml`));
}

/**
 * Where the openshift/api data the tests use is (payload manifests, the APIServer CRD): $OPENSHIFT_API_DIR, else this repository's test
 * fixtures copy.
 */
export function openshiftAPIDir(): string {
  return process.env.OPENSHIFT_API_DIR ?? join(packageRoot(), 'test', 'fixtures', 'openshift-api');
}

/** The openshift/api module our CRDs follow (pinned in hack/openshift-api/go.mod, like hack/update-crds.mjs reads it). */
const OPENSHIFT_API_MODULE = 'github.com/openshift/api';
let openshiftAPIModule: string | undefined;

/**
 * The folder of the pinned openshift/api module: $OPENSHIFT_API_MODULE_DIR, else the Go module proxy's copy of the
 * version hack/openshift-api/go.mod requires (`go mod download`, cached by Go after the first time).
 */
export function openshiftAPIModuleDir(): string {
  const given = process.env.OPENSHIFT_API_MODULE_DIR;
  if (given) return given;
  if (openshiftAPIModule) return openshiftAPIModule;
  const cwd = join(packageRoot(), 'hack', 'openshift-api');
  let answer: { Dir?: string; Error?: string };
  try {
    answer = JSON.parse(execFileSync('go', ['mod', 'download', '-json', OPENSHIFT_API_MODULE], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })) as typeof answer;
  } catch (e) {
    throw new Error(`cannot fetch ${OPENSHIFT_API_MODULE} (hack/openshift-api/go.mod) with Go: ${(e as Error).message.split('\n')[0]}; ` +
      'install Go, or set OPENSHIFT_API_MODULE_DIR to a folder holding that module', { cause: e });
  }
  if (answer.Error || !answer.Dir) throw new Error(`go mod download ${OPENSHIFT_API_MODULE}: ${answer.Error ?? 'no folder'}`);
  return (openshiftAPIModule = answer.Dir);
}

/** openshift/api's own CRDs for the same resources (the Default feature-set variant of ClusterVersion), from the pinned module. */
export function upstreamCRDPaths(dir = join(openshiftAPIModuleDir(), 'config', 'v1', 'zz_generated.crd-manifests')): string[] {
  const files = [
    '0000_10_config-operator_01_featuregates.crd.yaml',
    '0000_00_cluster-version-operator_01_clusterversions-Default.crd.yaml',
    '0000_00_cluster-version-operator_01_clusteroperators.crd.yaml',
  ].map((f) => join(dir, f));
  for (const f of files) if (!existsSync(f)) throw new Error(`upstream CRD ${f} not found in openshift/api's module; was the CRD moved or split?`);
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
