// Where kube-apiserver and etcd come from: explicit paths, then TEST_ASSET_KUBE_APISERVER /
// TEST_ASSET_ETCD, then KUBEBUILDER_ASSETS (as controller-runtime's envtest), then the project's own
// build from Go modules (hack/envtest/build.sh, cached by version).
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ControlPlaneBinaries {
  kubeAPIServer: string;
  etcd: string;
}

/** The package root (the folder holding package.json), from sources or from dist/. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'hack', 'envtest'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the featuregate-coordinator package root (hack/envtest)');
    dir = parent;
  }
}

function executable(path: string, what: string): string {
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new Error(`${what}: ${path} is not an executable file`);
  }
  return path;
}

export function resolveBinaries(assetsDir?: string, env: NodeJS.ProcessEnv = process.env): ControlPlaneBinaries {
  if (assetsDir) {
    return {
      kubeAPIServer: executable(join(assetsDir, 'kube-apiserver'), 'assetsDir'),
      etcd: executable(join(assetsDir, 'etcd'), 'assetsDir'),
    };
  }
  if (env.TEST_ASSET_KUBE_APISERVER && env.TEST_ASSET_ETCD) {
    return {
      kubeAPIServer: executable(env.TEST_ASSET_KUBE_APISERVER, 'TEST_ASSET_KUBE_APISERVER'),
      etcd: executable(env.TEST_ASSET_ETCD, 'TEST_ASSET_ETCD'),
    };
  }
  if (env.KUBEBUILDER_ASSETS) {
    return {
      kubeAPIServer: executable(join(env.KUBEBUILDER_ASSETS, 'kube-apiserver'), 'KUBEBUILDER_ASSETS'),
      etcd: executable(join(env.KUBEBUILDER_ASSETS, 'etcd'), 'KUBEBUILDER_ASSETS'),
    };
  }
  const script = join(packageRoot(), 'hack', 'envtest', 'build.sh');
  let out: string;
  try {
    // Progress goes to our stderr; a warm cache answers in well under a second.
    out = execFileSync('bash', [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  } catch (e) {
    throw new Error(`building the test control plane with ${script} failed (see its output above); ` +
      `set KUBEBUILDER_ASSETS to a folder with kube-apiserver and etcd to skip the build: ${(e as Error).message}`, { cause: e });
  }
  const dir = resolve(out.trim().split('\n').pop() ?? '');
  return {
    kubeAPIServer: executable(join(dir, 'kube-apiserver'), script),
    etcd: executable(join(dir, 'etcd'), script),
  };
}
