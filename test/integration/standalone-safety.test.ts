// Standalone mode's one-way choice against what a single-node admin's node actually holds: odd version files, lock
// files that are not regular files, --dry-run, refusal messages that only offer remedies that work, render, and gates
// kube-apiserver refuses. Each case runs the shipped CLI on fresh temp dirs and checks the exit code and exactly what
// was (not) written (test/support/standalone-node.ts); the configuration's own inputs are standalone-config-input.test.ts.
import { describe, expect, it } from '@jest/globals';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCLI } from '../support/cli.js';
import { check, custom, expectInvalid, gates, node, type Node } from '../support/standalone-node.js';

describe('version file', () => {
  it('whitespace only is a parse error with MicroShift\'s prefix and the path (exit 1); zero length is a first run', () => {
    const n = node();
    mkdirSync(n.dataDir);
    writeFileSync(n.versionFile, ' \n');
    const r = check(n, '4.21.0');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('failed to get version of existing MicroShift data: parsing " \\n" failed: ');
    expect(r.stdout).toContain(`(version file ${n.versionFile})`);
    writeFileSync(n.versionFile, '');
    expect(check(n, '4.21.0').code).toBe(0);
    expect(JSON.parse(readFileSync(n.versionFile, 'utf8')).version).toBe('4.21.0');
  });

  it.each([
    ['5.1.0', '6.0.0', 1, 'unknown major version 5 in version map'],
    ['6.0.0', '6.0.1', 0, ''], // deliberately allowed (MicroShift refuses it with the same error)
    ['4.22.3', '5.0.0', 0, ''],
    ['4.21.0', '5.0.0', 0, ''],
    ['4.20.0', '5.0.0', 1, 'version distance is 3, maximum allowed is 2'],
  ])('data %s, executable %s → exit %d', (data, exec, code, text) => {
    const n = node();
    mkdirSync(n.dataDir);
    writeFileSync(n.versionFile, JSON.stringify({ version: data }));
    const r = check(n, exec);
    expect(r.code).toBe(code);
    if (text) expect(r.stderr).toContain(text);
  });
});

describe('lock file safety (beyond MicroShift)', () => {
  it.each([
    ['a dangling symbolic link', (n: Node) => symlinkSync(join(n.root, 'nowhere'), n.lock), 'is a symbolic link'],
    ['a symbolic link to a valid lock', (n: Node) => {
      writeFileSync(join(n.root, 'elsewhere'), 'customNoUpgrade:\n  disabled: []\n  enabled: [A]\nfeatureSet: CustomNoUpgrade\nversion: 4.21.0\n');
      symlinkSync(join(n.root, 'elsewhere'), n.lock);
    }, 'is a symbolic link'],
    ['a directory', (n: Node) => mkdirSync(n.lock), 'is a directory'],
  ])('a no-upgrade that is %s is refused (exit 1), never taken for "no lock", never replaced', (_what, make, text) => {
    const n = node({ 'config.yaml': custom(['A']) });
    mkdirSync(n.dataDir);
    make(n);
    const before = lstatSync(n.lock);
    const r = check(n, '4.22.0');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`failed to read lock file: ${n.lock} ${text}`);
    expect(lstatSync(n.lock).ino).toBe(before.ino);
    expect(existsSync(n.versionFile)).toBe(false);
  });

  it('a lock holding a feature set no configuration can name: the remedy is restoring the lock or cleaning up, never "put back Bogus"', () => {
    const n = node({ 'config.yaml': custom(['A']) });
    mkdirSync(n.dataDir);
    writeFileSync(n.lock, 'customNoUpgrade:\n  disabled: []\n  enabled: [A]\nfeatureSet: Bogus\nversion: 4.21.0\n');
    const r = check(n, '4.21.0');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('cannot change Bogus feature set');
    expect(r.stdout).not.toContain('put back');
    expect(r.stdout).toContain(`1. restore the lock file ${n.lock} from a backup ("Bogus" is not a feature set a configuration can name, so the lock is damaged), OR`);
    expect(r.stdout).toContain('2. Run: sudo microshift-cleanup-data --all');
  });

  it('writes never follow a symbolic link: the version file and prerun_failed.log', () => {
    const n = node({ 'config.yaml': custom(['A']) });
    mkdirSync(n.dataDir);
    mkdirSync(n.backupDir);
    const victim = join(n.root, 'victim');
    const untouched = JSON.stringify({ version: '4.21.0' });
    writeFileSync(victim, untouched);
    symlinkSync(victim, n.versionFile); // read through, as MicroShift does; replaced, never written through
    expect(check(n, '4.21.0').code).toBe(0);
    expect(lstatSync(n.versionFile).isFile()).toBe(true);
    expect(readFileSync(victim, 'utf8')).toBe(untouched);

    symlinkSync(victim, n.failedLog);
    writeFileSync(n.config, gates('featureSet: ""'));
    const r = check(n, '4.21.0');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`could not write to ${n.backupDir}`);
    expect(readFileSync(victim, 'utf8')).toBe(untouched);
  });

  it('a lock whose lists are empty while the config names gates is reported', () => {
    const n = node({ 'config.yaml': gates('featureSet: CustomNoUpgrade') });
    expect(check(n, '4.21.0').code).toBe(0);
    writeFileSync(n.config, custom(['Later']));
    const r = check(n, '4.21.0');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`warning: the lock ${n.lock} lists no gates while the configuration names [Later]`);
  });

  it('a lock deleted by hand while its data remains is refused (MicroShift forgets the choice)', () => {
    const n = node({ 'config.yaml': custom(['A']) });
    expect(check(n, '4.21.0').code).toBe(0);
    expect(JSON.parse(readFileSync(n.versionFile, 'utf8')).feature_gate_lock).toBe('CustomNoUpgrade');
    rmSync(n.lock);
    for (const config of [custom(['A']), '']) {
      writeFileSync(n.config, config);
      const r = check(n, '4.22.0');
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`the feature gate lock ${n.lock} is missing, but the data in ${n.dataDir} was last started under it`);
      expect(existsSync(n.lock)).toBe(false);
    }
  });
});

