// On a machine without Go, npm test runs on what a Go machine built and fetched before (README § Requirements): the
// build scripts find the binaries they built without asking Go, take another minor's from KUBEBUILDER_ASSETS_X_Y, and
// the readers of upstream sources find their modules in the module cache. Each path is run here with every folder that
// holds a `go` taken off PATH, and each refusal names what is missing and the variable that supplies it.
import { describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { packageRoot } from '../../control-plane/binaries.js';
import { tempDirs } from '../support/temp.js';

const tempDir = tempDirs();
const ROOT = packageRoot();
const noGoPath = (process.env.PATH ?? '').split(delimiter).filter((d) => d && !existsSync(join(d, 'go'))).join(delimiter);
const GOMODCACHE = execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();

/** Runs `args` with Go off PATH and no KUBEBUILDER_ASSETS* but what `env` sets. */
function withoutGo(command: string, args: string[], env: Record<string, string> = {}) {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('KUBEBUILDER_ASSETS')));
  const r = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', env: { ...base, PATH: noGoPath, ...env }, timeout: 60_000 });
  return { status: r.status, out: r.stdout.trim().split('\n').pop() ?? '', err: r.stderr };
}
const build = (args: string[], env?: Record<string, string>) => withoutGo('bash', [join(ROOT, 'hack', 'envtest', 'build.sh'), ...args], env);
const withGo = (args: string[]) => execFileSync('bash', [join(ROOT, 'hack', 'envtest', 'build.sh'), ...args], { encoding: 'utf8' }).trim().split('\n').pop()!;

describe('npm test without Go', () => {
  it('takes Go off PATH (the runs below could not reach it)', () => {
    expect(spawnSync('go', ['version'], { env: { ...process.env, PATH: noGoPath } }).error).toMatchObject({ code: 'ENOENT' });
  });

  it('finds the binaries built before, of both minors, without Go', () => {
    const local = withGo(['--with-components']);
    expect(build(['--with-components'])).toEqual({ status: 0, out: local, err: '' });
    const other = withGo(['--with-components', '--kubernetes', '1.37']);
    expect(build(['--with-components', '--kubernetes', '1.37'])).toEqual({ status: 0, out: other, err: '' });
  });

  it('takes another minor\'s binaries from KUBEBUILDER_ASSETS_1_37, and names the one its folder lacks', () => {
    const other = withGo(['--with-components', '--kubernetes', '1.37']);
    const given = build(['--with-components', '--kubernetes', '1.37'], { KUBEBUILDER_ASSETS_1_37: other, ENVTEST_CACHE_DIR: tempDir('fgc-no-go-') });
    expect([given.status, given.out]).toEqual([0, other]);
    const empty = tempDir('fgc-no-go-assets-');
    const refused = build(['--with-components', '--kubernetes', '1.37'], { KUBEBUILDER_ASSETS_1_37: empty });
    expect(refused.status).toBe(1);
    expect(refused.err).toContain(`KUBEBUILDER_ASSETS_1_37=${empty} has no executable 'kube-apiserver'`);
  });

  it('says what to install or set when there is nothing built and no Go to build it', () => {
    const r = build(['--with-components'], { ENVTEST_CACHE_DIR: tempDir('fgc-no-go-cache-') });
    expect(r.status).toBe(1);
    expect(r.err).toContain('Go is not installed or not on PATH');
    expect(r.err).toContain('set KUBEBUILDER_ASSETS to a folder holding kube-apiserver and etcd');
  });

  it('reads Kubernetes\' own sources from the module cache Go filled, and names the module a cache lacks', () => {
    const read = (cache: string) => withoutGo(process.execPath, ['--input-type=module', '-e',
      `const m = await import(${JSON.stringify(join(ROOT, 'hack', 'update-gate-rules.mjs'))}); console.log(m.moduleDir('v1.36.3'))`],
    { GOMODCACHE: cache });
    expect(read(GOMODCACHE)).toEqual({ status: 0, out: join(GOMODCACHE, 'k8s.io', 'kubernetes@v1.36.3'), err: '' });
    const empty = tempDir('fgc-no-go-modcache-');
    const refused = read(empty);
    expect(refused.status).toBe(1);
    expect(refused.err).toContain(`the module cache has no k8s.io/kubernetes@v1.36.3 (${join(empty, 'k8s.io', 'kubernetes@v1.36.3')})`);
  });

  it('finds the Prometheus operator\'s CRDs in the module cache', () => {
    const script = join(ROOT, 'hack', 'promtool', 'prometheus-operator-crds.sh');
    const expected = execFileSync('bash', [script], { encoding: 'utf8' }).trim();
    expect(withoutGo('bash', [script], { GOMODCACHE })).toEqual({ status: 0, out: expected, err: '' });
  });
});
