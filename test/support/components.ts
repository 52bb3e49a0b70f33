// kube-controller-manager and kube-scheduler v1.36 (built by hack/envtest/build.sh beside kube-apiserver) run
// over a test control plane: on a loopback secure port with a self-signed serving certificate (its CA
// written into the cert file, which is what `--component-ca-file` takes), delegated authentication and
// authorization against the plane (so a token is judged by TokenReview and SubjectAccessReview, as
// Prometheus' scrape is), no leader election, and as little work as possible (KCM runs one cheap controller).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ControlPlane } from '../../sdk/testing/index.js';
import { packageRoot } from '../../control-plane/binaries.js';
import { freePort, poll } from '../../control-plane/readiness.js';
import { rawRequest } from '../../control-plane/raw-request.js';
import { startSupervised, type SupervisedProcess } from '../../control-plane/supervised-process.js';

export type ComponentName = 'kube-controller-manager' | 'kube-scheduler';

export interface RunningComponent {
  readonly name: ComponentName;
  /** https://127.0.0.1:<port> */
  readonly url: string;
  /** The PEM file of its self-signed serving certificate and the CA that signed it. */
  readonly certFile: string;
  stop(): Promise<void>;
  /** Starts it again on the same port; `extraArgs` replaces the extra flags. */
  start(extraArgs?: readonly string[]): Promise<void>;
}

const dirs = new Map<string, string>();
/**
 * KUBEBUILDER_ASSETS when set (the local minor only), else the project's build (warm: instant; cold: the binaries
 * take minutes); `kubernetes`: another minor's binaries (`hack/envtest/build.sh --kubernetes 1.37`).
 */
export function componentsDir(kubernetes?: string): string {
  if (process.env.KUBEBUILDER_ASSETS && kubernetes === undefined) return process.env.KUBEBUILDER_ASSETS;
  const key = kubernetes ?? '';
  let dir = dirs.get(key);
  if (!dir) {
    dir = execFileSync('bash', [join(packageRoot(), 'hack', 'envtest', 'build.sh'), '--with-components', ...(kubernetes ? ['--kubernetes', kubernetes] : [])],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim().split('\n').pop()!;
    dirs.set(key, dir);
  }
  return dir;
}

/** Starts `name` over `plane` with `extraArgs` (`--feature-gates=…`, `--emulated-version=…`); resolves once /healthz answers. */
export async function startComponent(
  plane: ControlPlane,
  name: ComponentName,
  extraArgs: readonly string[] = [],
): Promise<RunningComponent> {
  const binary = join(componentsDir(), name);
  const port = await freePort();
  const certDir = join(plane.dir, `${name}-certs`);
  const base = [
    `--kubeconfig=${plane.kubeconfigPath}`,
    `--authentication-kubeconfig=${plane.kubeconfigPath}`,
    `--authorization-kubeconfig=${plane.kubeconfigPath}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    `--cert-dir=${certDir}`,
    '--leader-elect=false',
    ...(name === 'kube-controller-manager' ? ['--controllers=ttl-controller'] : []),
    '--v=1',
  ];
  let args = extraArgs;
  let proc: SupervisedProcess | undefined;
  const url = `https://127.0.0.1:${port}`;
  const component: RunningComponent = {
    name,
    url,
    certFile: join(certDir, `${name}.crt`),
    async stop() {
      await proc?.stop();
    },
    async start(next?: readonly string[]) {
      if (proc?.isRunning()) return;
      if (next) args = next;
      const p = startSupervised(name, binary, [...base, ...args], join(plane.dir, `${name}.log`), 3_000);
      proc = p;
      // /healthz is always allowed; the serving certificate is written before the port opens.
      await poll(`${name} /healthz`, 60_000, p, async () => (await rawRequest(`${url}/healthz`, {})).status === 200);
      readFileSync(component.certFile);
    },
  };
  await component.start();
  return component;
}
