// The npm package as a consumer gets it: `npm pack`, install the tarball into a fresh project, import
// featuregate-coordinator/sdk from ESM and from CommonJS require() on this Node, and type-check an ESM consumer;
// and a project set up only as docs/sdk.md says compiles the shipped example and runs its two tests.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { resolveBinaries } from '../../sdk/testing/index.js';
import { tempDirs } from '../support/temp.js';

const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 240_000 });

describe('npm package', () => {
  const tempDir = tempDirs();
  let tarball: string;

  beforeAll(() => {
    const out = tempDir('fgc-pack-');
    npm(['pack', '--pack-destination', out, '--ignore-scripts'], process.cwd()); // npm test already built dist/
    tarball = join(out, readdirSync(out).find((f) => f.endsWith('.tgz'))!);
  }, 120_000);

  it('installs from the packed tarball and works from ESM, CommonJS and TypeScript consumers', () => {
    const files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).split('\n');
    for (const f of ['package/dist/sdk/index.js', 'package/dist/sdk/index.d.ts', 'package/dist/sdk/testing/index.d.ts', 'package/dist/api-types/index.d.ts',
      'package/docs/sdk.md', 'package/deploy/crds/featuregates.config.openshift.io.yaml', 'package/hack/envtest/build.sh',
      'package/examples/component-operator/main.ts', 'package/examples/component-operator/feature-gates.jest.test.ts']) expect(files).toContain(f);
    expect(files.some((f) => f.startsWith('package/test/'))).toBe(false);

    const consumer = tempDir('fgc-consumer-');
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
    npm(['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], consumer);

    // The bin doubles as a kubectl plugin: kubectl finds kubectl-featuregates on PATH.
    const kubectl = resolveBinaries().kubectl;
    expect(kubectl).toBeDefined();
    const plugin = execFileSync(kubectl!, ['featuregates', 'version'], {
      encoding: 'utf8', env: { ...process.env, PATH: `${join(consumer, 'node_modules', '.bin')}:${dirname(process.execPath)}:${process.env.PATH}` },
    });
    expect(plugin).toMatch(/^featuregates \d+\.\d+\.\d+ \(node v/);

    writeFileSync(join(consumer, 'esm.mjs'), [
      "import { FeatureGates, renderKubeAPIServerArgs, staticFeatureGateAccess } from 'featuregate-coordinator/sdk';",
      "import { startControlPlane } from 'featuregate-coordinator/sdk/testing';",
      "import { resolveFeatureSet } from 'featuregate-coordinator/api-types';",
      "const g = staticFeatureGateAccess({ enabled: ['A'], disabled: ['B'] }).current();",
      "console.log(JSON.stringify({ args: renderKubeAPIServerArgs(g), isClass: g instanceof FeatureGates, fns: [typeof startControlPlane, typeof resolveFeatureSet] }));",
    ].join('\n'));
    const esm = JSON.parse(execFileSync(process.execPath, ['esm.mjs'], { cwd: consumer, encoding: 'utf8' }));
    expect(esm).toEqual({ args: ['--feature-gates=A=true', '--feature-gates=B=false'], isClass: true, fns: ['function', 'function'] });

    writeFileSync(join(consumer, 'cjs.cjs'), [
      "const sdk = require('featuregate-coordinator/sdk');",
      "const g = new sdk.FeatureGates(['X'], []);",
      "console.log(JSON.stringify({ x: g.enabled('X'), create: typeof sdk.createFeatureGateAccess }));",
    ].join('\n'));
    const cjs = JSON.parse(execFileSync(process.execPath, ['cjs.cjs'], { cwd: consumer, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
    expect(cjs).toEqual({ x: true, create: 'function' });

    writeFileSync(join(consumer, 'main.ts'), [
      "import { createFeatureGateAccess, type FeatureGates } from 'featuregate-coordinator/sdk';",
      "import type { FeatureGate } from 'featuregate-coordinator/api-types';",
      "export function on(g: FeatureGates): boolean { return g.enabled('A'); }",
      "export const make = createFeatureGateAccess;",
      "export const fg: FeatureGate = { apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', metadata: { name: 'cluster' }, spec: {} };",
    ].join('\n'));
    writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true, types: [] },
      files: ['main.ts'],
    }));
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ ...JSON.parse(execFileSync('cat', [join(consumer, 'package.json')], { encoding: 'utf8' })), type: 'module' }));
    execFileSync(process.execPath, [join(process.cwd(), 'node_modules', 'typescript', 'bin', 'tsc'), '-p', consumer], { encoding: 'utf8' });

    writeFileSync(join(consumer, 'bad.ts'), "import { FeatureGates } from 'featuregate-coordinator/sdk';\nconst n: number = new FeatureGates([], []);\n");
    writeFileSync(join(consumer, 'tsconfig.bad.json'), JSON.stringify({ extends: './tsconfig.json', files: ['bad.ts'] }));
    let typeErrors = '';
    try {
      execFileSync(process.execPath, [join(process.cwd(), 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(consumer, 'tsconfig.bad.json')], { encoding: 'utf8', stdio: 'pipe' });
    } catch (e) {
      typeErrors = String((e as { stdout?: string }).stdout);
    }
    expect(typeErrors).toContain("error TS2322: Type 'FeatureGates<string>' is not assignable to type 'number'");

    // The peer dependency: npm installed @kubernetes/client-node 2.x beside the SDK, and the consumer's own
    // KubeConfig drives an accessor against a control plane started through featuregate-coordinator/sdk/testing.
    expect(npm(['ls', '@kubernetes/client-node', '--all'], consumer)).toMatch(/@kubernetes\/client-node@2\.\d+\.\d+/);
    writeFileSync(join(consumer, 'e2e.mjs'), [
      "import { KubeConfig } from '@kubernetes/client-node';",
      "import { createFeatureGateAccess } from 'featuregate-coordinator/sdk';",
      "import { startControlPlane, bundledCRDPaths, setClusterVersion, setFeatureGateStatus } from 'featuregate-coordinator/sdk/testing';",
      'const plane = await startControlPlane({ crdPaths: bundledCRDPaths() });',
      'try {',
      '  const kc = new KubeConfig();',
      '  kc.loadFromFile(plane.kubeconfigPath);',
      "  await setClusterVersion(kc, { history: ['4.22.1'] });",
      "  await setFeatureGateStatus(kc, [{ version: '4.22.1', enabled: ['A'], disabled: ['B'] }]);",
      "  const access = createFeatureGateAccess({ kubeConfig: kc, desiredVersion: '4.22.1', component: 'consumer', onChange: () => undefined });",
      '  access.start();',
      '  const gates = await access.waitForInitial({ timeoutMs: 30000 });',
      "  console.log(JSON.stringify({ node: process.versions.node.split('.')[0], A: gates.enabled('A'), B: gates.enabled('B') }));",
      '  await access.stop();',
      '} finally {',
      '  await plane.stop();',
      '}',
    ].join('\n'));
    const e2e = JSON.parse(execFileSync(process.execPath, ['e2e.mjs'], { cwd: consumer, encoding: 'utf8', timeout: 120_000,
      env: { ...process.env, KUBEBUILDER_ASSETS: process.env.KUBEBUILDER_ASSETS ?? dirname(resolveBinaries().kubeAPIServer) } }));
    expect(e2e).toEqual({ node: '24', A: true, B: false });
  }, 300_000);

  it('docs/sdk.md\'s set-up block, run as written from an empty folder, compiles the shipped example with --strict and passes its node:test and Jest tests', () => {
    const home = tempDir('fgc-docs-consumer-');
    const doc = readFileSync(join(process.cwd(), 'docs', 'sdk.md'), 'utf8');
    const section = doc.split('## Your project: TypeScript and tests')[1]!.split('\n## ')[0]!;
    const block = /^```sh\n([\s\S]*?)^```$/m.exec(section)![1]!;
    expect(block).toContain('npm pkg set type=module');
    // The block's `npm install`s, pointed at the packed tarball and at this project's pinned versions of the
    // dev tools (offline from the npm cache where it can); every other command runs as written.
    const pins = (JSON.parse(readFileSync('package.json', 'utf8')) as { devDependencies: Record<string, string> }).devDependencies;
    const pinned = ['typescript', '@types/node', 'jest', '@jest/globals', '@swc/core', '@swc/jest', '@kubernetes/client-node']
      .map((n) => `${n}) a+=("${n}@${pins[n]}") ;;`).join(' ');
    const npmShim = `npm() {
  if [[ "$1" != install ]]; then command npm "$@"; return; fi
  local a=() x; shift
  for x in "$@"; do
    case "\${x%@^2}" in featuregate-coordinator) a+=("${tarball}") ;; ${pinned} *) a+=("$x") ;; esac
  done
  command npm install --no-audit --no-fund --prefer-offline "\${a[@]}"
}
`;
    // stdin not a socket: see deploy.test.ts (bash reads /etc/bash.bashrc for an "rsh" stdin when SHLVL is unset).
    const r = spawnSync('bash', ['-euo', 'pipefail', '-c', `${npmShim}cd "$HOME"\n${block}`], {
      encoding: 'utf8',
      timeout: 400_000,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, HOME: home, KUBEBUILDER_ASSETS: process.env.KUBEBUILDER_ASSETS ?? dirname(resolveBinaries().kubeAPIServer) },
    });
    const project = join(home, 'my-operator');
    expect({ code: r.status, tail: r.status === 0 ? '' : `${r.stdout.slice(-2000)}\n${r.stderr.slice(-3000)}` }).toEqual({ code: 0, tail: '' });
    expect(readdirSync(join(project, 'build'))).toEqual(expect.arrayContaining(['main.js', 'feature-gates.node.test.js']));
    expect(r.stdout).toMatch(/^ℹ pass 1$/m); // node:test (spec reporter)
    expect(r.stdout).toMatch(/^ℹ fail 0$/m);
    expect(r.stderr).toMatch(/^Tests: +1 passed, 1 total$/m); // Jest
  }, 420_000);
});
