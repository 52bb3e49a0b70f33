// Standalone mode against the configuration a single-node admin actually writes: YAML as MicroShift reads it,
// multi-document files, symlinked drop-ins and loops, comment-only files, unreadable configuration, unknown keys and
// near misses of apiServer.featureGates. Each case runs the shipped CLI on fresh temp dirs and checks the exit code
// and exactly what was (not) written (test/support/standalone-node.ts).
import { describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCLI } from '../support/cli.js';
import { check, custom, expectInvalid, gates, node } from '../support/standalone-node.js';

describe('YAML as MicroShift reads it (YAML 1.1)', () => {
  it.each([
    ['on', 'true'], ['off', 'false'], ['yes', 'true'], ['No', 'false'], ['y', 'true'],
  ])('`enabled: [%s]` is a boolean, so a type error naming file, not a gate', (word, value) => {
    const n = node({ 'config.d/10-gates.yaml': custom([]).replace('enabled: []', `enabled: [${word}]`) });
    const r = check(n, '4.21.0');
    expectInvalid(n, r, `invalid configuration: ${join(n.configDir, '10-gates.yaml')}: apiServer.featureGates.customNoUpgrade.enabled[0]: expected a string, got boolean`);
    expect(value).toMatch(/true|false/);
  });

  it('`<<: *anchor` merge keys apply', () => {
    const n = node({
      'config.yaml': 'base: &lists\n  enabled: [FromAnchor]\n  disabled: [AlsoAnchor]\napiServer:\n  featureGates:\n    featureSet: CustomNoUpgrade\n    customNoUpgrade:\n      <<: *lists\n      disabled: [Own]\n',
    });
    const r = check(n, '4.21.0');
    expect(r.code).toBe(0);
    expect(readFileSync(n.lock, 'utf8')).toBe('customNoUpgrade:\n  disabled:\n    - Own\n  enabled:\n    - FromAnchor\nfeatureSet: CustomNoUpgrade\nversion: 4.21.0\n');
  });

  it('a duplicate key is refused (MicroShift keeps the last) with file:line:column', () => {
    const n = node({ 'config.yaml': gates('featureSet: CustomNoUpgrade\nfeatureSet: CustomNoUpgrade') });
    expectInvalid(n, check(n, '4.21.0'), new RegExp(`invalid configuration: ${n.config.replace(/[/.]/g, '\\$&')}:4:5: Map keys must be unique`));
  });
});

describe('multi-document files (refused here; MicroShift reads only the first)', () => {
  it.each([
    ['config.yaml', `${custom(['A'])}---\n${custom(['B'])}`],
    ['config.d/10-x.yaml', `apiServer: {}\n---\n${custom(['B'])}`],
    ['config.d/20-y.yaml', `---\n---\n${custom(['B'])}`],
  ])('%s: exit 2, says it holds several documents, writes nothing', (file, text) => {
    const n = node({ [file]: text });
    expectInvalid(n, check(n, '4.21.0'), `${join(n.root, 'etc', file)}: holds `);
    expect(check(n, '4.21.0').stderr).toContain('a configuration file must hold one (MicroShift would read only the first and ignore the rest)');
  });

  it('one document with a leading --- and a trailing --- is one document', () => {
    const n = node({ 'config.yaml': `---\n${custom(['A'])}---\n` });
    expect(check(n, '4.21.0').code).toBe(0);
  });
});

