// A real local control plane for tests, put together as controller-runtime's envtest does: etcd
// (etcd.ts) and kube-apiserver (apiserver.ts) on loopback, each a supervised process that cannot outlive
// this one (supervised-process.ts); an admin identity (auth.ts); CRDs installed and waited for
// (crd-install.ts). kube-apiserver and etcd can each be stopped and started again on the same ports.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { APIServer } from './apiserver.js';
import { adminKubeconfig, writeAdminAuth } from './auth.js';
import { resolveBinaries, type ControlPlaneBinaries } from './binaries.js';
import { installCRDs, readCRDs } from './crd-install.js';
import { Etcd } from './etcd.js';
import { freePort, isPortRace } from './readiness.js';
import { rawRequest } from './raw-request.js';
import type { SupervisedProcess } from './supervised-process.js';

export interface ControlPlaneOptions {
  /**
   * CRD manifests to install and wait for: files (YAML or JSON, several documents allowed) or folders (their
   * *.yaml, *.yml and *.json files, not recursively), as envtest's CRDDirectoryPaths. Documents that are not
   * CustomResourceDefinitions (a kustomization.yaml beside the CRDs, say) are skipped.
   */
  crdPaths?: string[];
  /** A crdPaths entry that does not exist is an error (envtest's ErrorIfCRDPathMissing); default: skipped. */
  errorIfCRDPathMissing?: boolean;
  /** A folder holding kube-apiserver and etcd; defaults as in resolveBinaries. */
  assetsDir?: string;
  /** Milliseconds to wait for kube-apiserver /readyz (default 60 s, or KUBEBUILDER_CONTROLPLANE_START_TIMEOUT). */
  startTimeoutMs?: number;
  /** Extra kube-apiserver flags, e.g. ['--v=2']. */
  extraAPIServerArgs?: string[];
  /**
   * Use this running etcd (another plane's `etcdURL`) instead of starting one: several kube-apiservers then
   * share one etcd, each under its own `etcdPrefix` (kube-apiserver's --etcd-prefix), so each is a separate
   * cluster. stopEtcd/startEtcd are refused on such a plane (the etcd belongs to its owner).
   */
  etcdURL?: string;
  /** kube-apiserver's --etcd-prefix (default /registry); required with etcdURL, and unique per plane. */
  etcdPrefix?: string;
}

export interface ControlPlane {
  /** A KubeConfig for the admin identity (system:masters). */
  readonly kubeConfig: KubeConfig;
  /** Path of a kubeconfig file for the admin identity. */
  readonly kubeconfigPath: string;
  /** https://127.0.0.1:<port> */
  readonly server: string;
  /** The admin bearer token. */
  readonly adminToken: string;
  /** Folder holding the logs, keys and etcd data; removed by stop(). */
  readonly dir: string;
  /** `Kubernetes vX.Y.Z` as the binary reports it. */
  readonly version: string;
  readonly pids: { etcd: number; kubeAPIServer: number };
  /** The etcd this plane stores into (its own, or the one it shares). */
  readonly etcdURL: string;
  /** Stops kube-apiserver (etcd keeps running). */
  stopAPIServer(): Promise<void>;
  /**
   * Starts kube-apiserver again on the same port and etcd; resolves once ready. `extraArgs` replaces the
   * plane's extraAPIServerArgs from then on (a restart with other `--feature-gates`, say; include the
   * `--etcd-prefix` of a shared etcd).
   */
  startAPIServer(extraArgs?: readonly string[]): Promise<void>;
  /** Stops etcd (kube-apiserver keeps running and answers with errors). */
  stopEtcd(): Promise<void>;
  /** Starts etcd again on the same data and port; resolves once healthy. */
  startEtcd(): Promise<void>;
  /** stopAPIServer() then startAPIServer(). */
  restartAPIServer(): Promise<void>;
  /** Installs more CRDs and waits for them. */
  installCRDs(paths: string[]): Promise<void>;
  /** Stops kube-apiserver then etcd (by PID, SIGTERM then SIGKILL) and removes the folder. */
  stop(): Promise<void>;
}

