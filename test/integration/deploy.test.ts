// deploy/: every manifest the overlays render is accepted by the API server, and the RBAC is proven by
// running the operator (and an SDK accessor) as their ServiceAccounts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import { apiServerCRDPath } from '../../control-plane/crds.js';
import { dirname, join, relative } from 'node:path';
import { CoordinationV1Api, CoreV1Api, RbacAuthorizationV1Api, V1MicroTime } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { startOperator, type RunningOperator } from '../../controllers/manager.js';
import { ClusterOperatorResource, ClusterVersionResource, FeatureGateResource, KubeTransport, ResourceClient } from '../../runtime/index.js';
import { createFeatureGateAccess } from '../../sdk/index.js';
import {
  resolveBinaries,
  serviceAccountKubeConfig,
  setClusterVersion,
  setFeatureGateSpec,
  startControlPlane,
  upgrade,
  upstreamCRDPaths,
  type ControlPlane,
} from '../../sdk/testing/index.js';
import { runCLI, spawnCLI } from '../support/cli.js';
import { eventually } from '../support/timing.js';
import { forbidden } from '../support/forbidden.js';
import { tempDirs } from '../support/temp.js';

const tempDir = tempDirs();

const NS = 'featuregate-coordinator';
const kubectl = resolveBinaries().kubectl;

function render(overlay: string): { kind: string; metadata: { name: string; namespace?: string } }[] {
  const out = execFileSync(kubectl!, ['kustomize', join('deploy', 'overlays', overlay)], { encoding: 'utf8' });
  return parseAllDocuments(out).map((d) => d.toJS()).filter(Boolean);
}

function apply(plane: ControlPlane, docs: object[], dryRun: boolean): string {
  const input = docs.map((d) => JSON.stringify(d)).join('\n');
  return execFileSync(kubectl!, ['--kubeconfig', plane.kubeconfigPath, 'apply', '--server-side', '--field-manager=deploy-test',
    ...(dryRun ? ['--dry-run=server'] : []), '-f', '-'], { input, encoding: 'utf8' });
}

