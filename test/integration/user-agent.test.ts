// Every request names its client, as client-go's do: the operator as `featuregates-operator/<v> (<os>/<arch>)`,
// an SDK accessor as `<component>/<version> featuregate-coordinator-sdk/<v>` — read back from kube-apiserver's
// audit log. A component that reads through the same kubeconfig with its own User-Agent keeps it after it
// starts an SDK accessor (the SDK used to set its own on the shared transport).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync, rmSync } from 'node:fs';
import { startOperator, type RunningOperator } from '../../controllers/manager.js';
import { ClusterVersionResource, ResourceClient, loadKubeConfig, packageVersion, withTransportConfig } from '../../runtime/index.js';
import { createFeatureGateAccess } from '../../sdk/index.js';
import { bundledCRDPaths, setClusterVersion, setFeatureGateSpec, startControlPlane, type ControlPlane } from '../../sdk/testing/index.js';
import { auditSetup, readAuditWrites } from '../support/audit.js';
import { PAYLOAD_DIR } from '../../hack/chaos/lib.js';
import { eventually } from '../support/timing.js';

describe('User-Agent', () => {
  const audit = auditSetup({ reads: true });
  let plane: ControlPlane;
  let op: RunningOperator | undefined;

  beforeAll(async () => {
    plane = await startControlPlane({ crdPaths: bundledCRDPaths(), extraAPIServerArgs: audit.apiServerArgs });
    await setFeatureGateSpec(plane.kubeConfig, {});
    await setClusterVersion(plane.kubeConfig, { history: ['4.22.1'] });
  }, 120_000);

  afterAll(async () => {
    await op?.stop();
    await plane?.stop();
    rmSync(audit.dir, { recursive: true, force: true });
  });

  it('the operator and an SDK accessor identify themselves', async () => {
    op = await startOperator({ kubeConfig: await loadKubeConfig(plane.kubeconfigPath), operatorVersion: '4.22.1', featureGateDir: PAYLOAD_DIR,
      metricsBindAddress: '0', healthProbeBindAddress: '0' });
    await op.ready;
    const access = createFeatureGateAccess({ kubeConfig: await loadKubeConfig(plane.kubeconfigPath), desiredVersion: '4.22.1', component: 'network-operator', onChange: () => undefined });
    access.start();
    await access.waitForInitial({ timeoutMs: 20_000 });
    await access.stop();
    const v = packageVersion();
    expect(v).toBe(JSON.parse(readFileSync('package.json', 'utf8')).version);
    await eventually(() => {
      const agents = new Set(readAuditWrites(audit.logPath).map((w) => w.userAgent));
      expect(agents).toContain(`featuregates-operator/${v} (linux/amd64)`);
      expect(agents).toContain(`network-operator/4.22.1 featuregate-coordinator-sdk/${v}`);
      expect([...agents].filter((a) => /node-fetch/.test(a))).toEqual([]);
    }, 10_000, 200);
  }, 60_000);

  it('a component keeps its own User-Agent on the kubeconfig it hands the SDK', async () => {
    const mine = withTransportConfig(await loadKubeConfig(plane.kubeconfigPath), { userAgent: 'dns-operator/9.9.9' });
    const cvs = new ResourceClient(mine, ClusterVersionResource);
    await cvs.get('version');
    const access = createFeatureGateAccess({ kubeConfig: mine, desiredVersion: '4.22.1', component: 'dns-operator', onChange: () => undefined });
    access.start();
    await access.waitForInitial({ timeoutMs: 20_000 });
    await cvs.get('version'); // after the SDK made its transport: still the component's own
    await access.stop();
    await eventually(() => {
      const byAgent = readAuditWrites(audit.logPath).filter((w) => w.userAgent.startsWith('dns-operator/'));
      expect(byAgent.filter((w) => w.userAgent === 'dns-operator/9.9.9' && w.verb === 'get' && w.resource === 'clusterversions').length).toBe(2);
      expect(byAgent.some((w) => w.userAgent === `dns-operator/4.22.1 featuregate-coordinator-sdk/${packageVersion()}`)).toBe(true);
    }, 10_000, 200);
  }, 60_000);
});
