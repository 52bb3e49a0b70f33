// `featuregates manifests` and `explain --payload-manifests`: which payload manifests the cluster-version
// operator would apply, skip or reject by feature gate (library-go's filter, in its words), on openshift/api's
// real gated manifests and on constructed edge cases; gates from a FeatureGate file or from a real cluster.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundledCRDPaths, setFeatureGateStatus, setFeatureGateSpec, startControlPlane, type ControlPlane } from '../../sdk/testing/index.js';
import { runCLI } from '../support/cli.js';
import { tempDirs } from '../support/temp.js';

const tempDir = tempDirs();
const GATED = join(process.cwd(), 'test', 'fixtures', 'openshift-api', 'payload-manifests-gated');
const PAYLOAD = join(process.cwd(), 'test', 'fixtures', 'openshift-api', 'payload-featuregates', 'releases', 'release-5.1');

function spec(featureSet: string): string {
  const f = join(tempDir('fgc-manifests-spec-'), 'fg.yaml');
  writeFileSync(f, `apiVersion: config.openshift.io/v1\nkind: FeatureGate\nmetadata: {name: cluster}\nspec: {featureSet: "${featureSet}"}\n`);
  return f;
}
function fromFile(dir: string, featureSet: string, ...extra: string[]) {
  const r = runCLI(['manifests', '--payload-manifests', dir, '--version', '5.1.0', '--featuregate', spec(featureSet), '--authoritative-feature-gate-dir', PAYLOAD, '-o', 'json', ...extra]);
  return {
    ...r,
    report: r.stdout ? (JSON.parse(r.stdout) as { manifests: { file: string; decision: string; reason?: string }[] }) : undefined,
  };
}
const byFile = (report: { manifests: { file: string; decision: string; reason?: string }[] } | undefined) =>
  Object.fromEntries((report?.manifests ?? []).map((m) => [m.file, `${m.decision}${m.reason ? `: ${m.reason}` : ''}`]));

