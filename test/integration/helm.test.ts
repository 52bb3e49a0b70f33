// The Helm chart (deploy/helm/featuregate-coordinator), proven with the real Helm v4 (hack/helm/build.sh, from Go
// modules) on a real kube-apiserver. One source of truth: the chart renders deploy/base's own files, and with
// default values `helm template --include-crds` gives exactly the objects of `kubectl kustomize
// deploy/overlays/vanilla` but its Namespace (Helm's convention: objects in the release namespace, which
// `--create-namespace` makes, never the chart). Then lint, template with values, a misspelt value refused by
// values.schema.json, install into a new namespace (RBAC accepted by the API server), upgrade with a changed
// value, uninstall (the CRDs, the FeatureGate and the namespace stay).
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

/** A real API server for the describe block it is called in: `helm …` against it, its transport, a GET of a path. */
function onRealAPIServer() {
  let plane: ControlPlane;
  beforeAll(async () => { plane = await startControlPlane({}); }, 90_000);
  afterAll(async () => { await plane?.stop(); });
  const api = () => KubeTransport.for(readKubeconfigFile(plane.kubeconfigPath)!);
  return {
    h: (...args: string[]) => execFileSync(helm, [...args, '--kubeconfig', plane.kubeconfigPath], { encoding: 'utf8' }),
    api,
    get: (path: string) => api().request({ method: 'GET', path }),
  };
}

