// Where kube-apiserver and etcd come from: explicit paths, then TEST_ASSET_KUBE_APISERVER /
// TEST_ASSET_ETCD, then KUBEBUILDER_ASSETS (as controller-runtime's envtest), then the project's own
// build from Go modules (hack/envtest/build.sh, cached by version).
import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { join, resolve } from 'node:path';
import { packageRoot } from '../runtime/util/version.js';

export interface ControlPlaneBinaries {
  kubeAPIServer: string;
  etcd: string;
  /** kubectl, when the folder has one (the project's build does; TEST_ASSET_KUBECTL overrides). */
  kubectl?: string;
}

function withKubectl(b: ControlPlaneBinaries, dir: string | undefined, env: NodeJS.ProcessEnv): ControlPlaneBinaries {
  const candidate = env.TEST_ASSET_KUBECTL ?? (dir ? join(dir, 'kubectl') : undefined);
  if (candidate) {
    try {
      accessSync(candidate, constants.X_OK);
      return { ...b, kubectl: candidate };
    } catch { /* none */ }
  }
  return b;
}

export { packageRoot };

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
    return withKubectl({
      kubeAPIServer: executable(join(assetsDir, 'kube-apiserver'), 'assetsDir'),
      etcd: executable(join(assetsDir, 'etcd'), 'assetsDir'),
    }, assetsDir, env);
  }
  if (env.TEST_ASSET_KUBE_APISERVER && env.TEST_ASSET_ETCD) {
    return withKubectl({
      kubeAPIServer: executable(env.TEST_ASSET_KUBE_APISERVER, 'TEST_ASSET_KUBE_APISERVER'),
      etcd: executable(env.TEST_ASSET_ETCD, 'TEST_ASSET_ETCD'),
    }, undefined, env);
  }
  if (env.KUBEBUILDER_ASSETS) {
    return withKubectl({
      kubeAPIServer: executable(join(env.KUBEBUILDER_ASSETS, 'kube-apiserver'), 'KUBEBUILDER_ASSETS'),
      etcd: executable(join(env.KUBEBUILDER_ASSETS, 'etcd'), 'KUBEBUILDER_ASSETS'),
    }, env.KUBEBUILDER_ASSETS, env);
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
  return withKubectl({
    kubeAPIServer: executable(join(dir, 'kube-apiserver'), script),
    etcd: executable(join(dir, 'etcd'), script),
  }, dir, env);
}
