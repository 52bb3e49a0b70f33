// The operator against a real control plane, fake versions fed through ClusterVersion, the real release
// series as payloads; once on our CRDs and once on openshift/api's.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareNames, type ClusterOperator, type FeatureGate } from '../../api-types/index.js';
import { ClusterOperatorResource, FeatureGateResource, ResourceClient, isNotFound } from '../../runtime/index.js';
import { startOperator, type RunningOperator } from '../../controllers/manager.js';
import {
  bundledCRDPaths, setClusterVersion, setFeatureGateSpec, startControlPlane, upgrade, upstreamCRDPaths, type ControlPlane,
} from '../../sdk/testing/index.js';
import { eventually, sleep } from '../support/timing.js';
import { PAYLOAD_ROOT } from '../support/payloads.js';

const dir = (release: string) => join(PAYLOAD_ROOT, 'releases', `release-${release}`);
const manifest = (release: string, set: string) => {
  const file = readdirSync(dir(release)).find((f) => f.endsWith(`SelfManagedHA-${set}.yaml`) || f === `featureGate-${set}.yaml`);
  return JSON.parse(readFileSync(join(dir(release), file!), 'utf8')).status.featureGates[0];
};
const defaultGates = (release: string) => {
  const m = manifest(release, 'Default');
  return {
    enabled: m.enabled.map((g: { name: string }) => g.name).sort(compareNames) as string[],
    total: (m.enabled.length + m.disabled.length) as number,
  };
};
const names = (xs: { name: string }[]) => xs.map((x) => x.name);

