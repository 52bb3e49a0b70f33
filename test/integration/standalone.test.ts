// Standalone mode through its files and its CLI: drop-in merge order, exit codes, the lock's life
// (creation, corruption, concurrency, crash), the upgrade truth table end to end, rollback, presets, mirror.
import { describe, expect, it } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { buildRegistry, parseStrictVersion, resolveFeatureSet } from '../../api-types/index.js';
import { readPayloadManifests } from '../../runtime/manifests/payload-manifests.js';
import { createLock, decodeLock, loadConfigFiles, featureGatesFromConfig, lockFor, prerun, PrerunError } from '../../standalone/index.js';
import { bundledCRDPaths, startControlPlane } from '../../sdk/testing/index.js';
import { CLI, runCLI } from '../support/cli.js';
import { PAYLOAD_ROOT } from '../support/payloads.js';
import { tempDirs } from '../support/temp.js';

const tempDir = tempDirs();

interface Node { root: string; config: string; configDir: string; dataDir: string; backupDir: string }

function node(files: Record<string, string> = {}): Node {
  const root = tempDir('fgc-standalone-');
  const n = { root, config: join(root, 'etc/config.yaml'), configDir: join(root, 'etc/config.d'), dataDir: join(root, 'data'), backupDir: join(root, 'backups') };
  // --config and --config-dir are passed explicitly, so they must exist: an empty config.yaml is no configuration.
  for (const [rel, text] of Object.entries({ 'config.yaml': '', ...files })) {
    const p = join(root, 'etc', rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
  mkdirSync(n.configDir, { recursive: true });
  return n;
}

const custom = (enabled: string[], disabled: string[] = [], special: string[] = []) =>
  `apiServer:\n  featureGates:\n    featureSet: CustomNoUpgrade\n    customNoUpgrade:\n      enabled: ${JSON.stringify(enabled)}\n      disabled: ${JSON.stringify(disabled)}\n` +
  (special.length ? `    specialHandlingSupportExceptionRequired:\n      enabled: ${JSON.stringify(special)}\n` : '');

function cli(n: Node, action: 'check' | 'render', version: string, extra: string[] = []) {
  return runCLI(['standalone', action, '--version', version, '--config', n.config, '--config-dir', n.configDir, '--data-dir', n.dataDir,
    '--backup-dir', n.backupDir, ...extra]);
}

const opts = (n: Node, version: string) => ({ configFile: n.config, configDir: n.configDir, dataDir: n.dataDir, version });
const dataVersion = (n: Node) => JSON.parse(readFileSync(join(n.dataDir, 'version'), 'utf8')).version;

describe('standalone configuration files', () => {
  it('merges config.yaml then config.d/**/*.yaml in lexical order; lists replace; .yml ignored; empty documents skipped', () => {
    const n = node({
      'config.yaml': custom(['Base']),
      'config.d/20-b.yaml': 'apiServer:\n  featureGates:\n    customNoUpgrade:\n      enabled: [Second]\n',
      'config.d/10-a.yaml': 'apiServer:\n  featureGates:\n    customNoUpgrade:\n      enabled: [First]\n      disabled: [Gone]\n',
      'config.d/30-sub/05-c.yaml': '---\napiServer:\n  featureGates:\n    customNoUpgrade:\n      disabled: [Deep]\n',
      'config.d/99-ignored.yml': 'apiServer:\n  featureGates:\n    featureSet: ""\n',
      'config.d/40-empty.yaml': '\n',
    });
    const { merged, files } = loadConfigFiles({ configFile: n.config, configDir: n.configDir });
    expect(files.map((f) => f.slice(n.root.length))).toEqual(['/etc/config.yaml', '/etc/config.d/10-a.yaml', '/etc/config.d/20-b.yaml', '/etc/config.d/30-sub/05-c.yaml', '/etc/config.d/40-empty.yaml']);
    expect(featureGatesFromConfig(merged)).toMatchObject({ featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: ['Second'], disabled: ['Deep'] } });
  });

  it('exits 2 on invalid configuration, naming the file and line of a YAML error, and writes no lock', () => {
    const n = node({ 'config.d/10-bad.yaml': 'apiServer:\n  featureGates:\n    featureSet: [CustomNoUpgrade\n' });
    const r = cli(n, 'check', '4.21.0');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`invalid configuration: ${join(n.configDir, '10-bad.yaml').replace(/[/.]/g, '\\$&')}:\\d+:\\d+: `));
    const both = node({ 'config.yaml': custom(['A'], ['A']) });
    const r2 = cli(both, 'check', '4.21.0');
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain('invalid configuration: error validating feature gates: feature gates cannot be both enabled and disabled in customNoUpgrade: [A]');
    expect(existsSync(join(both.dataDir, 'no-upgrade'))).toBe(false);
    expect(existsSync(join(both.backupDir, 'prerun_failed.log'))).toBe(false);
    const badVersion = cli(both, 'check', '4.21');
    expect(badVersion.code).toBe(2);
    expect(badVersion.stderr).toContain('--version: invalid version string (4.21): expected Major.Minor.Patch');
    expect(existsSync(join(both.backupDir, 'prerun_failed.log'))).toBe(false);
  });
});

