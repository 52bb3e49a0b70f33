// deploy/hosted on a real management API server: every manifest is accepted, and the coordinator runs
// with exactly the Deployment's arguments, its ServiceAccount's own token and the payload catalog laid out
// as the Deployment's projected volume lays it out. Allowed: everything it needs (the guest converges, the
// ConfigMap, the records, the Leases, the Events). Forbidden: listing or getting Secrets, any other Secret name.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ClusterProfiles, FEATURE_GATE_NAME, resolveFeatureGateDetails } from '../../api-types/index.js';
import { ConfigMapResource, FeatureGateResource, KubeTransport, ResourceClient, SecretResource, readKubeconfigFile, type ClusterAccess } from '../../runtime/index.js';
import { ReleaseCatalog } from '../../hosted/release-catalog.js';
import {
  hypershiftCRDPaths,
  publishHostedControlPlane,
  putGuestKubeconfigSecret,
  readFeatureGateConfigMap,
  resolveBinaries,
  serviceAccountKubeConfig,
  setClusterVersion,
  startControlPlane,
  upstreamCRDPaths,
  type ControlPlane,
} from '../../sdk/testing/index.js';
import { spawnCLI, spawnFeaturegates } from '../support/cli.js';
import { imageEntrypoint } from '../../hack/bench/operator-process.js';
import { eventually } from '../support/timing.js';
import { forbidden } from '../support/forbidden.js';
import { tempDirs } from '../support/temp.js';

const tempDir = tempDirs();
const NS = 'featuregate-hosted';
const kubectl = resolveBinaries().kubectl!;

type Doc = { kind: string; metadata: { name: string; namespace?: string }; data?: Record<string, string>; spec?: Record<string, unknown> };