describe.each([
  ['our', bundledCRDPaths],
  ['upstream', upstreamCRDPaths],
])('operator on the %s CRDs', (_set, crds) => {
  let plane: ControlPlane;
  let fgs: ResourceClient<FeatureGate>;
  let cos: ResourceClient<ClusterOperator>;
  let op: RunningOperator | undefined;

  const run = async (version: string, release: string, okdBuild = false, metricsBindAddress = '127.0.0.1:0') => {
    await op?.stop();
    op = await startOperator({
      kubeConfig: plane.kubeConfig, operatorVersion: version, featureGateDir: dir(release),
      metricsBindAddress, metricsSecure: false, healthProbeBindAddress: '127.0.0.1:0', degradedInertiaMs: 0, okdBuild,
      reflector: { backoffInitialMs: 100, backoffMaxMs: 1000 },
    });
    return op;
  };
  const featureGate = () => fgs.get('cluster');
  const entries = async () => (await featureGate()).status?.featureGates ?? [];
  const condition = async (type: string) => (await cos.get('config-operator')).status?.conditions?.find((c) => c.type === type);
  const metric = async (name: string, labels = '') => {
    const text = await op!.metrics.metrics();
    const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `) || (labels && l.startsWith(name) && l.includes(labels)));
    return line ? Number(line.split(' ').pop()) : 0;
  };

  beforeAll(async () => {
    plane = await startControlPlane({ crdPaths: crds() });
    fgs = new ResourceClient(plane.kubeConfig, FeatureGateResource);
    cos = new ResourceClient(plane.kubeConfig, ClusterOperatorResource);
  }, 120_000);

  afterAll(async () => {
    await op?.stop();
    await plane?.stop();
  });

  it('fresh install: empty status gets one entry for the operator version listing every known gate', async () => {
    await setFeatureGateSpec(plane.kubeConfig, {});
    await setClusterVersion(plane.kubeConfig, { history: ['4.21.3'] });
    const running = await run('4.21.3', '4.21');
    await running.ready;
    const got = await eventually(async () => {
      const e = await entries();
      expect(e).toHaveLength(1);
      return e[0]!;
    });
    const { enabled, total } = defaultGates('4.21');
    expect(got.version).toBe('4.21.3');
    const ready = await fetch(`http://${running.healthAddress}/readyz`);
    expect(ready.status).toBe(200);
    expect(await (await fetch(`http://${running.healthAddress}/healthz`)).text()).toBe('ok');
    const metrics = await (await fetch(`http://${running.metricsAddress}/metrics`)).text();
    expect(metrics).toMatch(/controller_runtime_reconcile_total\{controller="FeatureGateController",result="requeue_after"\} [1-9]/);
    expect(metrics).toMatch(/featuregates_status_versions 1/);
    expect(metrics).toContain('process_open_fds');
    for (const g of enabled) expect(metrics).toContain(`featuregates_feature_enabled{name="${g}",version="4.21.3"} 1`);
    expect(metrics).toMatch(/featuregates_feature_enabled\{name="[^"]+",version="4\.21\.3"\} 0/);
    expect(names(got.enabled)).toEqual(enabled);
    expect(got.enabled.length + got.disabled.length).toBe(total);
    await eventually(async () => {
      const co = await cos.get('config-operator');
      expect(co.status?.versions).toEqual(expect.arrayContaining([{ name: 'operator', version: '4.21.3' }, { name: 'feature-gates', version: '4.21.3' }]));
      expect(co.status?.conditions?.find((c) => c.type === 'Upgradeable')).toMatchObject({ status: 'True', reason: 'AsExpected', message: 'All is well' });
      expect(co.status?.relatedObjects).toContainEqual({ group: 'config.openshift.io', resource: 'featuregates', name: 'cluster' });
    });
  }, 60_000);

  it('no-op: 50 ClusterVersion status updates that leave history alone cause zero FeatureGate writes', async () => {
    const before = await featureGate();
    const putsBefore = await metric('rest_client_requests_total', 'code="200",method="PUT",resource="featuregates"');
    for (let i = 0; i < 50; i++) {
      await setClusterVersion(plane.kubeConfig, { history: ['4.21.3'], extraStatus: { versionHash: `heartbeat-${i}` } });
    }
    await sleep(1500);
    const after = await featureGate();
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(await metric('rest_client_requests_total', 'code="200",method="PUT",resource="featuregates"')).toBe(putsBefore);
  }, 60_000);

  it('upgrade 4.21 → 4.22: two entries, the new one first, the old one byte-identical; then Completed', async () => {
    const old = (await entries())[0]!;
    const inProgress = await upgrade(plane.kubeConfig, '4.22.1');
    await sleep(500);
    expect(await entries()).toEqual([old]); // the old operator still runs: nothing to add yet
    await (await run('4.22.1', '4.22')).ready;
    const e = await eventually(async () => {
      const x = await entries();
      expect(x.map((y) => y.version)).toEqual(['4.22.1', '4.21.3']);
      return x;
    });
    expect(JSON.stringify(e[1])).toBe(JSON.stringify(old));
    expect(names(e[0]!.enabled)).toEqual(defaultGates('4.22').enabled);
    await eventually(async () => {
      expect((await cos.get('config-operator')).status?.versions).toContainEqual({ name: 'operator', version: '4.22.1' });
    });
    await inProgress.complete();
    await sleep(500);
    expect((await entries()).map((y) => y.version)).toEqual(['4.22.1', '4.21.3']);
  }, 60_000);

  it('prunes a version that leaves history, and recomputes a rollback target first', async () => {
    await setClusterVersion(plane.kubeConfig, { history: ['4.22.1'] });
    await eventually(async () => expect((await entries()).map((y) => y.version)).toEqual(['4.22.1']));
    await setClusterVersion(plane.kubeConfig, { history: [{ version: '4.21.3', state: 'Partial' }, '4.22.1', '4.21.3'] });
    await (await run('4.21.3', '4.21')).ready;
    const e = await eventually(async () => {
      const x = await entries();
      expect(x.map((y) => y.version)).toEqual(['4.21.3', '4.22.1']);
      return x;
    });
    expect(names(e[0]!.enabled)).toEqual(defaultGates('4.21').enabled);
    await setClusterVersion(plane.kubeConfig, { history: ['4.22.1', '4.21.3'] });
    await (await run('4.22.1', '4.22')).ready;
    await eventually(async () => expect((await entries()).map((y) => y.version)).toEqual(['4.22.1', '4.21.3']));
  }, 60_000);

  it('CustomNoUpgrade applies both lists; a name in both sets Degraded with the message and leaves status untouched', async () => {
    await setFeatureGateSpec(plane.kubeConfig, { featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: ['ExampleAlphaGate'], disabled: ['AzureWorkloadIdentity'] } });
    const e = await eventually(async () => {
      const x = (await entries())[0]!;
      expect(names(x.enabled)).toContain('ExampleAlphaGate');
      return x;
    });
    expect(names(e.disabled)).toContain('AzureWorkloadIdentity');
    expect(names(e.enabled)).not.toContain('AzureWorkloadIdentity');
    const old = (await entries())[1];
    await eventually(async () => expect(await condition('Upgradeable')).toMatchObject({
      status: 'False', reason: 'FeatureGates_RestrictedFeatureGates_CustomNoUpgrade', message: 'FeatureGatesUpgradeable: "CustomNoUpgrade" does not allow updates',
    }));
    const before = await featureGate();
    await setFeatureGateSpec(plane.kubeConfig, { featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: ['ExampleAlphaGate', 'Both'], disabled: ['Both'] } });
    await eventually(async () => expect(await condition('Degraded')).toMatchObject({
      status: 'True', reason: 'FeatureGateController_SyncError', message: 'FeatureGateControllerDegraded: unable to determine FeatureGateDetails from FeatureSets: trying to enable and disable "Both"',
    }));
    expect((await featureGate()).status).toEqual(before.status);
    expect((await entries())[1]).toEqual(old);
    await setFeatureGateSpec(plane.kubeConfig, { featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: ['ExampleAlphaGate'] } });
    await eventually(async () => expect(await condition('Degraded')).toMatchObject({ status: 'False', reason: 'AsExpected' }));
  }, 60_000);

  it('converges under concurrent spec edits while it writes status (409s retried)', async () => {
    const client = fgs;
    let last: string[] = [];
    for (let i = 0; i < 20; i++) {
      last = [`Concurrent${i}`, `Other${i % 3}`];
      const spec = { featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: last } };
      await setFeatureGateSpec(plane.kubeConfig, spec);
      if (i % 4 === 0) await sleep(5);
    }
    await eventually(async () => {
      const fg = await client.get('cluster');
      const head = fg.status!.featureGates[0]!;
      expect(head.version).toBe('4.22.1');
      for (const n of last) expect(names(head.enabled)).toContain(n);
      expect(names(head.enabled).filter((n) => n.startsWith('Concurrent'))).toEqual([last[0]]);
    });
  }, 60_000);

  it('reconverges after kube-apiserver is stopped and restarted, without restarting', async () => {
    await plane.restartAPIServer();
    await setClusterVersion(plane.kubeConfig, { history: ['4.22.1'] });
    await eventually(async () => expect((await entries()).map((y) => y.version)).toEqual(['4.22.1']), 30_000);
  }, 90_000);

  it('Default → TechPreviewNoUpgrade changes only the current entry and sets Upgradeable=False', async () => {
    // CustomNoUpgrade is one-way: start again from a fresh FeatureGate.
    await op?.stop();
    op = undefined;
    try { await fgs.delete('cluster'); } catch (e) { if (!isNotFound(e)) throw e; }
    await setFeatureGateSpec(plane.kubeConfig, {});
    await setClusterVersion(plane.kubeConfig, { history: ['4.22.1', '4.21.3'] });
    const { setFeatureGateStatus } = await import('../../sdk/testing/index.js');
    const oldEntry = { version: '4.21.3', enabled: ['OnlyInOld'], disabled: [] };
    await setFeatureGateStatus(plane.kubeConfig, [oldEntry]);
    await (await run('4.22.1', '4.22')).ready;
    await eventually(async () => expect((await entries()).map((y) => y.version)).toEqual(['4.22.1', '4.21.3']));
    await setFeatureGateSpec(plane.kubeConfig, { featureSet: 'TechPreviewNoUpgrade' });
    const tech = manifest('4.22', 'TechPreviewNoUpgrade');
    await eventually(async () => {
      const e = await entries();
      expect(names(e[0]!.enabled)).toEqual(names(tech.enabled).sort(compareNames));
      expect(e[1]).toEqual({ version: '4.21.3', enabled: [{ name: 'OnlyInOld' }], disabled: [] }); // as written, on the wire
    });
    await eventually(async () => expect(await condition('Upgradeable')).toEqual(expect.objectContaining({
      status: 'False', reason: 'FeatureGates_RestrictedFeatureGates_TechPreviewNoUpgrade',
      message: 'FeatureGatesUpgradeable: "TechPreviewNoUpgrade" does not allow updates',
    })));
  }, 90_000);

  it('OKD allows upgrades only on an OKD build, and resolves the OKD payload set', async () => {
    await op?.stop();
    op = undefined;
    await fgs.delete('cluster');
    await setFeatureGateSpec(plane.kubeConfig, { featureSet: 'OKD' });
    await (await run('4.22.1', '4.22')).ready;
    await eventually(async () => expect(await condition('Upgradeable')).toMatchObject({
      status: 'False', reason: 'FeatureGates_RestrictedFeatureGates_OKD', message: 'FeatureGatesUpgradeable: "OKD" does not allow updates',
    }));
    expect(names((await entries())[0]!.enabled)).toEqual(names(manifest('4.22', 'OKD').enabled).sort(compareNames));
    await (await run('4.22.1', '4.22', true)).ready;
    await eventually(async () => expect(await condition('Upgradeable')).toMatchObject({ status: 'True', reason: 'AsExpected', message: 'All is well' }));
  }, 60_000);

  it('collects process and runtime metrics only when metrics are served (their event-loop monitor costs idle CPU)', async () => {
    await (await run('4.22.1', '4.22', false, '0')).ready;
    expect(op!.metricsAddress).toBeUndefined();
    expect(op!.metrics.getSingleMetric('process_cpu_user_seconds_total')).toBeUndefined();
    expect(op!.metrics.getSingleMetric('nodejs_eventloop_lag_seconds')).toBeUndefined();
    expect(op!.metrics.getSingleMetric('rest_client_requests_total')).toBeDefined();
    await (await run('4.22.1', '4.22')).ready;
    expect(op!.metrics.getSingleMetric('process_cpu_user_seconds_total')).toBeDefined();
  }, 60_000);
});
