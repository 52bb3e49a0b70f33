// explain, diff and preview through the shipped CLI, on the real payload series (openshift/api 4.15 → 5.1)
// and on a real API server; and the CLI's conventions (version, completion, did-you-mean, usage errors
// exit 2, status -o wide|yaml, --log-format).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { runCLI } from '../support/cli.js';
import { PAYLOAD_ROOT } from '../support/payloads.js';
import { tempDirs } from '../support/temp.js';
import { bundledCRDPaths, setClusterVersion, setFeatureGateSpec, setFeatureGateStatus, startControlPlane, type ControlPlane } from '../../sdk/testing/index.js';

const tempDir = tempDirs();
// Its own control plane: these tests rewrite FeatureGate/cluster, and a CustomNoUpgrade spec cannot be undone.
let plane: ControlPlane;
const kubeConfig = () => plane.kubeConfig;
const kubeconfigPath = () => plane.kubeconfigPath;
beforeAll(async () => { plane = await startControlPlane({ crdPaths: bundledCRDPaths() }); }, 120_000);
afterAll(async () => { await plane?.stop(); });
const release = (r: string) => join(PAYLOAD_ROOT, 'releases', `release-${r}`);
const payload = (r: string, v: string) => ['--authoritative-feature-gate-dir', release(r), '--payload-version', v];

