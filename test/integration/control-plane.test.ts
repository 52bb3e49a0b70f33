// The test control plane itself: serves, restarts on the same etcd, stops, leaves no orphans.
import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, VersionApi } from '@kubernetes/client-node';
import { bundledCRDPaths, startControlPlane } from '../../sdk/testing/index.js';
import { kubeConfig } from '../support/cluster.js';
import { featureGate, uniqueName } from '../support/objects.js';
import { processesMentioning as running } from '../support/processes.js';
import { sleep } from '../support/timing.js';
import { tempDirs } from '../support/temp.js';

const processesMentioning = (needle: string) => running(needle, 'start-and-wait');

describe('local control plane', () => {
  const tempDir = tempDirs();

  it(`serves kube-apiserver ${process.env.FGC_TEST_KUBE_VERSION ?? ''} with RBAC and the admin identity`, async () => {
    const kc = kubeConfig();
    const version = await kc.makeApiClient(VersionApi).getCode();
    console.log(`kube-apiserver under test: ${version.gitVersion}`);
    expect(version.gitVersion).toMatch(/^v1\.3[67]\.\d+$/);
    const ns = await kc.makeApiClient(CoreV1Api).readNamespace({ name: 'default' });
    expect(ns.metadata?.name).toBe('default');
  });

  it('restarts kube-apiserver on the same etcd, keeping objects, then stops without leftovers', async () => {
    const plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
    const { dir } = plane;
    try {
      const api = plane.kubeConfig.makeApiClient(CustomObjectsApi);
      const G = { group: 'config.openshift.io', version: 'v1', plural: 'featuregates' };
      const name = uniqueName('restart');
      await api.createClusterCustomObject({ ...G, body: featureGate(name, { featureSet: 'TechPreviewNoUpgrade' }) });
      const before = plane.pids.kubeAPIServer;
      await plane.restartAPIServer();
      expect(plane.pids.kubeAPIServer).not.toBe(before);
      const read = await api.getClusterCustomObject({ ...G, name });
      expect(read.spec.featureSet).toBe('TechPreviewNoUpgrade');
      expect(processesMentioning(dir).length).toBeGreaterThanOrEqual(2);
    } finally {
      await plane.stop();
    }
    expect(processesMentioning(dir)).toEqual([]);
    expect(existsSync(dir)).toBe(false);
  }, 180_000);

  it('leaves no etcd or kube-apiserver behind when the test runner is killed with SIGKILL', async () => {
    const report = join(tempDir('fgc-orphan-'), 'report.json');
    const runner = spawn(process.execPath, [
      '--experimental-vm-modules', '--disable-warning=ExperimentalWarning', 'node_modules/jest/bin/jest.js',
      '--config', 'test/fixtures/orphan/jest.config.js', '--runInBand',
    ], { env: { ...process.env, FGC_ORPHAN_REPORT: report }, stdio: 'ignore' });
    const deadline = Date.now() + 120_000;
    while (!existsSync(report) && Date.now() < deadline) await sleep(200);
    expect(existsSync(report)).toBe(true);
    const { dir } = JSON.parse(readFileSync(report, 'utf8')) as { dir: string };
    const children = processesMentioning(dir);
    expect(children.length).toBeGreaterThanOrEqual(2); // etcd and kube-apiserver (plus their reapers)
    runner.kill('SIGKILL');
    const gone = Date.now() + 30_000;
    while (processesMentioning(dir).length > 0 && Date.now() < gone) await sleep(200);
    expect(processesMentioning(dir)).toEqual([]);
    rmSync(dir, { recursive: true, force: true }); // the killed runner could not remove its folder
  }, 180_000);
});
