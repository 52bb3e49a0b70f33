// The operator-side CLI commands as a user runs them: start, status, operator flag errors.
import { describe, expect, it } from '@jest/globals';
import { runCLI, spawnCLI } from '../support/cli.js';
import { kubeconfigPath } from '../support/cluster.js';
import { eventually } from '../support/eventually.js';
import { processesMentioning } from '../support/processes.js';
import { bundledCRDPaths, setClusterVersion, setFeatureGateSpec, startControlPlane } from '../../sdk/testing/index.js';

describe('featuregates CLI (operator side)', () => {
  it('start: with no cluster configured runs a local control plane and the operator, prints status, and leaves nothing on Ctrl-C', async () => {
    const env = { KUBECONFIG: '', KUBERNETES_SERVICE_HOST: '' };
    const p = spawnCLI(['start'], env);
    let out = '';
    let err = '';
    p.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
    p.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
    await eventually(() => expect(out).toContain('press Ctrl-C to stop'), 90_000, 200)
      .catch((e: Error) => { throw new Error(`${e.message}\nstderr of featuregates start:\n${err.slice(-3000)}`); });
    expect(out).toMatch(/Feature set:\s+Default/);
    expect(out).toMatch(/4\.22\.0\s+3\s+5/);
    const dir = /KUBECONFIG=(\/\S+)\/kubeconfig/.exec(out)![1]!;
    expect(processesMentioning(dir).length).toBeGreaterThanOrEqual(2);
    const status = runCLI(['status', '--kubeconfig', `${dir}/kubeconfig`, '-o', 'json']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toEqual({
      featureSet: 'Default',
      upgradeable: { status: 'True', reason: 'AsExpected', message: 'All is well', source: 'clusteroperator/config-operator' },
      clusterVersion: { desired: '4.22.0', history: ['4.22.0'] },
      versions: [{ version: '4.22.0', enabled: 3, disabled: 5 }],
    });
    const exited = new Promise<number | null>((resolve) => p.once('exit', (c) => resolve(c)));
    p.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(err).toContain('local control plane stopped');
    expect(processesMentioning(dir)).toEqual([]);
  }, 120_000);

  it('start: with KUBECONFIG set runs the operator against that cluster (no local control plane)', async () => {
    const plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
    try {
      await setFeatureGateSpec(plane.kubeConfig, { featureSet: 'TechPreviewNoUpgrade' });
      await setClusterVersion(plane.kubeConfig, { history: ['4.22.0'] });
      const p = spawnCLI(['start'], { KUBECONFIG: plane.kubeconfigPath });
      let out = '';
      let err = '';
      p.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
      p.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
      await eventually(() => expect(out).toContain('press Ctrl-C to stop'), 60_000, 200);
      expect(err).toContain(`running the operator against ${plane.server}`);
      expect(err).not.toContain('starting a local control plane');
      expect(out).toMatch(/Feature set:\s+TechPreviewNoUpgrade/);
      expect(out).toMatch(/4\.22\.0\s+6\s+2/);
      const exited = new Promise<number | null>((resolve) => p.once('exit', (c) => resolve(c)));
      p.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      await plane.stop();
    }
  }, 120_000);

  it('operator: refuses an empty version and a bad profile with usage errors', () => {
    const empty = runCLI(['operator', '--authoritative-feature-gate-dir', '/tmp'], { OPERATOR_IMAGE_VERSION: '' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('the operator version is empty: pass --operator-version or set OPERATOR_IMAGE_VERSION');
    const profile = runCLI(['operator', '--operator-version', '4.22.0', '--authoritative-feature-gate-dir', '/tmp', '--cluster-profile', 'nope']);
    expect(profile.code).toBe(2);
    expect(profile.stderr).toContain('--cluster-profile must be one of self-managed-high-availability, ibm-cloud-managed');
    const help = runCLI(['operator', '--help']);
    expect(help.code).toBe(0);
    for (const flag of ['--kubeconfig', '--operator-version', '--authoritative-feature-gate-dir', '--cluster-profile', '--metrics-bind-address',
      '--health-probe-bind-address', '--leader-elect', '--leader-election-namespace', '--okd-build']) expect(help.stdout).toContain(flag);
  });

  it('status: explains a missing FeatureGate/cluster', () => {
    const r = runCLI(['status', '--kubeconfig', kubeconfigPath('ours')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('featuregates.config.openshift.io/cluster not found');
  });
});