describe('deploy/hosted with its RBAC proven on a real API server', () => {
  let mgmt: ControlPlane;
  let guest: ControlPlane;
  let proc: ChildProcess | undefined;
  let log = '';
  let sa: ClusterAccess;
  let docs: Doc[];

  beforeAll(async () => {
    mgmt = await startControlPlane({ crdPaths: hypershiftCRDPaths() });
    guest = await startControlPlane({ etcdURL: mgmt.etcdURL, etcdPrefix: '/guest-deploy', crdPaths: upstreamCRDPaths() });
    docs = parseAllDocuments(execFileSync(kubectl, ['kustomize', join('deploy', 'hosted')], { encoding: 'utf8' })).map((d) => d.toJS() as Doc);
    const input = docs.map((d) => JSON.stringify(d)).join('\n');
    const out = execFileSync(kubectl, ['--kubeconfig', mgmt.kubeconfigPath, 'apply', '--server-side', '--field-manager=deploy-test', '-f', '-'], { input, encoding: 'utf8' });
    expect(out.split('\n').filter((l) => l.includes('serverside-applied')).length).toBe(docs.length);
    const saKc = await serviceAccountKubeConfig(mgmt, NS, 'featuregate-hosted');
    const saPath = join(tempDir('fgc-hosted-sa-'), 'kubeconfig');
    writeFileSync(saPath, saKc.exportConfig());
    sa = readKubeconfigFile(saPath)!;

    // The guest, its kubeconfig under the Secret name the Deployment names, and a second Secret it must not read.
    const gkc = readKubeconfigFile(guest.kubeconfigPath)!;
    await setClusterVersion(gkc, { history: ['4.22.0'] });
    const admin = readKubeconfigFile(mgmt.kubeconfigPath)!;
    await publishHostedControlPlane(admin, {
      namespace: 'clusters-a', name: 'a', kubeconfig: readFileSync(guest.kubeconfigPath, 'utf8'), secretName: 'admin-kubeconfig', releaseVersion: '4.22.0',
    });
    await putGuestKubeconfigSecret(admin, 'clusters-a', 'service-network-admin-kubeconfig', { kubeconfig: readFileSync(guest.kubeconfigPath, 'utf8') });

    // The catalog exactly as the Deployment's projected volume lays it out.
    const deployment = docs.find((d) => d.kind === 'Deployment')!;
    const pod = (
      deployment.spec!.template as {
        spec: {
          containers: { command?: string[]; args: string[] }[];
          volumes: { projected: { sources: { configMap: { name: string; items: { key: string; path: string }[] } }[] } }[];
        };
      }
    ).spec;
    const catalog = tempDir('fgc-hosted-catalog-');
    for (const { configMap } of pod.volumes[0]!.projected.sources) {
      const cm = docs.find((d) => d.kind === 'ConfigMap' && d.metadata.name === configMap.name)!;
      for (const item of configMap.items) {
        mkdirSync(dirname(join(catalog, item.path)), { recursive: true });
        writeFileSync(join(catalog, item.path), cm.data![item.key]!);
      }
    }
    const args = pod.containers[0]!.args.map((a) => (a.startsWith('--payload-catalog=') ? `--payload-catalog=${catalog}`
      : a.startsWith('--metrics-bind-address=') ? '--metrics-bind-address=0' : a.startsWith('--health-probe-bind-address=') ? '--health-probe-bind-address=0' : a));
    // The container's command replaces the image's ENTRYPOINT: the same node and CLI, the hosted replica's own node flags.
    const entrypoint = imageEntrypoint();
    const command = pod.containers[0]!.command ?? entrypoint;
    expect([command[0], command.at(-1)]).toEqual([entrypoint[0], entrypoint.at(-1)]);
    proc = spawnFeaturegates([...args, '--kubeconfig', saPath, '--identity', 'replica-0'], { nodeFlags: command.slice(1, -1), env: { POD_NAMESPACE: NS } });
    proc.stderr!.on('data', (d: Buffer) => { log += d.toString(); });
  }, 180_000);

  afterAll(async () => {
    proc?.kill('SIGKILL');
    await guest?.stop();
    await mgmt?.stop();
  });

  it('runs with the Deployment\'s arguments as its ServiceAccount: guest status, ConfigMap, records and Events', async () => {
    const catalog = new ReleaseCatalog(join('deploy', 'hosted', 'catalog'));
    const expected = resolveFeatureGateDetails({}, catalog.registry('4.22.0', ClusterProfiles.IBMCloudManaged), '4.22.0');
    const gkc = readKubeconfigFile(guest.kubeconfigPath)!;
    try {
      await eventually(async () => {
        expect((await new ResourceClient(gkc, FeatureGateResource).get(FEATURE_GATE_NAME)).status?.featureGates).toEqual([expected]);
        expect((await readFeatureGateConfigMap(sa, 'clusters-a'))?.metadata.annotations?.['hypershift.openshift.io/payload-version']).toBe('4.22.0');
        const records = await new ResourceClient(sa, ConfigMapResource, undefined, { namespace: NS }).list(undefined, 'app.kubernetes.io/part-of=featuregate-coordinator');
        expect(records.items.flatMap((i) => Object.values(i.data ?? {}).map((r) => (JSON.parse(r) as { hcp: string }).hcp))).toEqual(['clusters-a/a']);
      }, 60_000, 300);
      const events = await KubeTransport.for(readKubeconfigFile(mgmt.kubeconfigPath)!).request({ method: 'GET', path: '/api/v1/namespaces/clusters-a/events' }) as { items: { reason: string }[] };
      expect(events.items.map((e) => e.reason)).toContain('FeatureGateUpdate');
    } catch (e) {
      process.stderr.write(`--- coordinator log (last 4000 chars)\n${log.slice(-4000)}\n`);
      throw e;
    }
    expect(log).not.toContain('Forbidden');
  }, 90_000);

  it('cannot list or get Secrets, nor watch another Secret name', async () => {
    await forbidden(new ResourceClient(sa, SecretResource, undefined, { namespace: 'clusters-a' }).list());
    await forbidden(new ResourceClient(sa, SecretResource).list());
    await forbidden(new ResourceClient(sa, SecretResource, undefined, { namespace: 'clusters-a' }).get('admin-kubeconfig'));
    await forbidden(new ResourceClient(sa, SecretResource, undefined, { namespace: 'clusters-a' }).list('metadata.name=admin-kubeconfig'));
    await forbidden(KubeTransport.for(sa).watch({ path: '/api/v1/secrets', query: { fieldSelector: 'metadata.name=admin-kubeconfig' }, onEvent: () => undefined, onEnd: () => undefined }));
    // Even the Secret it uses is only watched (by name, in every namespace), never read otherwise.
    await forbidden(new ResourceClient(sa, SecretResource, undefined, { namespace: 'clusters-a' }).get('service-network-admin-kubeconfig'));
    await forbidden(new ResourceClient(sa, SecretResource).list('metadata.name=service-network-admin-kubeconfig'));
    // Other ConfigMaps of an HCP namespace are out of reach too.
    await forbidden(new ResourceClient(sa, ConfigMapResource, undefined, { namespace: 'clusters-a' }).get('kube-root-ca.crt'));
  });

  it('the status reader, bound as the manifest says, runs `hosted status` and lists no ConfigMap or Lease elsewhere', async () => {
    const admin = KubeTransport.for(readKubeconfigFile(mgmt.kubeconfigPath)!);
    await admin.request({ method: 'POST', path: `/api/v1/namespaces/${NS}/serviceaccounts`, body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'status-reader' } } });
    const subjects = [{ kind: 'ServiceAccount', name: 'status-reader', namespace: NS }];
    await admin.request({ method: 'POST', path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', body: {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'status-reader' }, subjects,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'featuregate-hosted-status-reader' } } });
    await admin.request({ method: 'POST', path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`, body: {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'status-reader', namespace: NS }, subjects,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'featuregate-hosted-status-reader' } } });
    const path = join(tempDir('fgc-status-reader-'), 'kubeconfig');
    writeFileSync(path, (await serviceAccountKubeConfig(mgmt, NS, 'status-reader')).exportConfig());
    const reader = readKubeconfigFile(path)!;
    await eventually(async () => {
      const r = spawnCLI(['hosted', 'status', '--kubeconfig', path, '--namespace', NS, '-o', 'json']);
      let out = '';
      r.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
      const code = await new Promise<number | null>((resolve) => r.once('close', resolve));
      expect(code).toBe(0);
      expect((JSON.parse(out) as { hcp: string }[]).map((x) => x.hcp)).toEqual(['clusters-a/a']);
    }, 20_000, 500);
    await forbidden(new ResourceClient(reader, ConfigMapResource).list());
    await forbidden(new ResourceClient(reader, ConfigMapResource, undefined, { namespace: 'clusters-a' }).list());
    await forbidden(new ResourceClient(reader, SecretResource, undefined, { namespace: NS }).list());
  });
});