describe('Helm chart', () => {
  it('helm lint passes', () => {
    const r = spawnSync(helm, ['lint', CHART], { encoding: 'utf8' });
    expect(`${r.stdout}${r.stderr}`).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(r.status).toBe(0);
  });

  it('with default values it renders exactly the objects of the vanilla kustomize overlay, but no Namespace', () => {
    const kustomize = byKey(parse(execFileSync(kubectl, ['kustomize', join('deploy', 'overlays', 'vanilla')], { encoding: 'utf8' })).filter((o) => o.kind !== 'Namespace'));
    const chart = byKey(template('--namespace', 'featuregate-coordinator'));
    expect(Object.keys(chart).sort()).toEqual(Object.keys(kustomize).sort());
    for (const k of Object.keys(kustomize)) expect({ [k]: chart[k] }).toEqual({ [k]: kustomize[k] });
  });

  it('values change what they name, everywhere it appears', () => {
    const objs = byKey(template('--namespace', 'fgc-system', '--set', 'image=registry.example.com/fgc:1.0.0', '--set', 'operatorVersion=4.23.1',
      '--set', 'leaderElection.leaseDuration=137s', '--set', 'leaderElection.renewDeadline=107s', '--set', 'leaderElection.retryPeriod=26s',
      '--set', 'metrics.serviceMonitor=true', '--set', 'admission.unknownGates=Deny', '--set', 'resources.limits.memory=512Mi'));
    expect(Object.keys(objs).filter((k) => k.includes('/featuregate-coordinator/'))).toEqual([]);
    expect(Object.keys(objs).filter((k) => k.startsWith('Namespace/'))).toEqual([]);
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
    const insecure = byKey(template('--namespace', 'default', '--set', 'metrics.secure=false'));
    expect((insecure['Deployment/default/featuregate-operator'] as unknown as typeof dep).spec.template.spec.containers[0]!.args).toContain('--metrics-secure=false');
    const modern = byKey(template('--namespace', 'default', '--set', 'metrics.tlsSecurityProfile=Modern'));
    expect((modern['Deployment/default/featuregate-operator'] as unknown as typeof dep).spec.template.spec.containers[0]!.args).toContain('--tls-security-profile=Modern');
    expect((byKey(template('--namespace', 'default'))['Deployment/default/featuregate-operator'] as unknown as typeof dep).spec.template.spec.containers[0]!.args
      .some((a) => a.startsWith('--tls-security-profile'))).toBe(false);
    const bad = spawnSync(helm, ['template', 'fgc', CHART, '--set', 'admission.unknownGates=Refuse'], { encoding: 'utf8' });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain("at '/admission/unknownGates': value must be one of 'Warn', 'Deny'");
    // A misspelt value is an error, not silently ignored (values.schema.json); so is the old `namespace` value.
    for (const [value, says] of [['metrics.secur=false', "additional properties 'secur' not allowed"], ['namespace=x', "additional properties 'namespace' not allowed"]]) {
      const typo = spawnSync(helm, ['template', 'fgc', CHART, '--set', value!], { encoding: 'utf8' });
      expect(typo.status).not.toBe(0);
      expect(typo.stderr).toContain(says);
    }
  });

  describe('on a real API server', () => {
    const { h, api, get } = onRealAPIServer();

    it('install -n NS --create-namespace, upgrade with a changed value, uninstall keeping the CRDs, the FeatureGate and the namespace', async () => {
      const ns = 'fgc-system';
      h('install', 'fgc', CHART, '--namespace', ns, '--create-namespace', '--wait=false');
      await expect(get(`/apis/apps/v1/namespaces/${ns}/deployments/featuregate-operator`)).resolves.toMatchObject({ metadata: { name: 'featuregate-operator' } });
      await expect(get(`/api/v1/namespaces/${ns}/configmaps/featuregate-payload`)).resolves.toBeDefined();
      await expect(get('/api/v1/namespaces/featuregate-coordinator')).rejects.toMatchObject({ code: 404 });
      const crb = await get('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/featuregate-operator') as { subjects: { namespace: string }[] };
      expect(crb.subjects.map((s) => s.namespace)).toEqual([ns]);
      await expect(get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/featuregates.config.openshift.io')).resolves.toBeDefined();
      const binding = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/featuregates-known-gates';
      expect(((await get(binding)) as { spec: { validationActions: string[]; paramRef: { namespace: string } } }).spec)
        .toMatchObject({ validationActions: ['Warn', 'Audit'], paramRef: { namespace: ns } });
      expect(h('list', '--namespace', ns, '-q').trim()).toBe('fgc');

      h('upgrade', 'fgc', CHART, '--namespace', ns, '--set', 'admission.unknownGates=Deny');
      expect(((await get(binding)) as { spec: { validationActions: string[] } }).spec.validationActions).toEqual(['Deny', 'Audit']);

      // The cluster's FeatureGate (what the operator keeps) and another tenant of the namespace.
      const t = api();
      await t.request({ method: 'POST', path: '/apis/config.openshift.io/v1/featuregates', body: { apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', metadata: { name: 'cluster' }, spec: {} } });
      await t.request({ method: 'POST', path: `/api/v1/namespaces/${ns}/configmaps`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'not-ours' } } });
      h('uninstall', 'fgc', '--namespace', ns);
      for (const path of [`/apis/apps/v1/namespaces/${ns}/deployments/featuregate-operator`, '/apis/rbac.authorization.k8s.io/v1/clusterroles/featuregate-operator',
        '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/featuregate-operator', binding, `/api/v1/namespaces/${ns}/configmaps/featuregate-payload`]) {
        await expect(get(path)).rejects.toMatchObject({ code: 404 });
      }
      const nsObj = await get(`/api/v1/namespaces/${ns}`) as { metadata: { deletionTimestamp?: string } };
      expect(nsObj.metadata.deletionTimestamp).toBeUndefined();
      await expect(get(`/api/v1/namespaces/${ns}/configmaps/not-ours`)).resolves.toBeDefined();
      await expect(get('/apis/config.openshift.io/v1/featuregates/cluster')).resolves.toBeDefined();
      await expect(get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/featuregates.config.openshift.io')).resolves.toBeDefined();
      expect(h('list', '--all-namespaces', '-q').trim()).toBe('');
    }, 120_000);
  });
});

describe('Helm chart of the hosted coordinator (deploy/helm/featuregate-hosted)', () => {
  const HOSTED = join(process.cwd(), 'deploy', 'helm', 'featuregate-hosted');
  const hostedTemplate = (...args: string[]) => parse(execFileSync(helm, ['template', 'fgh', HOSTED, ...args], { encoding: 'utf8' }));

  it('helm lint passes; with the kustomization\'s image it renders exactly the objects of deploy/hosted, but no Namespace', () => {
    const r = spawnSync(helm, ['lint', HOSTED], { encoding: 'utf8' });
    expect(`${r.stdout}${r.stderr}`).toContain('1 chart(s) linted, 0 chart(s) failed');
    const kustomize = byKey(parse(execFileSync(kubectl, ['kustomize', join('deploy', 'hosted')], { encoding: 'utf8' })).filter((o) => o.kind !== 'Namespace'));
    const chart = byKey(hostedTemplate('--namespace', 'featuregate-hosted', '--set', 'image=featuregate-coordinator:0.1.0'));
    expect(Object.keys(chart).sort()).toEqual(Object.keys(kustomize).sort());
    for (const k of Object.keys(kustomize)) expect({ [k]: chart[k] }).toEqual({ [k]: kustomize[k] });
  });

  it('values change what they name; monitoring is opt-in; a misspelt value is an error', () => {
    const objs = byKey(hostedTemplate('--namespace', 'mgmt', '--set', 'image=registry.example.com/fgc:1.0.0', '--set', 'replicas=5', '--set', 'shards=64',
      '--set', 'metrics.secure=false', '--set', 'metrics.serviceMonitor=true', '--set', 'metrics.prometheusRule=true', '--set', 'metrics.dashboard=true'));
    expect(Object.keys(objs).filter((k) => k.includes('/featuregate-hosted/'))).toEqual([]);
    const dep = objs['Deployment/mgmt/featuregate-hosted'] as unknown as { spec: { replicas: number; template: { spec: { containers: { image: string; args: string[] }[] } } } };
    expect(dep.spec.replicas).toBe(5);
    const c = dep.spec.template.spec.containers[0]!;
    expect(c.image).toBe('registry.example.com/fgc:1.0.0');
    expect(c.args).toContain('--shards=64');
    expect(c.args).not.toContain('--shards=32');
    expect(c.args).toContain('--metrics-secure=false');
    const crb = objs['ClusterRoleBinding//featuregate-hosted'] as unknown as { subjects: { namespace: string }[] };
    expect(crb.subjects.map((s) => s.namespace)).toEqual(['mgmt']);
    expect(objs['ServiceMonitor/mgmt/featuregate-hosted']).toMatchObject({ spec: { endpoints: [{ scheme: 'http' }] } });
    expect(objs['PrometheusRule/mgmt/featuregate-hosted']).toBeDefined();
    expect(objs['ConfigMap/mgmt/featuregate-hosted-dashboard']).toBeDefined();
    const plain = byKey(hostedTemplate('--namespace', 'mgmt'));
    expect(Object.keys(plain).filter((k) => /^(ServiceMonitor|PrometheusRule)\//.test(k) || k.endsWith('-dashboard'))).toEqual([]);
    const typo = spawnSync(helm, ['template', 'fgh', HOSTED, '--set', 'shard=4'], { encoding: 'utf8' });
    expect(typo.status).not.toBe(0);
    expect(typo.stderr).toContain("additional properties 'shard' not allowed");
  });

  describe('on a real API server', () => {
    const { h, get } = onRealAPIServer();

    it('install -n NS --create-namespace (RBAC and catalog accepted), upgrade, uninstall keeping the namespace', async () => {
      const ns = 'fgh-system';
      h('install', 'fgh', HOSTED, '--namespace', ns, '--create-namespace', '--wait=false');
      await expect(get(`/apis/apps/v1/namespaces/${ns}/deployments/featuregate-hosted`)).resolves.toMatchObject({ spec: { replicas: 3 } });
      await expect(get(`/api/v1/namespaces/${ns}/configmaps/featuregate-catalog-5.1`)).resolves.toBeDefined();
      const crb = await get('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/featuregate-hosted') as { subjects: { namespace: string }[] };
      expect(crb.subjects.map((s) => s.namespace)).toEqual([ns]);
      h('upgrade', 'fgh', HOSTED, '--namespace', ns, '--set', 'replicas=2');
      await expect(get(`/apis/apps/v1/namespaces/${ns}/deployments/featuregate-hosted`)).resolves.toMatchObject({ spec: { replicas: 2 } });
      h('uninstall', 'fgh', '--namespace', ns);
      for (const path of [`/apis/apps/v1/namespaces/${ns}/deployments/featuregate-hosted`, '/apis/rbac.authorization.k8s.io/v1/clusterroles/featuregate-hosted',
        `/api/v1/namespaces/${ns}/configmaps/featuregate-catalog-5.1`]) {
        await expect(get(path)).rejects.toMatchObject({ code: 404 });
      }
      const nsObj = await get(`/api/v1/namespaces/${ns}`) as { metadata: { deletionTimestamp?: string } };
      expect(nsObj.metadata.deletionTimestamp).toBeUndefined();
    }, 120_000);
  });
});
