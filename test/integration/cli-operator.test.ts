// The operator-side CLI commands as a user runs them: start, status, operator flag errors.
import { afterEach, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCLI, spawnCLI } from '../support/cli.js';
import { kubeconfigPath } from '../support/cluster.js';
import { eventually } from '../support/timing.js';
import { processesMentioning } from '../support/processes.js';
import { tempDirs } from '../support/temp.js';
import { bundledCRDPaths, resolveBinaries, setClusterVersion, setFeatureGateSpec, startControlPlane } from '../../sdk/testing/index.js';

// Children a test started are killed when it ends, passed or failed (a left-over `start` keeps Jest alive).
const cleanups: (() => void)[] = [];
const afterTest = (fn: () => void) => cleanups.push(fn);
afterEach(() => { for (const fn of cleanups.splice(0)) fn(); });
const tempDir = tempDirs();

describe('featuregates CLI (operator side)', () => {
  it('start: with no cluster configured runs a local control plane and the operator, prints status, and leaves nothing on Ctrl-C', async () => {
    // Its own temp dir: simulate and status find "the newest running featuregates start" through records there,
    // and any other `featuregates start` on the machine (another Jest worker's, a user's) must not be the newest.
    const env = { KUBECONFIG: '', KUBERNETES_SERVICE_HOST: '', TMPDIR: tempDir('fgc-cli-operator-') };
    const p = spawnCLI(['start'], env, { ownGroup: true });
    afterTest(() => { if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL'); });
    let out = '';
    let err = '';
    p.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
    p.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
    await eventually(() => expect(out).toContain('press Ctrl-C to stop'), 90_000, 200)
      .catch((e: Error) => { throw new Error(`${e.message}\nstderr of featuregates start:\n${err.slice(-3000)}`); });
    expect(out).toMatch(/Feature set:\s+Default/);
    expect(out).toMatch(/4\.22\.0\s+4\s+5/);
    // Hints that work on any Node from the project folder (npx runs the provisioned Node 24), and the kubeconfig.
    expect(out).toContain('npx featuregates simulate upgrade --to 4.23.0');
    expect(out).toContain('npx featuregates status');
    expect(out).not.toContain('node dist/cli');
    const dir = /export KUBECONFIG=(\/\S+)\/kubeconfig/.exec(out)![1]!;
    // The admission policies are installed and the operator runs where their binding reads its params: a
    // misspelt custom gate warns at apply time (dry run: the cluster keeps its Default feature set).
    await eventually(() => {
      const dryRun = spawnSync(resolveBinaries().kubectl!, ['--kubeconfig', `${dir}/kubeconfig`, 'apply', '--dry-run=server', '--server-side',
        '--force-conflicts', '--field-manager=start-test', '-f', '-'], { encoding: 'utf8',
        input: 'apiVersion: config.openshift.io/v1\nkind: FeatureGate\nmetadata: {name: cluster}\nspec: {featureSet: CustomNoUpgrade, customNoUpgrade: {enabled: [ExampleGatewayAP]}}\n' });
      expect(dryRun.stderr).toContain('"ExampleGatewayAP" (did you mean "ExampleGatewayAPI"?)');
    }, 15_000, 500);
    expect(processesMentioning(dir).length).toBeGreaterThanOrEqual(2);
    // docs/sdk.md's first example, as written, against this cluster (Node 24 strips its types; it imports the
    // package by name, so it runs from a folder inside the package).
    const snippetDir = join(process.cwd(), '.cache', 'sdk-first-example');
    mkdirSync(snippetDir, { recursive: true });
    const firstExample = /^```ts\n([\s\S]*?)^```$/m.exec(readFileSync('docs/sdk.md', 'utf8'))![1]!;
    writeFileSync(join(snippetDir, 'first.ts'), firstExample);
    const sdkRun = spawnSync(process.execPath, [join(snippetDir, 'first.ts')], { encoding: 'utf8', timeout: 60_000,
      env: { ...process.env, KUBECONFIG: `${dir}/kubeconfig`, OPERATOR_IMAGE_VERSION: '' } });
    expect({ code: sdkRun.status, stderr: sdkRun.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    expect(sdkRun.stdout).toContain("'--feature-gates=ExampleGatewayAPI=true'");
    expect(sdkRun.stdout).toContain("'--feature-gates=ExampleNodeSwap=false'");
    const status = runCLI(['status', '--kubeconfig', `${dir}/kubeconfig`, '-o', 'json']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toEqual({
      featureSet: 'Default',
      upgradeable: { status: 'True', reason: 'AsExpected', message: 'All is well', source: 'clusteroperator/config-operator' },
      clusterVersion: { desired: '4.22.0', history: ['4.22.0'] },
      versions: [{ version: '4.22.0', enabled: 4, disabled: 5, enabledNames: expect.any(Array), disabledNames: expect.any(Array) }],
      // The example payload's gates are made up but one, APIResponseCompression, which kube-apiserver was started with.
      runningGates: { component: 'kube-apiserver', version: '4.22.0', verdict: 'match', checked: 1, mismatches: [] },
      // The cluster has completed 4.22.0: the rules of the Kubernetes its API server runs (not 4.22's 1.35: a local plane).
      gatesThatStart: { version: '4.22.0', kubernetesVersion: '1.36.3', kubernetesSource: 'the API server\'s /version', starts: true, refusedBy: [], problems: [] },
    });

    // simulate upgrade (kubeconfig from the running start): history as the CVO writes it, the local cluster
    // rolls its operator to 4.23.0, and status gains the new entry first; --complete closes the upgrade.
    const up = runCLI(['simulate', 'upgrade', '--to', '4.23.0'], env);
    expect(up.code).toBe(0);
    const server = /cluster: (https:\/\/127\.0\.0\.1:\d+)\n/.exec(up.stdout)?.[1];
    expect(server).toBeDefined();
    expect(up.stderr).toContain(`using the local cluster of \`featuregates start\` (pid ${p.pid}) at ${server}`);
    expect(up.stdout).toContain('history: 4.23.0 (Partial), 4.22.0 (Completed)');
    await eventually(() => {
      const s = JSON.parse(runCLI(['status', '--kubeconfig', `${dir}/kubeconfig`, '-o', 'json']).stdout);
      expect(s.versions.map((v: { version: string }) => v.version)).toEqual(['4.23.0', '4.22.0']);
    }, 30_000, 200);
    await eventually(() => expect(err).toContain('rolling the operator from 4.22.0 to 4.23.0'), 10_000, 100); // runCLI blocks the loop that reads stderr
    const done = runCLI(['simulate', 'upgrade', '--to', '4.23.0', '--complete'], env);
    expect(done.code).toBe(0);
    expect(done.stdout).toContain('history: 4.23.0 (Completed), 4.22.0 (Completed)');
    // status finds the local cluster as simulate does, and says so on stderr (stdout stays JSON).
    const found = runCLI(['status', '-o', 'json'], env);
    expect(found.code).toBe(0);
    expect(JSON.parse(found.stdout).versions.map((v: { version: string }) => v.version)).toEqual(['4.23.0', '4.22.0']);
    expect(found.stderr).toContain(`(pid ${p.pid}) at ${server}`);

    // Ctrl-C as a terminal sends it: SIGINT to the whole foreground process group. The control plane is in
    // its own group, so it outlives the operator's Lease release.
    const exited = new Promise<number | null>((resolve) => p.once('exit', (c) => resolve(c)));
    process.kill(-p.pid!, 'SIGINT');
    expect(await exited).toBe(0);
    expect(err).toContain('local control plane stopped');
    expect(err.slice(err.indexOf('stopping...'))).toContain('"released leader lease"');
    expect(err).not.toContain('could not release leader lease');
    // Nothing a newcomer should worry about: no warning in a normal start, upgrade and stop (kube-apiserver's
    // "429 storage is (re)initializing" while it starts is waited out, as its Retry-After asks).
    expect(err).not.toContain('"level":"warn"');
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
      expect(out).toMatch(/4\.22\.0\s+7\s+2/);
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
    // The operator sends its credentials to the components it checks: https only, and a CA file it can read.
    const plain = runCLI(['operator', '--operator-version', '4.22.0', '--authoritative-feature-gate-dir', '/tmp', '--running-gates-component', 'kube-scheduler=http://127.0.0.1:10259']);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('--running-gates-component kube-scheduler: http://127.0.0.1:10259 is not https');
    const ca = runCLI(['operator', '--operator-version', '4.22.0', '--authoritative-feature-gate-dir', '/tmp', '--running-gates-component-ca-file', '/nonexistent.pem']);
    expect(ca.code).toBe(2);
    expect(ca.stderr).toContain('--running-gates-component-ca-file goes with --running-gates-component');
    const help = runCLI(['operator', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--running-gates-component VALUE +also check .* \(repeatable\)/);
    for (const flag of ['--kubeconfig', '--operator-version', '--authoritative-feature-gate-dir', '--cluster-profile', '--metrics-bind-address',
      '--health-probe-bind-address', '--leader-elect', '--leader-election-namespace', '--okd-build']) expect(help.stdout).toContain(flag);
  });

  it('status: explains a missing FeatureGate/cluster', () => {
    const r = runCLI(['status', '--kubeconfig', kubeconfigPath('ours')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('featuregates.config.openshift.io/cluster not found');
  });
});