export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const bins = resolveBinaries(options.assetsDir);
  const attempts = 5;
  let last: unknown;
  for (let i = 1; i <= attempts; i++) {
    try {
      return await startOnce(bins, options);
    } catch (e) {
      last = e;
      // The "pick a free port" step is racy; a lost race is an early exit. Retry, as envtest does.
      if (!isPortRace(e)) throw e;
    }
  }
  throw last;
}

async function startOnce(bins: ControlPlaneBinaries, options: ControlPlaneOptions): Promise<ControlPlane> {
  const dir = mkdtempSync(join(tmpdir(), 'fgc-controlplane-'));
  const procs: SupervisedProcess[] = [];
  try {
    if (options.etcdURL && !options.etcdPrefix) throw new Error('startControlPlane: a shared etcd (etcdURL) needs its own etcdPrefix');
    const apiPort = await freePort();
    // etcd is stopped last
    const etcd = options.etcdURL ? undefined : new Etcd(bins.etcd, dir, await freePort(), await freePort(), (p) => procs.unshift(p));
    await etcd?.start();
    const etcdURL = options.etcdURL ?? etcd!.url;
    const extraArgs = [...(options.etcdPrefix ? [`--etcd-prefix=${options.etcdPrefix}`] : []), ...(options.extraAPIServerArgs ?? [])];

    const auth = writeAdminAuth(dir);
    const readyTimeoutMs =
      options.startTimeoutMs ?? (Number(process.env.KUBEBUILDER_CONTROLPLANE_START_TIMEOUT?.replace(/s$/, '')) * 1000 || 60_000);
    const apiServer = new APIServer({ binary: bins.kubeAPIServer, dir, port: apiPort, etcdURL, auth, readyTimeoutMs, extraArgs },
      (p) => procs.push(p));
    await apiServer.start();
    const { server } = apiServer;
    const token = { token: auth.token };

    const kubeconfigPath = join(dir, 'kubeconfig');
    const kubeconfigText = adminKubeconfig(server, readFileSync(join(apiServer.certDir, 'apiserver.crt'), 'utf8'), auth.token);
    writeFileSync(kubeconfigPath, kubeconfigText, { mode: 0o600 });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(kubeconfigText);
    const version = JSON.parse((await rawRequest(`${server}/version`, token)).body).gitVersion as string;

    const install = async (paths: string[]) =>
      installCRDs(server, token, readCRDs(paths, options.errorIfCRDPathMissing), apiServer.process);
    if (options.crdPaths?.length) await install(options.crdPaths);

    let stopped = false;
    const stopAll = async () => {
      if (stopped) return;
      stopped = true;
      for (const p of [...procs].reverse()) await p.stop();
      rmSync(dir, { recursive: true, force: true });
    };
    const onExit = () => {
      // Last resort if stop() was never awaited: the reapers also see our PID vanish.
      for (const p of procs) if (p.isRunning()) try { process.kill(p.pid, 'SIGTERM'); } catch { /* gone */ }
    };
    process.once('exit', onExit);

    return {
      kubeConfig, kubeconfigPath, server, adminToken: auth.token, dir, version, etcdURL,
      get pids() { return { etcd: etcd?.pid ?? 0, kubeAPIServer: apiServer.pid }; },
      stopEtcd: () => (etcd ? etcd.stop() : Promise.reject(new Error("this plane shares another plane's etcd; stop it there"))),
      startEtcd: () => (etcd ? etcd.start() : Promise.reject(new Error("this plane shares another plane's etcd; start it there"))),
      stopAPIServer: () => apiServer.stop(),
      startAPIServer: (extraArgs?: readonly string[]) => apiServer.start(extraArgs),
      async restartAPIServer() { await apiServer.stop(); await apiServer.start(); },
      installCRDs: install,
      async stop() { process.removeListener('exit', onExit); await stopAll(); },
    };
  } catch (e) {
    for (const p of [...procs].reverse()) await p.stop(5_000);
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
