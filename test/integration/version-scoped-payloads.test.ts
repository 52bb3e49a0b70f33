// Payloads as openshift/api emits them once a gate is enabled from a major version on: the SelfManagedHA
// Default and OKD files split by `release.openshift.io/major-version` ("4" and "5,…,10"; the fixture is built
// from the real 5.1 folder by hack/fixtures/version-scoped.mjs). 4.x versions read the "4" files, 5.x the
// others; `-N` entries are read as cluster-config-operator reads them (ignored; "-4" alone matches nothing),
// and `explain` says where the cluster-version operator's filter would read a file differently.
import { describe, expect, it } from '@jest/globals';
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCLI } from '../support/cli.js';
import { tempDirs } from '../support/temp.js';

const tempDir = tempDirs();
const DIR = join(process.cwd(), 'test', 'fixtures', 'openshift-api', 'payload-featuregates', 'version-scoped');
const GATE = 'AutomatedEtcdBackup';

function rendered(version: string, featureSet = '', dir = DIR) {
  const fg = join(tempDir('fgc-scoped-'), 'fg.yaml');
  writeFileSync(fg, `apiVersion: config.openshift.io/v1\nkind: FeatureGate\nmetadata: {name: cluster}\nspec: {featureSet: "${featureSet}"}\n`);
  const r = runCLI(['render', '--payload-version', version, '--authoritative-feature-gate-dir', dir, '--featuregate', fg, '-o', 'json']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const entry = JSON.parse(r.stdout).status.featureGates[0] as { enabled: { name: string }[]; disabled: { name: string }[] };
  return { enabled: entry.enabled.map((g) => g.name), disabled: entry.disabled.map((g) => g.name) };
}

describe('version-scoped payload manifests', () => {
  it.each(['4.16.0', '4.23.5'])('%s: the major-4 files (the gate stays disabled in Default and OKD)', (v) => {
    expect(rendered(v).disabled).toContain(GATE);
    expect(rendered(v, 'OKD').disabled).toContain(GATE);
  });

  it.each(['5.0.0', '5.1.2', '10.0.0'])('%s: the major 5–10 files (the gate enabled in Default and OKD)', (v) => {
    expect(rendered(v).enabled).toContain(GATE);
    expect(rendered(v, 'OKD').enabled).toContain(GATE);
  });

  it('the sets not split come from the 4-10 files for both majors', () => {
    expect(rendered('4.23.0', 'TechPreviewNoUpgrade')).toEqual(rendered('5.1.0', 'TechPreviewNoUpgrade'));
  });

  it('explain names the file that decided, per major', () => {
    const four = runCLI(['explain', GATE, '--authoritative-feature-gate-dir', DIR, '--payload-version', '4.23.0']).stdout;
    expect(four).toMatch(/self-managed-high-availability\s+Default\s+disabled\s+featureGate-4-SelfManagedHA-Default\.yaml/);
    const five = runCLI(['explain', GATE, '--authoritative-feature-gate-dir', DIR, '--payload-version', '5.1.0']).stdout;
    expect(five).toMatch(/self-managed-high-availability\s+Default\s+enabled\s+featureGate-5-10-SelfManagedHA-Default\.yaml/);
    expect(five).not.toContain('note:'); // the real annotations read the same in both operators
  });

  it('"-4" alone matches nothing (as the config operator reads it), and explain says the CVO\'s filter would apply it for 5', () => {
    const dir = tempDir('fgc-scoped-minus-');
    for (const f of readdirSync(DIR).filter((n) => n !== 'featureGate-4-SelfManagedHA-Default.yaml')) copyFileSync(join(DIR, f), join(dir, f));
    const minus = JSON.parse(readFileSync(join(DIR, 'featureGate-5-10-SelfManagedHA-Default.yaml'), 'utf8'));
    minus.metadata.annotations['release.openshift.io/major-version'] = '-4';
    writeFileSync(join(dir, 'featureGate-5-10-SelfManagedHA-Default.yaml'), JSON.stringify(minus));
    const r = runCLI(['render', '--payload-version', '5.1.0', '--authoritative-feature-gate-dir', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('release.openshift.io/major-version "-4" does not contain 5');
    const x = runCLI(['explain', GATE, '--authoritative-feature-gate-dir', dir, '--payload-version', '5.1.0']);
    expect(x.stdout).toContain('  note: featureGate-5-10-SelfManagedHA-Default.yaml: release.openshift.io/major-version "-4": for major 5 the config operator ' +
      'skips this file (release.openshift.io/major-version "-4" does not contain 5), the cluster-version operator\'s manifest filter (library-go, -N excludes N) would apply it (excludes only 4)');
  });
});