describe('config.d walk', () => {
  it('reads a symlinked file, does not descend into a symlinked folder, and a folder link loop is harmless', () => {
    const n = node();
    const outside = join(n.root, 'outside');
    mkdirSync(join(outside, 'folder'), { recursive: true });
    writeFileSync(join(outside, 'gates.yaml'), custom(['ViaFileLink']));
    writeFileSync(join(outside, 'folder', '50-hidden.yaml'), custom(['ViaFolderLink']));
    symlinkSync(join(outside, 'gates.yaml'), join(n.configDir, '10-link.yaml'));
    symlinkSync(join(outside, 'folder'), join(n.configDir, '20-folder'));
    mkdirSync(join(n.configDir, '30-sub'));
    symlinkSync('..', join(n.configDir, '30-sub', 'up')); // would loop forever if followed
    const r = check(n, '4.21.0', ['--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('- ViaFileLink');
    expect(r.stdout).not.toContain('ViaFolderLink');
  });

  it('a *.yaml that is a link to a folder: invalid configuration (exit 2) naming it, as MicroShift refuses it — never skipped into a lock', () => {
    const n = node({ 'config.yaml': custom(['A']) });
    mkdirSync(join(n.root, 'a-folder'));
    const p = join(n.configDir, 'd.yaml');
    symlinkSync(join(n.root, 'a-folder'), p);
    expectInvalid(n, check(n, '4.21.0'), `invalid configuration: cannot read drop-in ${p}: is a directory, not a file (a symbolic link to "${join(n.root, 'a-folder')}")`);
  });

  it.each([
    ['a link to itself', (p: string) => symlinkSync(p, p), 'is a symbolic link loop'],
    ['a dangling link', (p: string) => symlinkSync(`${p}.missing`, p), 'does not exist'],
  ])('a *.yaml that is %s: invalid configuration (exit 2), never a refused start or a failure log', (_what, make, text) => {
    const n = node({ 'config.yaml': custom(['A']) });
    const p = join(n.configDir, '10-loop.yaml');
    make(p);
    expectInvalid(n, check(n, '4.21.0'), `invalid configuration: cannot read drop-in ${p}: ${text}`);
  });
});

describe('a file of comments only (YAML null), as MicroShift merges it', () => {
  it.each([
    ['config.yaml', { 'config.yaml': '# nothing here yet\n', 'config.d/10-gates.yaml': custom(['A']) }, 'config.yaml'],
    ['a drop-in', { 'config.yaml': custom(['A']), 'config.d/20-notes.yaml': '# notes\n# more notes\n' }, 'config.d/20-notes.yaml'],
  ])('%s of comments beside one that sets CustomNoUpgrade: invalid (exit 2), no lock — MicroShift refuses to start', (_what, files, culprit) => {
    const n = node(files);
    expectInvalid(n, check(n, '4.21.0'), `${join(n.root, 'etc', culprit)}: holds no settings, only comments (a YAML null); MicroShift cannot merge it`);
  });

  it('alone, or when empty or whitespace (which MicroShift skips), it sets nothing and the start is allowed', () => {
    for (const text of ['# only a comment\n', '', '  \n\n']) {
      const n = node({ 'config.yaml': text });
      const r = check(n, '4.21.0', ['--dry-run']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('lock: none, and none would be created');
    }
    const n = node({ 'config.yaml': '\n', 'config.d/10-gates.yaml': custom(['A']) });
    expect(check(n, '4.21.0', ['--dry-run']).stdout).toContain('a real start would CREATE THE LOCK');
  });
});

describe('unreadable or missing configuration', () => {
  it('a directory where config.yaml should be: exit 2 naming it, not EISDIR as a refused start', () => {
    const n = node();
    rmSync(n.config);
    mkdirSync(n.config);
    expectInvalid(n, check(n, '4.21.0'), `invalid configuration: cannot read ${n.config}: is a directory, not a file`);
  });

  it('an explicit --config or --config-dir that does not exist is an error; absent defaults are not', () => {
    const n = node();
    rmSync(n.config);
    expectInvalid(n, check(n, '4.21.0'), `invalid configuration: --config ${n.config}: does not exist`);
    rmSync(n.configDir, { recursive: true });
    expectInvalid(n, check(n, '4.21.0', [], { config: false, configDir: true }), `invalid configuration: --config-dir ${n.configDir}: does not exist`);
  });
});

describe('unknown keys under apiServer.featureGates (beyond MicroShift)', () => {
  it.each([
    ['featureSet: CustomNoUpgrade\ncustomNoUpgade:\n  enabled: [A]', 'apiServer.featureGates: unknown key "customNoUpgade" (did you mean "customNoUpgrade"?)'],
    ['featureSet: CustomNoUpgrade\ncustomNoUpgrade:\n  enabeld: [A]', 'apiServer.featureGates.customNoUpgrade: unknown key "enabeld" (did you mean "enabled"?)'],
    ['featureset: CustomNoUpgrade', 'apiServer.featureGates: unknown key "featureset" (did you mean "featureSet"?); known keys: featureSet, customNoUpgrade, specialHandlingSupportExceptionRequired'],
  ])('%j → exit 2 with a suggestion, no lock', (body, message) => {
    const n = node({ 'config.d/10-typo.yaml': gates(body) });
    expectInvalid(n, check(n, '4.21.0'), `invalid configuration: ${join(n.configDir, '10-typo.yaml')}: ${message}`);
  });

  it('keys elsewhere in the file belong to the rest of the node and are ignored', () => {
    const n = node({ 'config.yaml': `dns:\n  baseDomain: example.com\nkubelet:\n  anything: 1\n${custom(['A'])}` });
    expect(check(n, '4.21.0').code).toBe(0);
  });
});


describe('a near miss of apiServer.featureGates', () => {
  it.each(['featureGate', 'featuregates', 'featureGats'])('apiServer.%s is ignored as MicroShift ignores it, but said loudly on every command', (key) => {
    const n = node({ 'config.yaml': `apiServer:\n  ${key}:\n    featureSet: CustomNoUpgrade\n` });
    const args = ['--version', '4.21.0', '--config', n.config, '--config-dir', n.configDir, '--data-dir', n.dataDir, '--backup-dir', n.backupDir];
    for (const cmd of [['check', '--dry-run'], ['render'], ['check']]) {
      const r = runCLI(['standalone', ...cmd, ...args]);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(`warning: ${n.config}: apiServer.${key} is not a key MicroShift reads (did you mean apiServer.featureGates?): ` +
        'it is ignored, and no feature gate is set from it');
    }
    expect(existsSync(n.lock)).toBe(false); // nothing was chosen
  });

  it('says nothing about keys that are not near it', () => {
    const n = node({ 'config.yaml': 'apiServer:\n  auditLog:\n    profile: Default\n  subjectAltNames: [a]\n' });
    const r = runCLI(['standalone', 'check', '--dry-run', '--version', '4.21.0', '--config', n.config, '--config-dir', n.configDir, '--data-dir', n.dataDir]);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('did you mean apiServer.featureGates');
  });
});