describe('the lock', () => {
  it('is created by check on the first start with a feature set (mode 0600), before rendering, and never rewritten', () => {
    const n = node({ 'config.yaml': custom(['TestFeatureEnabled'], ['TestFeatureDisabled']) });
    const c = cli(n, 'check', '4.21.0');
    expect(c.code).toBe(0);
    expect(c.stderr).toContain('Creating feature gate lock file - this cluster can no longer be upgraded');
    const r = cli(n, 'render', '4.21.0', ['-o', 'json']);
    expect(r.code).toBe(0);
    const lockPath = join(n.dataDir, 'no-upgrade');
    expect(statSync(lockPath).mode & 0o777).toBe(0o600);
    const text = readFileSync(lockPath, 'utf8');
    expect(parse(text)).toEqual({ customNoUpgrade: { disabled: ['TestFeatureDisabled'], enabled: ['TestFeatureEnabled'] }, featureSet: 'CustomNoUpgrade', version: '4.21.0' });
    const out = JSON.parse(r.stdout);
    expect(out.kubeAPIServerArgs).toEqual(['--feature-gates=TestFeatureDisabled=false', '--feature-gates=TestFeatureEnabled=true',
      '--feature-gates=UserNamespacesSupport=true', '--feature-gates=UserNamespacesPodSecurityStandards=true']);
    writeFileSync(n.config, custom(['Changed']));
    expect(cli(n, 'check', '4.21.2').code).toBe(0);
    expect(readFileSync(lockPath, 'utf8')).toBe(text);
  });

  it('is not created without a feature set', () => {
    const n = node({ 'config.yaml': 'apiServer: {}\n' });
    expect(cli(n, 'check', '4.21.0').code).toBe(0);
    expect(existsSync(join(n.dataDir, 'no-upgrade'))).toBe(false);
    expect(dataVersion(n)).toBe('4.21.0');
  });

  it.each([
    ['empty', ''],
    ['garbage', '\u0000\u0007%%% not yaml: ['],
    ['truncated YAML', 'customNoUpgrade:\n  disabled: []\n  enabled:\n    - Test'],
    ['a list where a map belongs', '- featureSet: CustomNoUpgrade\n- version: 4.21.0\n'],
  ])('refuses to start on a corrupted lock (%s), naming the file', (_t, content) => {
    const n = node({ 'config.yaml': 'apiServer: {}\n' });
    mkdirSync(n.dataDir, { recursive: true });
    writeFileSync(join(n.dataDir, 'no-upgrade'), content);
    const r = cli(n, 'check', '4.21.0');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`failed to read lock file: ${join(n.dataDir, 'no-upgrade')}: `);
    expect(readFileSync(join(n.backupDir, 'prerun_failed.log'), 'utf8')).toContain('failed to read lock file');
    expect(existsSync(join(n.dataDir, 'version'))).toBe(false);
  });

  it('two concurrent first starts leave exactly one valid lock', async () => {
    for (let round = 0; round < 3; round++) {
      const n = node({ 'config.yaml': custom(['Race']) });
      const runs = Array.from({ length: 6 }, () => new Promise<number | null>((resolve) => {
        const p = spawn(process.execPath, [CLI, 'standalone', 'check', '--version', '4.21.0', '--config', n.config, '--config-dir', n.configDir,
          '--data-dir', n.dataDir, '--backup-dir', n.backupDir], { stdio: 'ignore' });
        p.on('exit', (c) => resolve(c));
      }));
      expect(await Promise.all(runs)).toEqual([0, 0, 0, 0, 0, 0]);
      expect(readdirSync(n.dataDir).sort()).toEqual(['no-upgrade', 'version']);
      expect(decodeLock(readFileSync(join(n.dataDir, 'no-upgrade'), 'utf8')).customNoUpgrade.enabled).toEqual(['Race']);
    }
  }, 60_000);

  it('a crash between temp write and link (SIGKILL) leaves no half lock; the next start creates it whole', () => {
    const n = node({ 'config.yaml': custom(['Crash']) });
    // A real process that dies by SIGKILL right after its temporary lock file is durable.
    const script = `const { createLock, lockFor, featureGatesFromConfig } = await import(${JSON.stringify(join(process.cwd(), 'dist/standalone/index.js'))});
      const { parseStrictVersion } = await import(${JSON.stringify(join(process.cwd(), 'dist/api-types/index.js'))});
      const fg = featureGatesFromConfig({ apiServer: { featureGates: { featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: ['Crash'] } } } });
      createLock(${JSON.stringify(n.dataDir)}, lockFor(fg, parseStrictVersion('4.21.0')), { afterTempWrite: () => process.kill(process.pid, 'SIGKILL') });`;
    const crashed = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(crashed.signal).toBe('SIGKILL');
    expect(existsSync(join(n.dataDir, 'no-upgrade'))).toBe(false);
    expect(readdirSync(n.dataDir).filter((f) => f.endsWith('.tmp'))).toHaveLength(1); // the crashed start's temp file
    expect(cli(n, 'check', '4.21.0').code).toBe(0);
    expect(readdirSync(n.dataDir).sort()).toEqual(['no-upgrade', 'version']);
    expect(decodeLock(readFileSync(join(n.dataDir, 'no-upgrade'), 'utf8')).customNoUpgrade.enabled).toEqual(['Crash']);
  });

  it('a failed write in this process leaves no lock and reports the cause', () => {
    const n = node({ 'config.yaml': custom(['Crash']) });
    const fg = featureGatesFromConfig(parse(readFileSync(n.config, 'utf8')));
    expect(() => createLock(n.dataDir, lockFor(fg, parseStrictVersion('4.21.0')), { afterTempWrite: () => { throw new Error('disk gone'); } })).toThrow('disk gone');
    expect(readdirSync(n.dataDir)).toEqual([]); // neither a lock nor the temporary file
  });

  it('refuses unsetting the feature set (exit 1, prerun_failed.log) and keeps the data version', () => {
    const n = node({ 'config.yaml': custom(['A']) });
    expect(cli(n, 'check', '4.21.0').code).toBe(0);
    writeFileSync(n.config, 'apiServer:\n  featureGates: {}\n');
    const r = cli(n, 'check', '4.21.0');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('detected invalid changes in feature gate configuration: cannot unset feature set.');
    expect(readFileSync(join(n.backupDir, 'prerun_failed.log'), 'utf8')).toContain('1. put back apiServer.featureGates.featureSet: CustomNoUpgrade');
    expect(r.stderr).toContain('2. Run: sudo microshift-cleanup-data --all');
  });
});

