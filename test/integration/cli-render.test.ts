// `featuregates render` through the CLI, on every payload folder and every feature set in it.
import { describe, expect, it } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { compareNames } from '../../api-types/index.js';
import { runCLI } from '../support/cli.js';
import { payloadFolders, payloadIndex, PAYLOAD_ROOT } from '../support/payloads.js';
import { tempDirs } from '../support/temp.js';

const tmp = tempDirs()('fgc-render-');
const index = payloadIndex();
const names = (xs: { name: string }[] | null) => (xs ?? []).map((x) => x.name);

const cases = payloadFolders().flatMap(({ folder, dir, version }) =>
  index.filter((f) => f.path.startsWith(`${folder}/`) && f.featureSet !== 'LatencySensitive')
    .map((f) => ({ folder, dir, version, file: f.path, featureSet: f.specFeatureSet ?? '', profile: f.profile === 'Hypershift' ? 'ibm-cloud-managed' : 'self-managed-high-availability' })));

describe('featuregates render', () => {
  it.each(cases)('$folder $profile $featureSet', ({ dir, version, file, featureSet, profile }) => {
    const input = join(tmp, `${featureSet || 'Default'}-${version}-${profile}.yaml`);
    writeFileSync(input, `apiVersion: config.openshift.io/v1\nkind: FeatureGate\nmetadata:\n  name: cluster\nspec:\n  featureSet: "${featureSet}"\n`);
    const out = runCLI(['render', '--payload-version', version, '--authoritative-feature-gate-dir', dir, '--featuregate', input, '--cluster-profile', profile, '-o', 'json']);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const rendered = JSON.parse(out.stdout);
    expect(rendered.spec).toEqual({ featureSet });
    expect(rendered.status.featureGates).toHaveLength(1);
    const entry = rendered.status.featureGates[0];
    expect(entry.version).toBe(version);
    const manifest = JSON.parse(readFileSync(join(PAYLOAD_ROOT, file), 'utf8')).status.featureGates[0];
    if (featureSet === 'CustomNoUpgrade') {
      // an empty custom set is Default
      const def = index.find((f) => f.path.startsWith(file.slice(0, file.lastIndexOf('/') + 1)) && f.featureSet === 'Default')!;
      const d = JSON.parse(readFileSync(join(PAYLOAD_ROOT, def.path), 'utf8')).status.featureGates[0];
      expect(names(entry.enabled)).toEqual(names(d.enabled).sort(compareNames));
    } else {
      expect(names(entry.enabled)).toEqual(names(manifest.enabled).sort(compareNames));
      expect(names(entry.disabled)).toEqual(expect.arrayContaining(names(manifest.disabled)));
    }
    const all = [...names(entry.enabled), ...names(entry.disabled)];
    expect(new Set(all).size).toBe(all.length);
  });

  it('prints YAML by default and renders an empty spec when --featuregate is absent', () => {
    const { dir, version } = payloadFolders().find((f) => f.folder === 'current')!;
    const out = runCLI(['render', '--payload-version', version, '--authoritative-feature-gate-dir', dir, '--cluster-profile', 'ibm-cloud-managed']);
    expect(out.code).toBe(0);
    const fg = parse(out.stdout);
    expect(fg.metadata).toEqual({ name: 'cluster', annotations: { 'include.release.openshift.io/ibm-cloud-managed': 'true' } });
    expect(fg.status.featureGates[0].enabled).toHaveLength(38);
    expect(fg.status.featureGates[0].disabled).toHaveLength(88);
  });

  it('fails with a usage error (exit 2) on missing flags and a clear error (exit 1) on bad input', () => {
    const missing = runCLI(['render', '--authoritative-feature-gate-dir', tmp]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--payload-version is required');
    const noDir = runCLI(['render', '--payload-version', '4.1.0', '--authoritative-feature-gate-dir', join(tmp, 'nope')]);
    expect(noDir.code).toBe(1);
    expect(noDir.stderr).toMatch(/cannot read payload manifest folder .*nope/);
    const bad = join(tmp, 'bad.yaml');
    writeFileSync(bad, 'kind: FeatureGate\nspec:\n  featureSet: [1\n');
    const badFile = runCLI(['render', '--payload-version', '4.22.0', '--authoritative-feature-gate-dir', payloadFolders()[0]!.dir, '--featuregate', bad]);
    expect(badFile.code).toBe(1);
    expect(badFile.stderr).toContain(`${bad}:4:1: Flow sequence in block collection must be sufficiently indented`); // file:line:col, as every YAML error
    const profile = runCLI(['render', '--payload-version', '4.22.0', '--authoritative-feature-gate-dir', payloadFolders()[0]!.dir, '--cluster-profile', 'hypershift']);
    expect(profile.code).toBe(2);
    expect(profile.stderr).toContain('--cluster-profile must be one of self-managed-high-availability, ibm-cloud-managed, got "hypershift"');
    const unknown = runCLI(['render', '--bogus']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown flag --bogus');
  });
});

describe('featuregates render --featuregate with a misspelt custom gate', () => {
  it('renders it as given (as upstream does) but warns on stderr with the closest known name, as preview does', () => {
    const input = join(tmp, 'custom-typo.yaml');
    writeFileSync(input, 'apiVersion: config.openshift.io/v1\nkind: FeatureGate\nmetadata:\n  name: cluster\nspec:\n  featureSet: CustomNoUpgrade\n' +
      '  customNoUpgrade:\n    enabled: [GatewayAPIWithoutOL]\n');
    const dir = join(PAYLOAD_ROOT, 'releases', 'release-4.22');
    const out = runCLI(['render', '--payload-version', '4.22.0', '--authoritative-feature-gate-dir', dir, '--featuregate', input, '-o', 'json']);
    expect(out.code).toBe(0);
    expect(out.stderr).toBe('warning: unknown gate "GatewayAPIWithoutOL" in customNoUpgrade.enabled (did you mean "GatewayAPIWithoutOLM"?): ' +
      'the payload does not know it; it would be passed on unchecked\n');
    expect(names(JSON.parse(out.stdout).status.featureGates[0].enabled)).toContain('GatewayAPIWithoutOL');
  });
});