describe('featuregates manifests', () => {
  it('openshift/api\'s gated manifests on Default 5.1: the CRDs of gates off by default are skipped, in library-go\'s words', () => {
    const r = fromFile(GATED, '');
    expect(r.code).toBe(0);
    expect(byFile(r.report)).toEqual({
      '0000_05_config-operator_02_criocredentialproviderconfig.cr.yaml': 'apply',
      '0000_20_crd-compatibility-checker_01_compatibilityrequirements.crd.yaml': 'skip: feature gate CRDCompatibilityRequirementOperator is required but not enabled',
      '0000_30_cluster-api_01_clusterapis.crd.yaml': 'skip: feature gate ClusterAPIMachineManagement is required but not enabled',
    });
    const text = runCLI(['manifests', '--payload-manifests', GATED, '--version', '5.1.0', '--featuregate', spec(''), '--authoritative-feature-gate-dir', PAYLOAD]);
    expect(text.stdout).toContain('  apply  0000_05_config-operator_02_criocredentialproviderconfig.cr.yaml (CRIOCredentialProviderConfig/cluster): feature gate CRIOCredentialProviderConfig enabled');
  });

  it('on TechPreviewNoUpgrade every one is applied', () => {
    expect(Object.values(byFile(fromFile(GATED, 'TechPreviewNoUpgrade').report))).toEqual(['apply', 'apply', 'apply']);
  });

  it('the other rules: -Gate, feature-set, profile, major-version; invalid annotations are rejected (exit 1)', () => {
    const dir = tempDir('fgc-manifests-');
    const cm = (name: string, annotations: Record<string, string>, kind = 'ConfigMap') => writeFileSync(join(dir, `${name}.yaml`), JSON.stringify({
      apiVersion: 'v1', kind, metadata: { name, annotations: { 'include.release.openshift.io/self-managed-high-availability': 'true', ...annotations } } }));
    cm('minus', { 'release.openshift.io/feature-gate': '-EventTTL' });
    cm('both', { 'release.openshift.io/feature-gate': 'EventTTL', 'release.openshift.io/feature-set': 'Default' });
    cm('set', { 'release.openshift.io/feature-set': 'Default,OKD' });
    cm('bogus-set', { 'release.openshift.io/feature-set': 'Nightly' });
    cm('major-on-configmap', { 'release.openshift.io/major-version': '5' });
    cm('crd-major-4', { 'release.openshift.io/major-version': '4' }, 'CustomResourceDefinition');
    cm('crd-not-4', { 'release.openshift.io/major-version': '-4' }, 'CustomResourceDefinition');
    writeFileSync(join(dir, 'hypershift-only.yaml'), JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'h', annotations: { 'include.release.openshift.io/ibm-cloud-managed': 'true' } } }));
    const r = fromFile(dir, 'TechPreviewNoUpgrade');
    expect(r.code).toBe(1);
    expect(byFile(r.report)).toEqual({
      'both.yaml': 'reject: both feature set and feature gate annotations are present: manifests may specify either a feature set or a feature gate, but not both',
      'bogus-set.yaml': 'reject: unrecognized value "Nightly" in release.openshift.io/feature-set=Nightly; known values are: CustomNoUpgrade,Default,DevPreviewNoUpgrade,OKD,TechPreviewNoUpgrade',
      'crd-major-4.yaml': 'skip: major version 5 does not match any required versions',
      'crd-not-4.yaml': 'apply',
      'hypershift-only.yaml': 'skip: include.release.openshift.io/self-managed-high-availability unset',
      'major-on-configmap.yaml': 'reject: release.openshift.io/major-version is only allowed on FeatureGate and CustomResourceDefinition objects, not ConfigMap',
      'minus.yaml': 'skip: feature gate EventTTL is enabled but manifest requires it to be disabled',
      'set.yaml': 'skip: "TechPreviewNoUpgrade" is required, and release.openshift.io/feature-set=Default,OKD',
    });
  });

  it('usage: exactly one source of gates', () => {
    expect(runCLI(['manifests', '--payload-manifests', GATED, '--version', '5.1.0']).code).toBe(2);
    expect(runCLI(['manifests', '--payload-manifests', GATED, '--version', '5.1.0', '--kubeconfig', 'k', '--featuregate', 'f']).code).toBe(2);
    expect(runCLI(['manifests', '--payload-manifests', GATED, '--version', '5.1', '--featuregate', spec(''), '--authoritative-feature-gate-dir', PAYLOAD]).code).toBe(2);
  });

  it('explain --payload-manifests lists the manifests a gate decides', () => {
    const r = runCLI(['explain', 'ClusterAPIMachineManagement', '--payload-manifests', GATED]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('  0000_30_cluster-api_01_clusterapis.crd.yaml (CustomResourceDefinition/clusterapis.operator.openshift.io): ' +
      'applied only while ClusterAPIMachineManagement is enabled (requires "ClusterAPIMachineManagement")');
  });
});

describe('featuregates manifests --kubeconfig (real API server)', () => {
  let plane: ControlPlane;
  beforeAll(async () => {
    plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
    await setFeatureGateSpec(plane.kubeConfig, {});
    await setFeatureGateStatus(plane.kubeConfig, [{ version: '5.1.0', enabled: ['ClusterAPIMachineManagement'], disabled: ['CRDCompatibilityRequirementOperator', 'CRIOCredentialProviderConfig'] }]);
  }, 90_000);
  afterAll(async () => { await plane?.stop(); });

  it('reads the gates of the status entry for --version; with no entry for it, no gate is enabled (as the CVO)', () => {
    const at = (version: string) => runCLI(['manifests', '--payload-manifests', GATED, '--version', version, '--kubeconfig', plane.kubeconfigPath, '-o', 'json']);
    const r = at('5.1.0');
    expect(r.code).toBe(0);
    expect(byFile(JSON.parse(r.stdout))).toEqual({
      '0000_05_config-operator_02_criocredentialproviderconfig.cr.yaml': 'skip: feature gate CRIOCredentialProviderConfig is required but not enabled',
      '0000_20_crd-compatibility-checker_01_compatibilityrequirements.crd.yaml': 'skip: feature gate CRDCompatibilityRequirementOperator is required but not enabled',
      '0000_30_cluster-api_01_clusterapis.crd.yaml': 'apply',
    });
    const none = JSON.parse(at('5.2.0').stdout) as { gatesFrom: string; manifests: { decision: string }[] };
    expect(none.gatesFrom).toContain('(none: no gate counts as enabled, as in the CVO)');
    expect(none.manifests.map((m) => m.decision)).toEqual(['skip', 'skip', 'skip']);
  });
});