describe('check --dry-run', () => {
  it('runs every check, writes nothing, and prints the lock and version it would write and the verdict', () => {
    const n = node({ 'config.d/10-gates.yaml': custom(['A']) });
    const r = check(n, '4.21.0', ['--dry-run']);
    expect(r.code).toBe(0);
    expect(existsSync(n.dataDir)).toBe(false);
    expect(r.stdout).toContain(`a real start would CREATE THE LOCK ${n.lock}`);
    expect(r.stdout).toContain('    featureSet: CustomNoUpgrade\n    version: 4.21.0');
    expect(r.stdout).toContain(`feature gates set in: ${join(n.configDir, '10-gates.yaml')}`);
    expect(r.stdout).toContain(`a real start would write ${n.versionFile}: version 4.21.0, under the lock (CustomNoUpgrade)`);
    expect(r.stdout).toContain('verdict: this start would be allowed');
  });

  it('without a lock, the log does not claim to validate one (it checks against the lock it would create)', () => {
    const n = node({ 'config.d/10-gates.yaml': custom(['A']) });
    const r = check(n, '4.21.0', ['--dry-run', '--log-format', 'json']);
    expect(r.code).toBe(0);
    const msgs = r.stderr.trimEnd().split('\n').map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(msgs).not.toContain('Validating feature gate lock file');
    expect(msgs).not.toContain('Feature gate lock file validation successful');
    expect(msgs).toContain('Dry run: no feature gate lock file yet; checking against the one a real start would create');
    expect(msgs).toContain('Checks against the would-be lock passed (dry run: not created)');
  });

  it('a refusal: exit 1 with the verdict, and no failure log', () => {
    const n = node({ 'config.yaml': custom(['A']) });
    expect(check(n, '4.21.0').code).toBe(0);
    const before = readdirSync(n.dataDir).map((f) => [f, readFileSync(join(n.dataDir, f), 'utf8')]);
    const r = check(n, '4.22.0', ['--dry-run', '--log-format', 'json']);
    expect(r.code).toBe(1);
    // One stream for the report, allowed or refused: stdout has the refusal and the verdict.
    expect(r.stdout).toMatch(/^dry run: a check refused this start; nothing was written\.\n\nversion upgrade detected with custom feature gates/);
    expect(r.stdout).toMatch(/\n\nverdict: this start would be refused \(dry run: nothing written\)\n$/);
    // stderr is the log, every line JSON, and the refusal is in it once.
    const logLines = r.stderr.trimEnd().split('\n').map((l) => JSON.parse(l) as { msg: string; error?: string });
    expect(logLines.filter((l) => `${l.msg} ${l.error ?? ''}`.includes('version upgrade detected with custom feature gates'))).toHaveLength(1);
    expect(existsSync(n.failedLog)).toBe(false);
    expect(readdirSync(n.dataDir).map((f) => [f, readFileSync(join(n.dataDir, f), 'utf8')])).toEqual(before);
  });
});