describe('version changes with a lock', () => {
  it.each([
    ['4.21.0', '4.21.1', [], 0],
    ['4.21.3', '4.21.0', [], 0],
    ['4.21.0', '4.22.0', [], 1],
    ['4.21.0', '5.0.0', [], 1],
    ['4.22.0', '4.21.0', [], 1],
    ['4.21.0', '4.22.0', ['FeatureA'], 0],
    ['4.22.0', '5.0.0', ['FeatureA'], 0],
  ])('locked at %s, starting %s, exempt %j → exit %d', (locked, exec, exempt, code) => {
    const n = node({ 'config.yaml': custom(['FeatureA']) });
    mkdirSync(n.dataDir, { recursive: true });
    writeFileSync(join(n.dataDir, 'no-upgrade'), `customNoUpgrade:\n  disabled: []\n  enabled:\n    - FeatureA\nfeatureSet: CustomNoUpgrade\nversion: ${locked}\n`);
    writeFileSync(n.config, custom(['FeatureA'], [], exempt as string[]));
    const r = cli(n, 'check', exec);
    expect(r.code).toBe(code);
    const blocked = `version upgrade detected with custom feature gates: locked version ${locked}, current version ${exec}`;
    if (code === 1) expect(r.stderr).toContain(blocked);
    else expect(r.stderr).not.toContain(blocked);
  });

  it('upgrade blocked, then rollback to the locked version works (the version file is written only after the checks)', () => {
    const n = node({ 'config.yaml': custom(['FeatureA']) });
    expect(prerun(opts(n, '4.21.0')).lock?.version).toBe('4.21.0');
    expect(dataVersion(n)).toBe('4.21.0');
    expect(() => prerun(opts(n, '4.22.0'))).toThrow(PrerunError);
    expect(dataVersion(n)).toBe('4.21.0');
    expect(prerun(opts(n, '4.21.0')).lock?.version).toBe('4.21.0');
    expect(dataVersion(n)).toBe('4.21.0');
    // with an exemption the upgrade goes through and stamps the data; the lock keeps its version
    writeFileSync(n.config, custom(['FeatureA'], [], ['FeatureA']));
    prerun(opts(n, '4.22.0'));
    expect(dataVersion(n)).toBe('4.22.0');
    expect(decodeLock(readFileSync(join(n.dataDir, 'no-upgrade'), 'utf8')).version).toBe('4.21.0');
  });
});

