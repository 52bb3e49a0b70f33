// On a Node older than the engines field (this kind of machine's system Node is 20), every command either
// works or says in one line what it needs and how to get it; commands that do not talk to the API through
// @kubernetes/client-node (whose undici dies on load there) never load it.
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI } from '../support/cli.js';
import { oldNode } from '../support/old-node.js';
import { tempDirs } from '../support/temp.js';
import { MINIMUM_NODE } from '../../runtime/util/node-version.js';

const tempDir = tempDirs();
const node = oldNode();
const payload = join(process.cwd(), 'deploy', 'base', 'payload');
const COMMANDS = ['render', 'operator', 'hosted', 'status', 'standalone', 'start', 'explain', 'diff', 'preview', 'simulate', 'gen', 'version', 'completion'];

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(node, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const oneLineRefusal = new RegExp(`^featuregates \\w+: .* needs Node >= ${MINIMUM_NODE.replace(/\./g, '\\.')}, this is v\\d+\\.\\d+\\.\\d+: run it with \`npx featuregates …\` in the project .*\\n$`);

describe(`the CLI on an old Node (${node})`, () => {
  it('is really older than the minimum', () => {
    expect(spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout).toMatch(/^v(1\d|20|21|22\.(\d|1[0-8]))\./);
  });

  it('completion bash prints the script (it loads every command, none of them client-node)', () => {
    const r = run(['completion', 'bash']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('complete -F _featuregates featuregates');
  });

  it.each(COMMANDS)('%s --help works', (c) => {
    const r = run([c, '--help']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Usage: featuregates ${c}`);
  });

  it('render, explain and preview work from a payload folder', () => {
    const render = run(['render', '--payload-version', '4.22.0', '--authoritative-feature-gate-dir', payload, '-o', 'json']);
    expect(render.code).toBe(0);
    expect(JSON.parse(render.stdout).status.featureGates[0].version).toBe('4.22.0');
    const gate = JSON.parse(render.stdout).status.featureGates[0].enabled[0].name as string;
    const explain = run(['explain', gate, '--authoritative-feature-gate-dir', payload, '--payload-version', '4.22.0']);
    expect(explain.stderr).toBe('');
    expect(explain.code).toBe(0);
    const spec = join(tempDir('fgc-old-node-'), 'fg.yaml');
    writeFileSync(spec, 'apiVersion: config.openshift.io/v1\nkind: FeatureGate\nmetadata: {name: cluster}\nspec: {featureSet: TechPreviewNoUpgrade}\n');
    const preview = run(['preview', '-f', spec, '--authoritative-feature-gate-dir', payload, '--payload-version', '4.22.0', '-o', 'json']);
    expect(preview.stderr).toBe('');
    expect(preview.code).toBe(0);
    expect(JSON.parse(preview.stdout)).toHaveProperty('irreversible', true);
  });

  it('start with no cluster refuses in one line and says how to run it', () => {
    const r = run(['start'], { KUBECONFIG: '', KUBERNETES_SERVICE_HOST: '' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(oneLineRefusal);
    expect(r.stderr).not.toContain('undici');
  });

  it('a kubeconfig whose user runs an exec plugin refuses in one line (that path needs client-node)', () => {
    const kubeconfig = join(tempDir('fgc-old-node-'), 'kubeconfig');
    writeFileSync(kubeconfig, JSON.stringify({
      apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
      clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1' } }],
      users: [{ name: 'u', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'true' } } }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
    }));
    const r = run(['status', '--kubeconfig', kubeconfig]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(oneLineRefusal);
    expect(r.stderr).toContain(`kubeconfig ${kubeconfig} (its user runs an exec plugin or auth provider)`);
  });
});