describe('featuregates explain', () => {
  it('per profile and feature set, with the manifest that decided it, as text and json', () => {
    const r = runCLI(['explain', 'AWSClusterHostedDNS', ...payload('4.22', '4.22.0')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/self-managed-high-availability\s+Default\s+disabled\s+featureGate-4-10-SelfManagedHA-Default\.yaml/);
    expect(r.stdout).toMatch(/self-managed-high-availability\s+TechPreviewNoUpgrade\s+enabled\s+featureGate-4-10-SelfManagedHA-TechPreviewNoUpgrade\.yaml/);
    const j = JSON.parse(runCLI(['explain', 'AWSClusterHostedDNS', ...payload('4.22', '4.22.0'), '-o', 'json']).stdout);
    expect(j.known).toBe(true);
    expect(j.payload.profiles[0].featureSets).toContainEqual({ featureSet: '', state: 'disabled', decidedBy: join(release('4.22'), 'featureGate-4-10-SelfManagedHA-Default.yaml') });
  });

  it('an unknown name: exit 1 with the closest known one', () => {
    const r = runCLI(['explain', 'AWSClusterHostedDSN', ...payload('4.22', '4.22.0')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('not known to the payload (did you mean "AWSClusterHostedDNS"?)');
  });

  it('from a cluster: the state in each status version and whether the spec forces it', async () => {
    const kc = kubeConfig();
    await setClusterVersion(kc, { history: ['4.22.1', '4.21.5'] });
    await setFeatureGateSpec(kc, { featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: ['Explained'], disabled: [] } }); // one-way
    await setFeatureGateStatus(kc, [
      { version: '4.22.1', enabled: ['Explained'], disabled: [] },
      { version: '4.21.5', enabled: [], disabled: ['Explained'] },
    ], { featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: ['Explained'], disabled: [] } });
    const r = runCLI(['explain', 'Explained', '--kubeconfig', kubeconfigPath(), '-o', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).cluster).toMatchObject({
      featureSet: 'CustomNoUpgrade', spec: 'forces enabled',
      versions: [{ version: '4.22.1', state: 'enabled' }, { version: '4.21.5', state: 'disabled' }],
    });
  });
});

describe('featuregates diff', () => {
  it('between two payloads: added, removed and flipped gates, exit 1 as diff(1); 0 for the same payload', () => {
    const r = runCLI(['diff', '--from', release('4.21'), '--to', release('4.22'), '--from-version', '4.21.0', '--to-version', '4.22.0', '-o', 'json']);
    expect(r.code).toBe(1);
    const d = JSON.parse(r.stdout);
    expect(d.added.length + d.removed.length + d.enabledToDisabled.length + d.disabledToEnabled.length).toBeGreaterThan(0);
    expect(d.added).toContainEqual({ name: 'AWSEuropeanSovereignCloudInstall', state: 'disabled' });
    const same = runCLI(['diff', '--from', release('4.22'), '--to', release('4.22'), '--from-version', '4.22.0']);
    expect(same.code).toBe(0);
    expect(same.stdout).toContain('no differences');
  });

  it('for a feature set across the 4.23 → 5.0 major boundary', () => {
    const r = runCLI(['diff', '--from', release('4.23'), '--to', release('5.0'), '--from-version', '4.23.0', '--to-version', '5.0.0', '--feature-set', 'TechPreviewNoUpgrade']);
    expect([0, 1]).toContain(r.code);
    expect(r.stderr).toBe('');
  });

  it('between two versions of a cluster\'s status; an absent version is an error (exit 2) that lists those present', async () => {
    await setFeatureGateStatus(kubeConfig(), [
      { version: '4.22.1', enabled: ['A', 'C'], disabled: ['B'] },
      { version: '4.21.5', enabled: ['B', 'C'], disabled: ['A', 'D'] },
    ]);
    const r = runCLI(['diff', '--from-version', '4.21.5', '--to-version', '4.22.1', '--kubeconfig', kubeconfigPath(), '-o', 'json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({ added: [], removed: [{ name: 'D', state: 'disabled' }], enabledToDisabled: ['B'], disabledToEnabled: ['A'] });
    const missing = runCLI(['diff', '--from-version', '4.20.0', '--to-version', '4.22.1', '--kubeconfig', kubeconfigPath()]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('version "4.20.0" is not in FeatureGate/cluster status (it has 4.22.1, 4.21.5)');
  });
});

describe('featuregates preview', () => {
  const write = (text: string) => {
    const p = join(tempDir('fgc-preview-'), 'fg.yaml');
    writeFileSync(p, text);
    return p;
  };

  it('resolves a spec, names unknown gates with a suggestion and conflicts, warns that NoUpgrade is one-way; exit 1', () => {
    const f = write('apiVersion: config.openshift.io/v1\nkind: FeatureGate\nmetadata: {name: cluster}\nspec:\n  featureSet: CustomNoUpgrade\n  customNoUpgrade:\n    enabled: [AWSClusterHostedDSN, Both]\n    disabled: [Both]\n');
    const r = runCLI(['preview', '-f', f, ...payload('4.22', '4.22.0')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('WARNING: CustomNoUpgrade cannot be undone');
    expect(r.stdout).toContain('unknown gate "AWSClusterHostedDSN" in customNoUpgrade.enabled (did you mean "AWSClusterHostedDNS"?)');
    expect(r.stdout).toContain('conflict: enabled and disabled at once: Both');
  });

  it('a clean spec: its lists, exit 0', () => {
    const f = write('apiVersion: config.openshift.io/v1\nkind: FeatureGate\nmetadata: {name: cluster}\nspec:\n  featureSet: TechPreviewNoUpgrade\n');
    const r = runCLI(['preview', '-f', f, ...payload('4.22', '4.22.0'), '-o', 'yaml']);
    expect(r.code).toBe(0);
    const p = parse(r.stdout);
    expect(p.irreversible).toBe(true);
    expect(p.resolved.enabled).toContain('AWSClusterHostedDNS');
  });
});

describe('CLI conventions', () => {
  it('--version and version print the package version', () => {
    for (const args of [['--version'], ['version']]) {
      const r = runCLI(args);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^featuregates \d+\.\d+\.\d+ \(node v24\./);
    }
  });

  it('did you mean, for commands and flags; usage errors exit 2', () => {
    const cmd = runCLI(['stauts']);
    expect(cmd.code).toBe(2);
    expect(cmd.stderr).toContain('unknown command "stauts" (did you mean "status"?)');
    // A misspelt top-level flag (issue 24, item 7).
    const top = runCLI(['--verison']);
    expect(top.code).toBe(2);
    expect(top.stderr).toContain('unknown flag "--verison" (did you mean "--version"?)');
    const flag = runCLI(['render', '--payload-versoin', '4.22.0']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('unknown flag --payload-versoin (did you mean --payload-version?)');
    const banana = runCLI(['render', '--payload-version', 'banana', '--authoritative-feature-gate-dir', release('4.22')]);
    expect(banana.code).toBe(2);
    expect(banana.stderr).toContain('--payload-version: unparsable version "banana"');
    const stray = runCLI(['render', 'stray', '--payload-version', '4.22.0', '--authoritative-feature-gate-dir', release('4.22')]);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('unexpected argument "stray" (takes no arguments)');
    const output = runCLI(['status', '-o', 'jsno']);
    expect(output.code).toBe(2);
    expect(output.stderr).toContain('-o must be one of table, wide, json, yaml, got "jsno" (did you mean "json"?)');
  });

  it('completion scripts for bash and zsh name every command; bash parses them', () => {
    const bash = runCLI(['completion', 'bash']);
    expect(bash.code).toBe(0);
    for (const c of ['explain', 'diff', 'preview', 'standalone', '--payload-version']) expect(bash.stdout).toContain(c);
    expect(spawnSync('bash', ['-n'], { input: bash.stdout }).status).toBe(0);
    const zsh = runCLI(['completion', 'zsh']);
    expect(zsh.code).toBe(0);
    expect(zsh.stdout).toContain('#compdef featuregates');
    expect(runCLI(['completion', 'fish']).code).toBe(2);
  });

  it('status -o wide lists the gate names of each version; -o yaml parses', async () => {
    await setFeatureGateStatus(kubeConfig(), [{ version: '4.22.1', enabled: ['WideOn'], disabled: ['WideOff'] }]);
    const wide = runCLI(['status', '--kubeconfig', kubeconfigPath(), '-o', 'wide']);
    expect(wide.code).toBe(0);
    expect(wide.stdout).toContain('4.22.1 enabled:  WideOn');
    expect(wide.stdout).toContain('4.22.1 disabled: WideOff');
    const yaml = parse(runCLI(['status', '--kubeconfig', kubeconfigPath(), '-o', 'yaml']).stdout);
    expect(yaml.versions[0]).toMatchObject({ version: '4.22.1', enabled: 1, enabledNames: ['WideOn'] });
  });

  it('--log-format text writes readable lines (no colour off a terminal, or with NO_COLOR); a bad value exits 2', () => {
    const dir = tempDir('fgc-logfmt-');
    const args = ['standalone', 'check', '--version', '4.21.0', '--config', join(dir, 'none.yaml'), '--data-dir', join(dir, 'data'), '--backup-dir', join(dir, 'b')];
    writeFileSync(join(dir, 'none.yaml'), '');
    const text = runCLI([...args, '--log-format', 'text']);
    expect(text.code).toBe(0);
    expect(text.stderr).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}Effective configuration component=featuregates-standalone /m);
    expect(text.stderr).not.toContain('\x1b[');
    expect(runCLI([...args, '--log-format', 'xml']).code).toBe(2);
  });
});

// The real release series, table-tested against an oracle that reads the manifest files directly (not
// through the registry): for each consecutive pair and for Default and TechPreviewNoUpgrade, what diff says
// flips is exactly what the two manifests' lists say.
describe('diff across the openshift/api release series', () => {
  const manifestLists = (r: string, set: string) => {
    const dir = release(r);
    const file = readdirSync(dir).find((f) => f.endsWith(`SelfManagedHA-${set}.yaml`));
    const fg = JSON.parse(readFileSync(join(dir, file!), 'utf8')) as { status: { featureGates: { enabled: { name: string }[]; disabled: { name: string }[] }[] } };
    const e = fg.status.featureGates[0]!;
    return { enabled: e.enabled.map((g) => g.name), disabled: e.disabled.map((g) => g.name) };
  };
  const series = ['4.16', '4.17', '4.18', '4.19', '4.20', '4.21', '4.22', '4.23', '5.0', '5.1'];
  const cases = series.slice(1).flatMap((to, i) => ['Default', 'TechPreviewNoUpgrade'].map((set) => [series[i]!, to, set] as const));
  it.each(cases)('%s → %s, %s', (from, to, set) => {
    const r = runCLI(['diff', '--from', release(from), '--to', release(to), '--from-version', `${from}.0`, '--to-version', `${to}.0`, '--feature-set', set, '-o', 'json']);
    const a = manifestLists(from, set);
    const b = manifestLists(to, set);
    const state = (l: { enabled: string[]; disabled: string[] }, n: string) => (l.enabled.includes(n) ? 'enabled' : l.disabled.includes(n) ? 'disabled' : undefined);
    const names = [...new Set([...a.enabled, ...a.disabled, ...b.enabled, ...b.disabled])];
    const expected = {
      added: names.filter((n) => !state(a, n) && state(b, n)).map((name) => ({ name, state: state(b, name) })),
      removed: names.filter((n) => state(a, n) && !state(b, n)).map((name) => ({ name, state: state(a, name) })),
      enabledToDisabled: names.filter((n) => state(a, n) === 'enabled' && state(b, n) === 'disabled'),
      disabledToEnabled: names.filter((n) => state(a, n) === 'disabled' && state(b, n) === 'enabled'),
    };
    const byName = (x: { name: string }, y: { name: string }) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0);
    const got = JSON.parse(r.stdout);
    expect({
      added: [...got.added].sort(byName),
      removed: [...got.removed].sort(byName),
      enabledToDisabled: [...got.enabledToDisabled].sort(),
      disabledToEnabled: [...got.disabledToEnabled].sort(),
    }).toEqual({
      added: expected.added.sort(byName),
      removed: expected.removed.sort(byName),
      enabledToDisabled: expected.enabledToDisabled.sort(),
      disabledToEnabled: expected.disabledToEnabled.sort(),
    });
    const empty = Object.values(expected).every((l) => l.length === 0);
    expect(r.code).toBe(empty ? 0 : 1);
  });
});

describe('featuregates gen gate-names', () => {
  it('writes the same module as the checked-in fixture for the current payload, to a file or stdout', () => {
    const dir = join(PAYLOAD_ROOT, 'current');
    const out = join(tempDir('fgc-gen-'), 'gate-names.ts');
    const r = runCLI(['gen', 'gate-names', '--payload-dir', dir, '-o', out]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^wrote \d+ gate names to /);
    const fixture = readFileSync(join('test', 'fixtures', 'gate-names.generated.ts'), 'utf8');
    const body = (t: string) => t.split('\n').slice(1).join('\n'); // the first line names the source folder
    expect(body(readFileSync(out, 'utf8'))).toBe(body(fixture));
    expect(body(runCLI(['gen', 'gate-names', '--payload-dir', dir]).stdout)).toBe(body(fixture));
    expect(runCLI(['gen', 'names', '--payload-dir', dir]).code).toBe(2);
  });
});
