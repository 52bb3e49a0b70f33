// The Helm chart (deploy/helm/featuregate-coordinator), proven with the real Helm v4 (hack/helm/build.sh, from Go
// modules) on a real kube-apiserver. One source of truth: the chart renders deploy/base's own files, and with
// default values `helm template --include-crds` gives exactly the objects of `kubectl kustomize
// deploy/overlays/vanilla`. Then lint, template with values, install (RBAC accepted by the API server),
// upgrade with a changed value, uninstall (nothing left but the CRDs, Helm's convention).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { KubeTransport, readKubeconfigFile } from '../../runtime/index.js';
import { resolveBinaries, startControlPlane, type ControlPlane } from '../../sdk/testing/index.js';

const CHART = join(process.cwd(), 'deploy', 'helm', 'featuregate-coordinator');
const helm = execFileSync('bash', [join('hack', 'helm', 'build.sh')], { encoding: 'utf8' }).trim();
const kubectl = resolveBinaries().kubectl!;
interface Obj { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; [k: string]: unknown }

const parse = (yaml: string) => parseAllDocuments(yaml).map((d) => d.toJS() as Obj).filter((o) => o && o.kind);
const key = (o: Obj) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const byKey = (objs: Obj[]) => Object.fromEntries(objs.map((o) => [key(o), o]));
const template = (...args: string[]) => parse(execFileSync(helm, ['template', 'fgc', CHART, '--include-crds', ...args], { encoding: 'utf8' }));

describe('Helm chart', () => {
  it('helm lint passes', () => {
    const r = spawnSync(helm, ['lint', CHART], { encoding: 'utf8' });
    expect(`${r.stdout}${r.stderr}`).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(r.status).toBe(0);
  });

  it('with default values it renders exactly the objects of the vanilla kustomize overlay', () => {
    const kustomize = byKey(parse(execFileSync(kubectl, ['kustomize', join('deploy', 'overlays', 'vanilla')], { encoding: 'utf8' })));
    const chart = byKey(template());
    expect(Object.keys(chart).sort()).toEqual(Object.keys(kustomize).sort());
    for (const k of Object.keys(kustomize)) expect({ [k]: chart[k] }).toEqual({ [k]: kustomize[k] });
  });

  it('values change what they name, everywhere it appears', () => {
    const objs = byKey(template('--set', 'namespace=fgc-system', '--set', 'image=registry.example.com/fgc:1.0.0', '--set', 'operatorVersion=4.23.1',
      '--set', 'leaderElection.leaseDuration=137s', '--set', 'leaderElection.renewDeadline=107s', '--set', 'leaderElection.retryPeriod=26s',
      '--set', 'metrics.serviceMonitor=true', '--set', 'admission.unknownGates=Deny', '--set', 'resources.limits.memory=512Mi'));
    expect(Object.keys(objs).filter((k) => k.includes('/featuregate-coordinator/'))).toEqual([]);
    expect(objs['Namespace//fgc-system']).toBeDefined();
    const dep = objs['Deployment/fgc-system/featuregate-operator'] as unknown as { spec: { template: { spec: { containers: { image: string; args: string[]; env: { name: string; value?: string }[]; resources: unknown }[] } } } };
    const c = dep.spec.template.spec.containers[0]!;
    expect(c.image).toBe('registry.example.com/fgc:1.0.0');
    expect(c.env.find((e) => e.name === 'OPERATOR_IMAGE_VERSION')?.value).toBe('4.23.1');
    expect(c.args).toEqual(expect.arrayContaining(['--leader-elect-lease-duration=137s', '--leader-elect-renew-deadline=107s', '--leader-elect-retry-period=26s']));
    expect(c.resources).toEqual({ requests: { cpu: '10m', memory: '64Mi' }, limits: { memory: '512Mi' } });
    const crb = objs['ClusterRoleBinding//featuregate-operator'] as unknown as { subjects: { namespace: string }[] };
    expect(crb.subjects.map((s) => s.namespace)).toEqual(['fgc-system']);
    const binding = objs['ValidatingAdmissionPolicyBinding//featuregates-known-gates'] as unknown as { spec: { validationActions: string[]; paramRef: { namespace: string } } };
    expect(binding.spec).toMatchObject({ validationActions: ['Deny', 'Audit'], paramRef: { namespace: 'fgc-system' } });
    expect(objs['ServiceMonitor/fgc-system/featuregate-operator']).toBeDefined();
    const insecure = byKey(template('--set', 'metrics.secure=false'));
    expect((insecure['Deployment/featuregate-coordinator/featuregate-operator'] as unknown as typeof dep).spec.template.spec.containers[0]!.args).toContain('--metrics-secure=false');
    const bad = spawnSync(helm, ['template', 'fgc', CHART, '--set', 'admission.unknownGates=Refuse'], { encoding: 'utf8' });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('admission.unknownGates must be Warn or Deny, got "Refuse"');
  });

  describe('on a real API server', () => {
    let plane: ControlPlane;
    beforeAll(async () => { plane = await startControlPlane({}); }, 90_000);
    afterAll(async () => { await plane?.stop(); });
    const h = (...args: string[]) => execFileSync(helm, [...args, '--kubeconfig', plane.kubeconfigPath], { encoding: 'utf8' });
    const get = (path: string) => KubeTransport.for(readKubeconfigFile(plane.kubeconfigPath)!).request({ method: 'GET', path });

    it('install, upgrade with a changed value, uninstall leaving only the CRDs', async () => {
      h('install', 'fgc', CHART, '--namespace', 'default', '--wait=false');
      const ns = 'featuregate-coordinator';
      await expect(get(`/apis/apps/v1/namespaces/${ns}/deployments/featuregate-operator`)).resolves.toMatchObject({ metadata: { name: 'featuregate-operator' } });
      await expect(get('/apis/rbac.authorization.k8s.io/v1/clusterroles/featuregate-operator')).resolves.toBeDefined();
      await expect(get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/featuregates.config.openshift.io')).resolves.toBeDefined();
      const binding = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/featuregates-known-gates';
      expect(((await get(binding)) as { spec: { validationActions: string[] } }).spec.validationActions).toEqual(['Warn', 'Audit']);

      h('upgrade', 'fgc', CHART, '--namespace', 'default', '--set', 'admission.unknownGates=Deny');
      expect(((await get(binding)) as { spec: { validationActions: string[] } }).spec.validationActions).toEqual(['Deny', 'Audit']);

      h('uninstall', 'fgc', '--namespace', 'default');
      for (const path of [`/apis/apps/v1/namespaces/${ns}/deployments/featuregate-operator`, '/apis/rbac.authorization.k8s.io/v1/clusterroles/featuregate-operator',
        '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/featuregate-operator', binding, `/api/v1/namespaces/${ns}/configmaps/featuregate-payload`]) {
        await expect(get(path)).rejects.toMatchObject({ code: 404 });
      }
      // The namespace is being deleted (no namespace controller runs here to finish it), the CRDs stay.
      const nsObj = await get(`/api/v1/namespaces/${ns}`).catch(() => undefined) as { metadata?: { deletionTimestamp?: string } } | undefined;
      expect(nsObj === undefined || Boolean(nsObj.metadata?.deletionTimestamp)).toBe(true);
      await expect(get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/featuregates.config.openshift.io')).resolves.toBeDefined();
      expect(h('list', '--all-namespaces', '-q').trim()).toBe('');
    }, 120_000);
  });
});