describe('refusal messages: MicroShift\'s first lines, then what is true here', () => {
  it('never offers a roll-back once the data was started by the newer minor', () => {
    const n = node({ 'config.d/10-gates.yaml': custom(['A'], ['A']) });
    expect(check(n, '4.21.0').code).toBe(0);
    expect(check(n, '4.22.0').code).toBe(0); // exempted: the data is now 4.22
    writeFileSync(join(n.configDir, '10-gates.yaml'), custom(['A']));
    const r = check(n, '4.22.1');
    expect(r.code).toBe(1);
    const lines = r.stdout.split('\n');
    const first = lines.indexOf('version upgrade detected with custom feature gates: locked version 4.21.0, current version 4.22.1');
    expect(first).toBeGreaterThan(-1);
    expect(lines.slice(first, first + 6)).toEqual([
      'version upgrade detected with custom feature gates: locked version 4.21.0, current version 4.22.1',
      '',
      'Upgrades are not supported when custom feature gates are configured.',
      'Custom feature gates were configured in version 4.21.0.',
      'Gates Enabled: [A]',
      'Gates Disabled: []',
    ]);
    expect(r.stderr).not.toMatch(/Roll back to version|run version 4\.21 again/);
    expect(r.stderr).toContain('(rolling back to 4.21.0 is no longer possible: the data was already started by 4.22.0)');
    expect(r.stderr).toContain(`apiServer.featureGates is set in ${join(n.configDir, '10-gates.yaml')}`);
    expect(r.stderr).toContain(`remove the custom feature gates from ${join(n.configDir, '10-gates.yaml')}`);
  });

  it('offers the roll-back while the data is still at the locked minor', () => {
    const n = node({ 'config.yaml': custom(['A']) });
    expect(check(n, '4.21.0').code).toBe(0);
    const r = check(n, '4.22.0');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('1. run version 4.21 again (the data is still at 4.21.0), OR');
    expect(readFileSync(n.failedLog, 'utf8')).toContain('version upgrade detected with custom feature gates');
  });
});

