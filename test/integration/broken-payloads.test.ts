// A broken payload is an error on every path, never a status: a CustomNoUpgrade spec over a payload with no
// Default set for this version and profile (the defect: every other gate vanished, exit 0), two manifests
// claiming one set, profile and major (one silently used), and a manifest whose status entry is for another
// version. The CLI exits 1 (diff: 2, its "trouble"); the operator writes nothing and reports Degraded.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClusterOperatorResource, FeatureGateResource, ResourceClient } from '../../runtime/index.js';
import { bundledCRDPaths, setClusterVersion, setFeatureGateSpec, startControlPlane, type ControlPlane } from '../../sdk/testing/index.js';
import { runCLI, spawnCLI } from '../support/cli.js';
import { eventually } from '../support/timing.js';
import { tempDirs } from '../support/temp.js';

const tempDir = tempDirs();
const RELEASE = join(process.cwd(), 'test', 'fixtures', 'openshift-api', 'payload-featuregates', 'releases', 'release-5.0');
const DEFAULT = 'featureGate-4-10-SelfManagedHA-Default.yaml';

/** release-5.0's SelfManagedHA files, with `change` applied to the folder. */
function payload(change: (dir: string) => void): string {
  const dir = tempDir('fgc-broken-');
  for (const f of readdirSync(RELEASE).filter((n) => n.includes('SelfManagedHA'))) copyFileSync(join(RELEASE, f), join(dir, f));
  change(dir);
  return dir;
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const edit = (dir: string, file: string, fn: (o: Record<string, any>) => void) => {
  const o = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  fn(o);
  writeFileSync(join(dir, file), JSON.stringify(o, null, 2));
};

const noDefaultHere = payload((d) => edit(d, DEFAULT, (o) => { o.metadata.annotations['release.openshift.io/major-version'] = '-4'; }));
const twoDefaults = payload((d) => copyFileSync(join(d, DEFAULT), join(d, 'featureGate-4-10-SelfManagedHA-Default-copy.yaml')));
const otherVersion = payload((d) => edit(d, DEFAULT, (o) => { o.status.featureGates[0].version = '4.99.0'; }));

function spec(featureSet: string, extra = ''): string {
  const f = join(tempDir('fgc-broken-spec-'), 'fg.yaml');
  writeFileSync(f, `apiVersion: config.openshift.io/v1\nkind: FeatureGate\nmetadata: {name: cluster}\nspec:\n  featureSet: "${featureSet}"\n${extra}`);
  return f;
}
const custom = spec('CustomNoUpgrade', '  customNoUpgrade:\n    enabled: [EventTTL]\n');
const render = (dir: string, fg?: string) => runCLI(['render', '--payload-version', '5.0.0', '--authoritative-feature-gate-dir', dir, ...(fg ? ['--featuregate', fg] : [])]);

describe('a broken payload through the CLI', () => {
  it('CustomNoUpgrade without a Default set here: exit 1 naming the version, the profile and the skipped file — no status printed', () => {
    const r = render(noDefaultHere, custom);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('CustomNoUpgrade is the Default feature set changed by the spec\'s lists, but the payload manifests have no Default ' +
      `feature set for version 5.0.0, cluster profile self-managed-high-availability; skipped: ${join(noDefaultHere, DEFAULT)}: ` +
      'release.openshift.io/major-version "-4" does not contain 5');
  });

  it('the Default set itself: upstream\'s words, then the set as users know it, what was searched and skipped', () => {
    const r = render(noDefaultHere);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('.spec.featureSet "" not found: the payload manifests have no Default feature set for version 5.0.0, ' +
      `cluster profile self-managed-high-availability; skipped: ${join(noDefaultHere, DEFAULT)}: release.openshift.io/major-version "-4" does not contain 5`);
  });

  it.each([
    ['two manifests claiming Default', twoDefaults, 'feature set Default is claimed twice for cluster profile self-managed-high-availability and major version 5: ' +
      `${join(twoDefaults, 'featureGate-4-10-SelfManagedHA-Default-copy.yaml')} and ${join(twoDefaults, DEFAULT)} (same gates); keep one`],
    ['a status entry for another version', otherVersion, `${join(otherVersion, DEFAULT)}: status.featureGates has entries only for "4.99.0"; ` +
      'a payload manifest needs one for "" (every version) or for the payload version 5.0.0'],
  ])('%s: render, preview and explain exit 1 and diff 2, each naming the files', (_what, dir, message) => {
    for (const r of [
      render(dir),
      runCLI(['preview', '-f', spec('TechPreviewNoUpgrade'), '--payload-version', '5.0.0', '--authoritative-feature-gate-dir', dir]),
      runCLI(['explain', 'EventTTL', '--payload-version', '5.0.0', '--authoritative-feature-gate-dir', dir]),
    ]) {
      expect(r.code).toBe(1);
      expect(`${r.stdout}${r.stderr}`).toContain(message);
    }
    const diff = runCLI(['diff', '--from', RELEASE, '--to', dir, '--from-version', '5.0.0', '--to-version', '5.0.0']);
    expect(diff.code).toBe(2);
    expect(diff.stderr).toContain(message);
  });
});

describe('a broken payload in the operator (real API server)', () => {
  let plane: ControlPlane;
  beforeAll(async () => {
    plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
    await setClusterVersion(plane.kubeConfig, { history: ['5.0.0'] });
  }, 90_000);
  afterAll(async () => { await plane?.stop(); });

  const runOperator = (dir: string) => {
    const p = spawnCLI(['operator', '--kubeconfig', plane.kubeconfigPath, '--operator-version', '5.0.0', '--authoritative-feature-gate-dir', dir,
      '--metrics-bind-address', '0', '--health-probe-bind-address', '0', '--degraded-inertia', '0s'], { POD_NAMESPACE: 'default' });
    let log = '';
    p.stderr!.on('data', (d: Buffer) => { log += d.toString(); });
    return { p, log: () => log, stop: () => new Promise((r) => { p.once('exit', r); p.kill('SIGTERM'); }) };
  };
  const degraded = async () => (await new ResourceClient(plane.kubeConfig, ClusterOperatorResource).get('config-operator')).status?.conditions?.find((c) => c.type === 'Degraded');
  const featureGateStatus = async () => (await new ResourceClient(plane.kubeConfig, FeatureGateResource).get('cluster')).status;

  it.each([
    ['two manifests claiming Default', () => twoDefaults, '', 'is claimed twice'],
    ['CustomNoUpgrade without a Default set here', () => noDefaultHere, 'CustomNoUpgrade', 'have no Default feature set for version 5.0.0'],
  ])('%s: stays up, writes no FeatureGate status, ClusterOperator Degraded with the message', async (_what, dir, featureSet, message) => {
    await setFeatureGateSpec(plane.kubeConfig, featureSet ? { featureSet, customNoUpgrade: { enabled: ['EventTTL'] } } : {});
    const op = runOperator(dir());
    try {
      await eventually(async () => expect(await degraded()).toMatchObject({ status: 'True', message: expect.stringContaining(message) }), 60_000, 300)
        .catch((e: Error) => { throw new Error(`${e.message}\n${op.log().slice(-3000)}`); });
      expect(op.p.exitCode).toBeNull();
      expect((await featureGateStatus())?.featureGates ?? []).toEqual([]);
    } finally {
      await op.stop();
    }
  }, 90_000);
});
