// openshift/api's own CRD test suites, from the module pinned in hack/openshift-api/go.mod, against our CRDs
// (deploy/crds) on a real kube-apiserver: every suite that applies to the Default feature-set variant, every case,
// as upstream's tests/generator.go runs it (test/support/openshift-api-suites.ts). Then once more with our admission
// policies (deploy/base/admission) in force with their params: each case still behaves as upstream's suite says (none
// of upstream's cases is one our policies refuse; docs/openshift-api.md lists what they warn about).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { apiServerVersion, ConfigMapResource, KubeTransport, loadRegistry, ResourceClient } from '../../runtime/index.js';
import { KNOWN_GATES_CONFIGMAP } from '../../api-types/index.js';
import { knownGatesParamsReconciler } from '../../controllers/known-gates-params.js';
import { bundledCRDPaths, ensureNamespace, openshiftAPIModuleDir, resolveBinaries, startControlPlane, type ControlPlane } from '../../sdk/testing/index.js';
import { kubeConfig, kubeconfigPath } from '../support/cluster.js';
import { appliesToDefault, defaultGates, suitesOf, SuiteRunner, type Suite, type SuiteCase } from '../support/openshift-api-suites.js';
import { PAYLOAD_ROOT } from '../support/payloads.js';
import { eventually } from '../support/timing.js';

const MODULE = openshiftAPIModuleDir();
const GATES = defaultGates(MODULE);
const CRDS = [
  { crdName: 'featuregates.config.openshift.io', plural: 'featuregates' },
  { crdName: 'clusterversions.config.openshift.io', plural: 'clusterversions' },
  { crdName: 'clusteroperators.config.openshift.io', plural: 'clusteroperators' },
];
type Row = [string, { plural: string; kind: 'onCreate' | 'onUpdate'; c: SuiteCase }];
const rows: Row[] = CRDS.flatMap(({ crdName, plural }) => suitesOf(MODULE, crdName)
  .filter((s: Suite) => appliesToDefault(s, GATES))
  .flatMap((s) => (['onCreate', 'onUpdate'] as const).flatMap((kind) => (s.tests[kind] ?? []).map((c): Row => [`${plural} ${s.file} ${kind}: ${c.name}`, { plural, kind, c }]))));
const resource = (plural: string) => ({ group: 'config.openshift.io', version: 'v1', plural });

describe('openshift/api\'s CRD suites', () => {
  it('the pinned module has suites for all three CRDs, and the gated ones are chosen by its Default payload', () => {
    for (const { plural } of CRDS) expect(rows.filter(([title]) => title.startsWith(`${plural} `)).length).toBeGreaterThan(0);
    // SignatureStores is off in Default: its suite runs on the TechPreview variants only, as upstream's filter says.
    const skipped = suitesOf(MODULE, 'clusterversions.config.openshift.io').filter((s) => !appliesToDefault(s, GATES)).map((s) => s.file);
    expect(skipped).toContain('SignatureStores.yaml');
  });

  it('kubectl explain shows an admin the warnings before the one-way step, as OpenShift\'s does', () => {
    const explain = (field: string) => execFileSync(resolveBinaries().kubectl!, ['--kubeconfig', kubeconfigPath('ours'), 'explain', field], { encoding: 'utf8' })
      .replace(/\s+/g, ' ');
    const custom = explain('featuregate.spec.customNoUpgrade');
    for (const words of ['IS NOT SUPPORTED, CANNOT BE UNDONE and PREVENTS UPGRADES', 'misspelt name', 'break the cluster beyond repair']) expect(custom).toContain(words);
    expect(explain('featuregate.spec.featureSet')).toContain('cannot be reversed');
    expect(explain('clusterversion.spec.desiredUpdate.force')).toContain('full administrative access');
  });

  describe('on our CRDs', () => {
    it.each(rows)('%s', async (_title, { plural, kind, c }) => {
      const runner = new SuiteRunner(kubeConfig('ours'), resource(plural));
      expect(await runner[kind](c)).toBe('');
    });
  });

  describe('with our admission policies in force', () => {
    let plane: ControlPlane;
    const NS = 'featuregate-coordinator'; // where the policies' bindings look for their params
    beforeAll(async () => {
      plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
      await ensureNamespace(plane.kubeConfig, NS);
      const t = KubeTransport.for(plane.kubeConfig);
      for (const file of ['known-gates-policy.yaml', 'irreversible-feature-set-policy.yaml', 'gates-that-start-policy.yaml']) {
        for (const doc of parseAllDocuments(readFileSync(join('deploy', 'base', 'admission', file), 'utf8')).map((d) => d.toJS() as { kind: string })) {
          const kinds = doc.kind === 'ValidatingAdmissionPolicy' ? 'validatingadmissionpolicies' : 'validatingadmissionpolicybindings';
          await t.request({ method: 'POST', path: `/apis/admissionregistration.k8s.io/v1/${kinds}`, body: doc });
        }
      }
      // The params the operator keeps: the known gates of a payload and the start rules of this kube-apiserver.
      const registry = loadRegistry(join(PAYLOAD_ROOT, 'releases', 'release-4.23'), { operatorVersion: '4.23.0' });
      await knownGatesParamsReconciler({
        kubeConfig: plane.kubeConfig,
        namespace: NS,
        operatorVersion: '4.23.0',
        registry,
        clusterVersions: { get: () => undefined, addListener: () => () => true },
        kubernetesVersion: apiServerVersion(plane.kubeConfig),
      })();
      expect((await new ResourceClient(plane.kubeConfig, ConfigMapResource, undefined, { namespace: NS }).get(KNOWN_GATES_CONFIGMAP)).data?.['start.kubernetes']).toBeTruthy();
      // Policies load asynchronously: in force once a spec the guard refuses is refused.
      await eventually(async () => expect(await t.request({ method: 'POST', path: '/apis/config.openshift.io/v1/featuregates', query: { dryRun: 'All' }, body: {
        apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', metadata: { generateName: 'probe-' },
        spec: { featureSet: 'CustomNoUpgrade', customNoUpgrade: { disabled: ['ServiceAccountTokenNodeBinding'] } },
      } }).then(() => 'admitted', (e: Error) => e.message)).toContain('ServiceAccountTokenNodeBinding'), 30_000, 200);
    }, 180_000);
    afterAll(async () => plane?.stop());

    it.each(rows)('%s', async (_title, { plural, kind, c }) => {
      expect(await new SuiteRunner(plane.kubeConfig, resource(plural))[kind](c)).toBe('');
    });
  });
});