describe('render', () => {
  it('writes nothing — no lock, no version file, no failure log — and says that check is what commits', () => {
    const n = node({ 'config.yaml': 'apiServer:\n  featureGates:\n    featureSet: CustomNoUpgrade\n    customNoUpgrade:\n      enabled: [A]\n' });
    const args = ['--version', '4.21.0', '--config', n.config, '--config-dir', n.configDir, '--data-dir', n.dataDir, '--backup-dir', n.backupDir];
    for (const extra of [[], ['--dry-run']]) {
      const r = runCLI(['standalone', 'render', ...args, ...extra]);
      expect(`${r.code} ${r.stderr}`).toMatch(/^0 /);
      expect(r.stdout).toContain('--feature-gates=A=true');
      expect(r.stderr).toContain(`render wrote nothing: the lock ${join(n.dataDir, 'no-upgrade')} does not exist yet`);
      expect(existsSync(join(n.dataDir, 'no-upgrade'))).toBe(false);
      expect(existsSync(join(n.dataDir, 'version'))).toBe(false);
    }
    // A refused start: render refuses as check --dry-run does, and records nothing.
    mkdirSync(n.dataDir, { recursive: true });
    writeFileSync(join(n.dataDir, 'version'), JSON.stringify({ version: '4.22.0', boot_id: 'x' }) /* newer data than the binaries */);
    const refused = runCLI(['standalone', 'render', ...args]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('verdict: this start would be refused (render: nothing written)');
    expect(existsSync(n.failedLog)).toBe(false);
    // check is the one command that commits, and says on stdout what it wrote.
    rmSync(join(n.dataDir, 'version'));
    const c = runCLI(['standalone', 'check', ...args]);
    expect(c.code).toBe(0);
    expect(c.stdout).toContain(`wrote the lock ${join(n.dataDir, 'no-upgrade')} (permanent: feature set "CustomNoUpgrade" can never be left`);
    expect(c.stdout).toContain(`wrote ${join(n.dataDir, 'version')}: 4.21.0`);
    expect(existsSync(join(n.dataDir, 'no-upgrade'))).toBe(true);
  });

  it('says so on stderr when the kubelet configuration overrides an admin\'s gate', () => {
    const n = node({ 'config.yaml': custom(['A', 'B']) });
    const kubelet = join(n.root, 'kubelet.yaml');
    writeFileSync(kubelet, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nfeatureGates:\n  A: false\n  B: true\n  Other: true\n');
    const r = runCLI(['standalone', 'render', '--version', '4.21.0', '--config', n.config, '--config-dir', n.configDir, '--data-dir', n.dataDir,
      '--backup-dir', n.backupDir, '--kubelet-config', kubelet]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`warning: ${kubelet} sets featureGates.A: false, which overrides A=true from apiServer.featureGates for the kubelet`);
    expect(r.stderr).not.toContain('featureGates.B:');
  });
});

describe('gates that start: a lock is never written with gates kube-apiserver refuses', () => {
  it('a config disabling a locked gate exits 1 naming the gate and the rule, and writes no lock and no version file', () => {
    const n = node({ 'config.d/20-gates.yaml': gates('featureSet: CustomNoUpgrade\ncustomNoUpgrade:\n  disabled: [ServiceAccountTokenNodeBinding]') });
    const r = check(n, '4.21.0');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('kube-apiserver of Kubernetes 1.34 would refuse to start with apiServer.featureGates');
    expect(r.stderr).toContain('locked ServiceAccountTokenNodeBinding: cannot set feature gate ServiceAccountTokenNodeBinding to false, feature is locked to true');
    expect(existsSync(n.lock)).toBe(false);
    expect(existsSync(n.versionFile)).toBe(false);
    expect(existsSync(n.dataDir) ? readdirSync(n.dataDir) : []).toEqual([]);
  });

  it('a gate whose dependency is turned off (at the node\'s Kubernetes minor, named by flag) is refused too; the set with it on locks', () => {
    const broken = node({ 'config.d/20-gates.yaml': gates('featureSet: CustomNoUpgrade\ncustomNoUpgrade:\n  enabled: [ClusterTrustBundleProjection]\n  disabled: [ClusterTrustBundle]') });
    const r = check(broken, '4.21.0', ['--kubernetes-version', '1.35']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('dependency ClusterTrustBundleProjection: ClusterTrustBundleProjection is enabled, but depends on features that are disabled: [ClusterTrustBundle]');
    expect(existsSync(broken.lock)).toBe(false);
    const fine = node({ 'config.d/20-gates.yaml': gates('featureSet: CustomNoUpgrade\ncustomNoUpgrade:\n  enabled: [ClusterTrustBundleProjection, ClusterTrustBundle]') });
    const ok = check(fine, '4.21.0', ['--kubernetes-version', '1.35']);
    expect(`${ok.code} ${ok.stderr}`).toMatch(/^0 /);
    expect(existsSync(fine.lock)).toBe(true);
  });

  it('the node\'s kubelet configuration sets a field its gate must be on for: refused naming the gate and the field, nothing written (issue 65)', () => {
    const chosen = 'featureSet: CustomNoUpgrade\ncustomNoUpgrade:\n  disabled: [KubeletEnsureSecretPulledImages]';
    const n = node({ 'config.d/20-gates.yaml': gates(chosen) });
    const kubelet = join(n.root, 'kubelet.yaml');
    writeFileSync(kubelet, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nimagePullCredentialsVerificationPolicy: AlwaysVerify\n');
    const r = check(n, '5.0.0', ['--kubelet-config', kubelet]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the kubelet of Kubernetes 1.36 would refuse to start with apiServer.featureGates');
    expect(r.stderr).toContain('config KubeletEnsureSecretPulledImages (imagePullCredentialsVerificationPolicy): invalid configuration: ' +
      '`imagePullCredentialsVerificationPolicy` must not be set if KubeletEnsureSecretPulledImages feature gate is not enabled');
    expect(existsSync(n.lock)).toBe(false);
    expect(existsSync(n.dataDir) ? readdirSync(n.dataDir) : []).toEqual([]);
    // the kubelet's defaults alone: MicroShift writes the gates into the kubelet's file, so its defaulting sees them — it starts
    const defaults = node({ 'config.d/20-gates.yaml': gates(chosen) });
    writeFileSync(kubelet, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n');
    expect(check(defaults, '5.0.0', ['--kubelet-config', kubelet, '--dry-run']).code).toBe(0);
  });

  it('a kubelet configuration that is not one is invalid input (exit 2), nothing written', () => {
    const n = node({ 'config.d/20-gates.yaml': custom(['FeatureA']) });
    const kubelet = join(n.root, 'kubelet.yaml');
    writeFileSync(kubelet, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nfeatureGates:\n  NodeSwap: sometimes\n');
    expectInvalid(n, check(n, '4.21.0', ['--kubelet-config', kubelet]), 'the kubelet configuration: featureGates.NodeSwap: expected boolean, got string');
  });

  it('--kubernetes-version that this build has no rules for is a usage error, nothing written', () => {
    const n = node({ 'config.d/20-gates.yaml': custom(['FeatureA']) });
    const r = check(n, '4.21.0', ['--kubernetes-version', '1.12']);
    expectInvalid(n, r, '--kubernetes-version: no feature-gate rules for Kubernetes 1.12; this build knows 1.33, 1.34, 1.35, 1.36, 1.37');
  });
});