describe('deploy manifests', () => {
  it('kubectl is available for kustomize rendering', () => {
    expect(kubectl).toBeDefined();
  });

  it('openshift overlay: every rendered manifest is accepted (server-side apply, dry run) where the CRDs exist', async () => {
    const plane = await startControlPlane({ crdPaths: [...upstreamCRDPaths(), join('test', 'fixtures', 'crds', 'servicemonitors.monitoring.coreos.com.yaml')] });
    try {
      const docs = render('openshift');
      expect(docs.map((d) => d.kind)).toEqual(expect.arrayContaining(['Deployment', 'ServiceMonitor', 'ClusterRole', 'Role', 'Service']));
      expect(docs.map((d) => d.kind)).not.toContain('CustomResourceDefinition');
      // OpenShift's lease timing; the vanilla overlay keeps client-go's defaults (no timing flags).
      const args = (ds: Record<string, unknown>[]) => JSON.stringify(ds.find((d) => d.kind === 'Deployment'));
      expect(args(docs)).toContain('--leader-elect-lease-duration=137s","--leader-elect-renew-deadline=107s","--leader-elect-retry-period=26s');
      expect(args(render('vanilla'))).not.toContain('--leader-elect-lease-duration');
      apply(plane, docs.filter((d) => d.kind === 'Namespace'), false);
      const out = apply(plane, docs, true);
      expect(out.split('\n').filter((l) => l.includes('serverside-applied')).length).toBe(docs.length);
    } finally {
      await plane.stop();
    }
  }, 120_000);

  describe('vanilla overlay with RBAC proven', () => {
    let plane: ControlPlane;
    let op: RunningOperator | undefined;

    beforeAll(async () => {
      plane = await startControlPlane({});
      const docs = render('vanilla');
      expect(docs.filter((d) => d.kind === 'CustomResourceDefinition')).toHaveLength(3);
      apply(plane, docs.filter((d) => d.kind === 'Namespace' || d.kind === 'CustomResourceDefinition'), false);
      await plane.installCRDs([join('deploy', 'crds', 'featuregates.config.openshift.io.yaml'), join('deploy', 'crds', 'clusterversions.config.openshift.io.yaml'),
        join('deploy', 'crds', 'clusteroperators.config.openshift.io.yaml')]); // waits until they are served
      const out = apply(plane, docs, true);
      expect(out.split('\n').filter((l) => l.includes('serverside-applied')).length).toBe(docs.length);
      apply(plane, docs.filter((d) => ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'].includes(d.kind)), false);
    }, 120_000);

    afterAll(async () => {
      await op?.stop();
      await plane?.stop();
    });

    it('the operator runs as its ServiceAccount through an upgrade, and nothing outside its role is allowed', async () => {
      const sa = await serviceAccountKubeConfig(plane, NS, 'featuregate-operator');
      await setFeatureGateSpec(plane.kubeConfig, {});
      await setClusterVersion(plane.kubeConfig, { history: ['4.22.0'] });
      op = await startOperator({
        kubeConfig: sa, operatorVersion: '4.22.0', featureGateDir: join('deploy', 'base', 'payload'), namespace: NS,
        leaderElect: true, leaderElectionNamespace: NS, metricsBindAddress: '0', healthProbeBindAddress: '0',
      });
      await op.ready;
      const fgs = new ResourceClient(plane.kubeConfig, FeatureGateResource);
      await eventually(async () => expect((await fgs.get('cluster')).status?.featureGates.map((e) => e.version)).toEqual(['4.22.0']));
      // The admission policy's params follow the operator's payload through the upgrade (beside them, the
      // gates-that-start keys for the API server's Kubernetes version, read with the operator's own RBAC).
      const params = async () => (await plane.kubeConfig.makeApiClient(CoreV1Api).readNamespacedConfigMap({ name: 'featuregate-known-gates', namespace: NS })).data ?? {};
      const payloadKeys = async () => Object.keys(await params()).filter((k) => k.startsWith('gates.')).sort();
      await eventually(async () => expect(await payloadKeys()).toEqual(['gates.4.22.0']));
      expect((await params())['start.kubernetes']).toMatch(/^1\.\d+\.\d+$/);
      expect((await params())['gates.4.22.0']!.split(',')).toContain('ExampleGatewayAPI');
      const inProgress = await upgrade(plane.kubeConfig, '4.23.0');
      await op.stop();
      op = await startOperator({
        kubeConfig: sa, operatorVersion: '4.23.0', featureGateDir: join('deploy', 'base', 'payload'), namespace: NS,
        leaderElect: true, leaderElectionNamespace: NS, metricsBindAddress: '0', healthProbeBindAddress: '0',
      });
      await op.ready;
      await eventually(async () => expect((await fgs.get('cluster')).status?.featureGates.map((e) => e.version)).toEqual(['4.23.0', '4.22.0']));
      await eventually(async () => expect(await payloadKeys()).toEqual(['gates.4.22.0', 'gates.4.23.0']));
      await inProgress.complete();
      await setClusterVersion(plane.kubeConfig, { history: ['4.23.0'] });
      await eventually(async () => expect((await fgs.get('cluster')).status?.featureGates.map((e) => e.version)).toEqual(['4.23.0']));
      await eventually(async () => expect(await payloadKeys()).toEqual(['gates.4.23.0']));
      const co = await new ResourceClient(plane.kubeConfig, (await import('../../runtime/index.js')).ClusterOperatorResource).get('config-operator');
      expect(co.status?.versions).toContainEqual({ name: 'operator', version: '4.23.0' });
      const events = await plane.kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace: NS });
      const update = events.items.find((e) => e.reason === 'FeatureGateUpdate' && e.message?.includes('Version="4.23.0"'));
      expect(update?.message).toMatch(/^FeatureSet="", Version="4\.23\.0", Enabled="[A-Za-z,]+", Disabled="[A-Za-z,]+"$/);
      expect(update?.related).toMatchObject({ kind: 'FeatureGate', name: 'cluster' });
      const lease = await plane.kubeConfig.makeApiClient(CoordinationV1Api).readNamespacedLease({ name: 'config-operator-lock', namespace: NS });
      expect(lease.spec?.holderIdentity).toBeTruthy();

      // outside its role
      const saFgs = new ResourceClient(sa, FeatureGateResource);
      const fg = await saFgs.get('cluster');
      await forbidden(saFgs.replace({ ...fg, spec: { featureSet: 'TechPreviewNoUpgrade' } }));
      await forbidden(new ResourceClient(sa, ClusterVersionResource).delete('version'));
      await forbidden(sa.makeApiClient(CoordinationV1Api).createNamespacedLease({ namespace: 'default', body: {
        metadata: { name: 'steal', namespace: 'default' }, spec: { holderIdentity: 'x', renewTime: new V1MicroTime() } } }));
      await forbidden(sa.makeApiClient(CoreV1Api).listNamespacedSecret({ namespace: NS }));
      await forbidden(new ResourceClient(sa, (await import('../../runtime/index.js')).ClusterOperatorResource).delete('config-operator'));
    }, 120_000);

    it('/metrics and the z-pages over HTTPS, with the cluster\'s TLS profile: 401 without a token, 403 without the role, 200 with featuregate-metrics-reader (TokenReview + SubjectAccessReview as the operator\'s ServiceAccount)', async () => {
      // The cluster's TLS profile, which secure metrics follow (get/list/watch of apiservers named cluster).
      await plane.installCRDs([apiServerCRDPath()]);
      await KubeTransport.for(plane.kubeConfig).request({ method: 'POST', path: '/apis/config.openshift.io/v1/apiservers',
        body: { apiVersion: 'config.openshift.io/v1', kind: 'APIServer', metadata: { name: 'cluster' }, spec: { tlsSecurityProfile: { type: 'Modern', modern: {} } } } });
      const sa = await serviceAccountKubeConfig(plane, NS, 'featuregate-operator');
      const secure = await startOperator({
        kubeConfig: sa, operatorVersion: '4.23.0', featureGateDir: join('deploy', 'base', 'payload'), namespace: NS,
        metricsBindAddress: '127.0.0.1:0', healthProbeBindAddress: '0', zpages: { name: 'featuregates-operator', flags: {} },
      });
      try {
        expect(secure.metricsScheme).toBe('https');
        const core = plane.kubeConfig.makeApiClient(CoreV1Api);
        for (const name of ['scraper', 'stranger']) await core.createNamespacedServiceAccount({ namespace: 'default', body: { metadata: { name } } });
        await plane.kubeConfig.makeApiClient(RbacAuthorizationV1Api).createClusterRoleBinding({ body: {
          metadata: { name: 'scraper-metrics' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'featuregate-metrics-reader' },
          subjects: [{ kind: 'ServiceAccount', name: 'scraper', namespace: 'default' }] } });
        const tokenOf = async (name: string) => (await core.createNamespacedServiceAccountToken({ name, namespace: 'default', body: { spec: { audiences: [] } } })).status!.token;
        const scrape = (token?: string, path = '/metrics') => new Promise<{ code: number; body: string }>((resolve, reject) => {
          const [host, port] = secure.metricsAddress!.split(':');
          httpsRequest({ host, port: Number(port), path, rejectUnauthorized: false, headers: token ? { Authorization: `Bearer ${token}` } : {} }, (res) => {
            let body = '';
            res.on('data', (d: Buffer) => { body += d.toString(); });
            res.on('end', () => resolve({ code: res.statusCode ?? 0, body }));
          }).on('error', reject).end();
        });
        expect((await scrape()).code).toBe(401);
        expect((await scrape('not-a-token')).code).toBe(401);
        const denied = await scrape(await tokenOf('stranger'));
        expect(denied.code).toBe(403);
        expect(denied.body).toContain('system:serviceaccount:default:stranger');
        const ok = await scrape(await tokenOf('scraper'));
        expect(ok.code).toBe(200);
        expect(ok.body).toContain('controller_runtime_reconcile_total');
        // Modern, read as the operator's ServiceAccount: a TLS 1.2 client is turned away.
        await eventually(async () => {
          const [host, port] = secure.metricsAddress!.split(':');
          const tls12 = await new Promise<boolean>((resolve) => {
            const sock = tlsConnect({ host, port: Number(port), rejectUnauthorized: false, maxVersion: 'TLSv1.2' }, () => { sock.end(); resolve(true); });
            sock.on('error', () => resolve(false));
          });
          expect(tls12).toBe(false);
        }, 20_000);
        // The same role reads the z-pages; no role, no z-pages.
        for (const path of ['/statusz', '/flagz']) {
          expect([path, (await scrape(await tokenOf('scraper'), path)).code, (await scrape(await tokenOf('stranger'), path)).code]).toEqual([path, 200, 403]);
        }
      } finally {
        await secure.stop();
      }
    }, 60_000);

    it('an SDK accessor works with the featuregate-reader role, and cannot write', async () => {
      const core = plane.kubeConfig.makeApiClient(CoreV1Api);
      await core.createNamespacedServiceAccount({ namespace: 'default', body: { metadata: { name: 'component' } } });
      await plane.kubeConfig.makeApiClient(RbacAuthorizationV1Api).createClusterRoleBinding({ body: {
        metadata: { name: 'component-featuregates' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'featuregate-reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'component', namespace: 'default' }] } });
      const sa = await serviceAccountKubeConfig(plane, 'default', 'component');
      const access = createFeatureGateAccess({ kubeConfig: sa, desiredVersion: '4.23.0', onChange: () => undefined });
      access.start();
      try {
        const gates = await access.waitForInitial({ timeoutMs: 20_000 });
        expect(gates.known().length).toBe(9);
      } finally {
        await access.stop();
      }
      const fgs = new ResourceClient(sa, FeatureGateResource);
      const fg = await fgs.get('cluster');
      await forbidden(fgs.replaceStatus({ ...fg, status: { featureGates: [] } }));
      await forbidden(fgs.replace({ ...fg, spec: { featureSet: 'TechPreviewNoUpgrade' } }));
    }, 60_000);

    it('admission: kubectl apply warns about a misspelt custom gate (with the known name) and about a one-way switch; the Deny component refuses it', async () => {
      const policies = render('vanilla').filter((d) => d.kind.startsWith('ValidatingAdmissionPolicy'));
      expect(policies.map((d) => d.metadata.name).sort()).toEqual([
        'featuregates-gates-that-start', 'featuregates-gates-that-start',
        'featuregates-irreversible-feature-set', 'featuregates-irreversible-feature-set', 'featuregates-known-gates', 'featuregates-known-gates']);
      apply(plane, policies, false);
      const fg = (featureSet: string, enabled: string[]) => JSON.stringify({
        apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', metadata: { name: 'cluster' },
        spec: featureSet ? { featureSet, customNoUpgrade: { enabled, disabled: [] } } : {},
      });
      // Server-side dry runs go through admission and change nothing, so the one-way switch can be tried repeatedly.
      const tryApply = (doc: string) => spawnSync(kubectl!, ['--kubeconfig', plane.kubeconfigPath, 'apply', '--server-side', '--force-conflicts',
        '--field-manager=admission-test', '--dry-run=server', '-f', '-'], { input: doc, encoding: 'utf8' });
      await eventually(async () => {
        const r = tryApply(fg('CustomNoUpgrade', ['ExampleGatewayAP', 'ExampleNodeSwap']));
        expect(r.status).toBe(0);
        expect(r.stderr).toMatch(/^Warning: .*'featuregates-known-gates'.*: spec\.customNoUpgrade names feature gates the payload does not know: "ExampleGatewayAP" \(did you mean "ExampleGatewayAPI"\?\)\./m);
        expect(r.stderr).not.toContain('ExampleNodeSwap');
        expect(r.stderr).toMatch(/^Warning: .*: spec\.featureSet CustomNoUpgrade cannot be undone/m);
      }, 30_000);
      const correct = tryApply(fg('CustomNoUpgrade', ['ExampleGatewayAPI']));
      expect(correct.status).toBe(0);
      expect(correct.stderr).not.toContain('does not know');
      const quiet = tryApply(fg('', []));
      expect(quiet.status).toBe(0);
      expect(quiet.stderr).toBe('');

      const overlay = tempDir('fgc-deny-');
      writeFileSync(join(overlay, 'kustomization.yaml'), ['apiVersion: kustomize.config.k8s.io/v1beta1', 'kind: Kustomization',
        `resources: [${relative(overlay, join(process.cwd(), 'deploy', 'base', 'admission'))}]`,
        `components: [${relative(overlay, join(process.cwd(), 'deploy', 'components', 'deny-unknown-gates'))}]`, ''].join('\n'));
      const denyDocs = parseAllDocuments(execFileSync(kubectl!, ['kustomize', overlay], { encoding: 'utf8' })).map((d) => d.toJS()).filter(Boolean);
      apply(plane, denyDocs, false);
      await eventually(async () => {
        const r = tryApply(fg('CustomNoUpgrade', ['ExampleGatewayAP']));
        expect(r.status).not.toBe(0);
        expect(r.stderr).toMatch(/denied request: .*spec\.customNoUpgrade names feature gates the payload does not know: "ExampleGatewayAP" \(did you mean "ExampleGatewayAPI"\?\)/);
      }, 30_000);
      expect(tryApply(fg('CustomNoUpgrade', ['ExampleGatewayAPI'])).status).toBe(0);
    }, 120_000);
  });

  describe('vanilla overlay as shipped, installed as docs/deploy.md says', () => {
    let plane: ControlPlane;
    let proc: ChildProcess | undefined;

    afterAll(async () => {
      proc?.kill('SIGKILL');
      await plane?.stop();
    });

    it('starts on a plain cluster: the rendered Deployment\'s args and env, the docs\' singletons, as its ServiceAccount', async () => {
      plane = await startControlPlane({});
      const docs = render('vanilla') as Doc[];
      // The CRDs served first (installCRDs waits for them), then the whole overlay as a user applies it.
      await plane.installCRDs(['featuregates', 'clusterversions', 'clusteroperators'].map((r) => join('deploy', 'crds', `${r}.config.openshift.io.yaml`)));
      apply(plane, docs, false);

      // The docs' block that creates FeatureGate/cluster and ClusterVersion/version, run as written.
      const section = readFileSync('docs/deploy.md', 'utf8').split('## Install on vanilla Kubernetes')[1]!.split('\n## ')[0]!;
      const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
      const singletons = blocks.find((b) => b.includes('kind: ClusterVersion'))!;
      expect(singletons).toContain('--subresource=status');
      // stdin not a socket (Node's default pipe is one): bash would take itself for an rsh session and read
      // /etc/bash.bashrc, which fails under -u when SHLVL is unset (a background job's environment).
      const sh = spawnSync('bash', ['-euo', 'pipefail', '-c', singletons], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, KUBECONFIG: plane.kubeconfigPath, PATH: `${dirname(kubectl!)}:${process.env.PATH}` } });
      expect(sh.stderr).toBe('');
      expect(sh.status).toBe(0);

      // The container as the kubelet would start it: its args and env, the payload ConfigMap as its volume.
      const deployment = docs.find((d) => d.kind === 'Deployment')!;
      const pod = (
        deployment.spec as { template: { spec: { containers: Container[]; volumes: { name: string; configMap: { name: string } }[] } } }
      ).template.spec;
      const container = pod.containers[0]!;
      expect(container.image).toBe('localhost/featuregate-coordinator:0.1.0');
      const payloadDir = tempDir('fgc-vanilla-payload-');
      const mount = container.volumeMounts.find((m) => m.name === 'payload')!;
      const cm = docs.find((d) => d.kind === 'ConfigMap' && d.metadata.name === pod.volumes.find((v) => v.name === 'payload')!.configMap.name)!;
      for (const [file, text] of Object.entries(cm.data!)) writeFileSync(join(payloadDir, file), text);
      const env = Object.fromEntries(container.env.filter((e) => e.value !== undefined).map((e) => [e.name, e.value!]));
      const version = env.OPERATOR_IMAGE_VERSION!;
      expect(section).toContain(`"version": "${version}"`);
      const args = container.args.map((a) => a.replace(mount.mountPath, payloadDir)
        .replace(/^--metrics-bind-address=.*/, '--metrics-bind-address=127.0.0.1:0').replace(/^--health-probe-bind-address=.*/, '--health-probe-bind-address=127.0.0.1:0'));
      const sa = join(tempDir('fgc-vanilla-sa-'), 'kubeconfig');
      writeFileSync(sa, (await serviceAccountKubeConfig(plane, NS, 'featuregate-operator')).exportConfig());
      proc = spawnCLI([...args, '--kubeconfig', sa], { ...env, POD_NAMESPACE: NS });
      let log = '';
      proc.stderr!.on('data', (d: Buffer) => { log += d.toString(); });
      const fgs = new ResourceClient(plane.kubeConfig, FeatureGateResource);
      await eventually(async () => {
        expect(proc!.exitCode).toBeNull();
        expect((await fgs.get('cluster')).status?.featureGates.map((e) => e.version)).toEqual([version]);
        const co = await new ResourceClient(plane.kubeConfig, ClusterOperatorResource).get('config-operator');
        expect(co.status?.versions).toContainEqual({ name: 'operator', version });
      }, 60_000, 300).catch((e: Error) => { throw new Error(`${e.message}\noperator log:\n${log.slice(-3000)}`); });
      const status = runCLI(['status', '--kubeconfig', plane.kubeconfigPath]);
      expect(status.stdout).toMatch(/Feature set:\s+Default/);
      expect(status.stdout).toMatch(new RegExp(`${version.replace(/\./g, '\\.')}\\s+4\\s+5`));
      expect(log).not.toContain('Forbidden');
    }, 120_000);
  });
});

interface Doc { kind: string; metadata: { name: string; namespace?: string }; spec?: unknown; data?: Record<string, string> }
interface Container {
  image: string; args: string[]; env: { name: string; value?: string }[]; volumeMounts: { name: string; mountPath: string }[];
}