describe('presets and mirror', () => {
  const current = join(PAYLOAD_ROOT, 'current');

  it.each(['TechPreviewNoUpgrade', 'DevPreviewNoUpgrade'])('%s with payload manifests renders what the operator computes', (set) => {
    const n = node({ 'config.yaml': `apiServer:\n  featureGates:\n    featureSet: ${set}\n` });
    expect(cli(n, 'check', '4.22.0').code).toBe(2); // without manifests: refused as upstream
    expect(cli(n, 'check', '4.22.0', ['--authoritative-feature-gate-dir', current]).code).toBe(0); // commits the lock
    const r = cli(n, 'render', '4.22.0', ['--authoritative-feature-gate-dir', current, '-o', 'json']);
    expect(r.code).toBe(0);
    const operator = resolveFeatureSet({ featureSet: set }, buildRegistry(readPayloadManifests(current), { operatorVersion: '4.22.0' }));
    const out = JSON.parse(r.stdout);
    const args = out.kubeAPIServerArgs as string[];
    const on = args.filter((a) => a.endsWith('=true')).map((a) => a.slice(16, -5));
    const off = args.filter((a) => a.endsWith('=false')).map((a) => a.slice(16, -6));
    expect(off).toEqual(operator.disabled.filter((g) => !['UserNamespacesSupport', 'UserNamespacesPodSecurityStandards'].includes(g)));
    expect(new Set(on)).toEqual(new Set([...operator.enabled, 'UserNamespacesSupport', 'UserNamespacesPodSecurityStandards']));
    expect(decodeLock(readFileSync(join(n.dataDir, 'no-upgrade'), 'utf8')).featureSet).toBe(set);
    const up = cli(n, 'check', '4.23.0', ['--authoritative-feature-gate-dir', current]);
    expect(up.code).toBe(1);
    expect(up.stderr).toContain(`Feature set: ${set}`);
  });

  it('merges featureGates into a given kubelet configuration, the kubelet\'s own settings winning', () => {
    const n = node({ 'config.yaml': custom(['A', 'B']) });
    const kubelet = join(n.root, 'kubelet.yaml');
    writeFileSync(kubelet, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\nfeatureGates:\n  B: false\n  Own: true\n');
    const r = cli(n, 'render', '4.21.0', ['--kubelet-config', kubelet]);
    expect(r.code).toBe(0);
    expect(parse(r.stdout).kubeletConfig).toEqual({
      apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', cpuManagerPolicy: 'static',
      featureGates: { A: true, B: false, Own: true, UserNamespacesPodSecurityStandards: true, UserNamespacesSupport: true },
    });
  });

  it('mirrors FeatureGate spec and status to an API server for SDK readers', async () => {
    const plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
    try {
      const n = node({ 'config.yaml': custom(['A'], ['B']) });
      const r = cli(n, 'render', '4.21.0', ['--kubeconfig', plane.kubeconfigPath]);
      expect(r.code).toBe(0);
      const fg = await plane.kubeConfig.makeApiClient(CustomObjectsApi).getClusterCustomObject({ group: 'config.openshift.io', version: 'v1', plural: 'featuregates', name: 'cluster' });
      expect(fg.spec).toEqual({ featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: ['A'], disabled: ['B'] } });
      // Status holds exactly what the rendered kube-apiserver arguments enable and disable, required gates included.
      const args = (parse(r.stdout) as { kubeAPIServerArgs: string[] }).kubeAPIServerArgs.map((a) => a.slice('--feature-gates='.length).split('='));
      const named = (v: string) => args.filter(([, b]) => b === v).map(([name]) => ({ name })).sort((x, y) => (x.name! < y.name! ? -1 : 1));
      expect(fg.status.featureGates).toEqual([{ version: '4.21.0', enabled: named('true'), disabled: named('false') }]);
      expect(named('true').map((g) => g.name)).toEqual(['A', 'UserNamespacesPodSecurityStandards', 'UserNamespacesSupport']);
    } finally {
      await plane.stop();
    }
  }, 60_000);
});
