// A real local control plane for tests: etcd + kube-apiserver on loopback, as controller-runtime's
// envtest starts them. Admin identity: a bearer token in system:masters; RBAC authorization; a
// service-account key made with node:crypto. CRDs are installed and waited for (Established and served
// in discovery). kube-apiserver can be stopped and restarted on the same etcd and port.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { parseYamlDocuments } from '../../runtime/yaml.js';
import { resolveBinaries, type ControlPlaneBinaries } from './binaries.js';
import { startSupervised, type SupervisedProcess } from './supervised-process.js';
import { rawRequest } from './raw-request.js';

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
  /** Stops kube-apiserver (etcd keeps running). */
  stopAPIServer(): Promise<void>;
  /** Starts kube-apiserver again on the same port and etcd; resolves once ready. */
  startAPIServer(): Promise<void>;
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

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function poll(what: string, timeoutMs: number, proc: SupervisedProcess | undefined,
  check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = '';
  while (Date.now() < deadline) {
    if (proc && !proc.isRunning()) {
      throw new Error(`${proc.name} exited while waiting for ${what}; last log lines:\n${proc.logTail()}`);
    }
    try {
      if (await check()) return;
    } catch (e) {
      lastError = (e as Error).message;
    }
    await sleep(100);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${lastError})` : ''}` +
    (proc ? `; last ${proc.name} log lines:\n${proc.logTail()}` : ''));
}

export interface CRDDoc {
  metadata: { name: string };
  spec: { group: string; names: { plural: string }; versions: { name: string; served: boolean }[] };
}

/** The CRDs in `paths` (files or folders); other documents are skipped, a missing path is skipped unless `errorIfMissing`. */
export function readCRDs(paths: readonly string[], errorIfMissing = false): CRDDoc[] {
  const files: string[] = [];
  for (const p of paths) {
    let st;
    try {
      st = statSync(p);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && !errorIfMissing) continue;
      throw new Error(`CRD path ${p}: ${(e as Error).message}`, { cause: e });
    }
    if (st.isDirectory()) files.push(...readdirSync(p).filter((f) => /\.(ya?ml|json)$/.test(f)).sort().map((f) => join(p, f)));
    else files.push(p);
  }
  const out: CRDDoc[] = [];
  for (const f of files) {
    for (const obj of parseYamlDocuments(readFileSync(f, 'utf8'), f) as (CRDDoc & { kind?: string } | undefined)[]) {
      if (obj?.kind === 'CustomResourceDefinition') out.push(obj);
    }
  }
  return out;
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
      // A port race (the "pick a free port" step is racy) shows up as an early exit; retry as envtest does.
      if (!/address already in use|bind:/i.test(String((e as Error).message))) throw e;
    }
  }
  throw last;
}

async function startOnce(bins: ControlPlaneBinaries, options: ControlPlaneOptions): Promise<ControlPlane> {
  const dir = mkdtempSync(join(tmpdir(), 'fgc-controlplane-'));
  const procs: SupervisedProcess[] = [];
  try {
    const [etcdPort, peerPort, apiPort] = [await freePort(), await freePort(), await freePort()];
    const etcdURL = `http://127.0.0.1:${etcdPort}`;
    const server = `https://127.0.0.1:${apiPort}`;
    const token = randomBytes(24).toString('hex');
    const { privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const saKey = join(dir, 'sa.key');
    writeFileSync(saKey, privateKey, { mode: 0o600 });
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, `${token},admin,admin-uid,"system:masters"\n`, { mode: 0o600 });
    const certDir = join(dir, 'certs');
    mkdirSync(certDir);

    let etcd: SupervisedProcess | undefined;
    const startEtcd = async (): Promise<void> => {
      if (etcd?.isRunning()) return;
      const p = startSupervised('etcd', bins.etcd, [
        '--name=default',
        `--data-dir=${join(dir, 'etcd')}`,
        `--listen-client-urls=${etcdURL}`,
        `--advertise-client-urls=${etcdURL}`,
        `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
        `--initial-cluster=default=http://127.0.0.1:${peerPort}`,
        '--unsafe-no-fsync=true',
        '--log-level=warn',
      ], join(dir, 'etcd.log'));
      etcd = p;
      procs.unshift(p); // stopped last
      await poll('etcd /health', 20_000, p, async () => {
        const r = await rawRequest(`${etcdURL}/health`, {});
        return r.status === 200 && r.body.includes('"health":"true"');
      });
    };
    await startEtcd();

    const apiArgs = [
      `--etcd-servers=${etcdURL}`,
      `--cert-dir=${certDir}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      '--service-cluster-ip-range=10.0.0.0/24',
      '--allow-privileged=true',
      '--disable-admission-plugins=ServiceAccount',
      '--authorization-mode=RBAC',
      `--token-auth-file=${tokens}`,
      `--service-account-issuer=${server}`,
      `--service-account-key-file=${saKey}`,
      `--service-account-signing-key-file=${saKey}`,
      '--enable-priority-and-fairness=false',
      '--v=1',
      ...(options.extraAPIServerArgs ?? []),
    ];
    const timeoutMs = options.startTimeoutMs
      ?? (Number(process.env.KUBEBUILDER_CONTROLPLANE_START_TIMEOUT?.replace(/s$/, '')) * 1000 || 60_000);
    const auth = { token };
    let apiserver: SupervisedProcess | undefined;
    const startAPIServer = async (): Promise<void> => {
      if (apiserver?.isRunning()) return;
      // kube-apiserver drains open watches on SIGTERM for a long time; tests want restarts to be quick.
      const p = startSupervised('kube-apiserver', bins.kubeAPIServer, apiArgs, join(dir, 'kube-apiserver.log'), 3_000);
      apiserver = p;
      procs.push(p);
      // Authenticated, to avoid the anonymous 403 window while RBAC bootstraps.
      await poll('kube-apiserver /readyz', timeoutMs, p, async () => (await rawRequest(`${server}/readyz`, auth)).status === 200);
      await poll('namespace "default"', 10_000, p,
        async () => (await rawRequest(`${server}/api/v1/namespaces/default`, auth)).status === 200);
    };
    await startAPIServer();

    const ca = readFileSync(join(certDir, 'apiserver.crt'), 'utf8');
    const kubeconfigPath = join(dir, 'kubeconfig');
    const kubeconfigText = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'local', cluster: { server, 'certificate-authority-data': Buffer.from(ca).toString('base64') } }],
      users: [{ name: 'admin', user: { token } }],
      contexts: [{ name: 'local', context: { cluster: 'local', user: 'admin' } }],
      'current-context': 'local',
    }, null, 2);
    writeFileSync(kubeconfigPath, kubeconfigText, { mode: 0o600 });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(kubeconfigText);
    const version = JSON.parse((await rawRequest(`${server}/version`, auth)).body).gitVersion as string;

    const installCRDs = async (paths: string[]): Promise<void> => {
      const crds = readCRDs(paths, options.errorIfCRDPathMissing);
      for (const crd of crds) {
        const base = `${server}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`;
        const body = JSON.stringify(crd);
        let r = await rawRequest(base, auth, 'POST', body);
        if (r.status === 409) {
          const cur = JSON.parse((await rawRequest(`${base}/${crd.metadata.name}`, auth)).body);
          r = await rawRequest(`${base}/${crd.metadata.name}`, auth, 'PUT',
            JSON.stringify({ ...crd, metadata: { ...crd.metadata, resourceVersion: cur.metadata.resourceVersion } }));
        }
        if (r.status >= 300) throw new Error(`installing CRD ${crd.metadata.name} failed: HTTP ${r.status}: ${r.body}`);
      }
      for (const crd of crds) {
        const name = crd.metadata.name;
        await poll(`CRD ${name} Established`, 30_000, apiserver, async () => {
          const r = await rawRequest(`${server}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`, auth);
          const conds = (JSON.parse(r.body).status?.conditions ?? []) as { type: string; status: string }[];
          return ['Established', 'NamesAccepted'].every((t) => conds.some((c) => c.type === t && c.status === 'True'));
        });
        for (const v of crd.spec.versions.filter((x) => x.served)) {
          await poll(`${crd.spec.names.plural}.${crd.spec.group}/${v.name} in discovery`, 30_000, apiserver, async () => {
            const r = await rawRequest(`${server}/apis/${crd.spec.group}/${v.name}`, auth);
            if (r.status !== 200) return false;
            const res = (JSON.parse(r.body).resources ?? []) as { name: string }[];
            return res.some((x) => x.name === crd.spec.names.plural);
          });
        }
      }
    };
    if (options.crdPaths?.length) await installCRDs(options.crdPaths);

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
      kubeConfig, kubeconfigPath, server, adminToken: token, dir, version,
      get pids() { return { etcd: etcd?.pid ?? 0, kubeAPIServer: apiserver?.pid ?? 0 }; },
      async stopEtcd() { await etcd?.stop(); },
      startEtcd,
      async stopAPIServer() { await apiserver?.stop(); },
      startAPIServer,
      async restartAPIServer() { await apiserver?.stop(); await startAPIServer(); },
      installCRDs,
      async stop() { process.removeListener('exit', onExit); await stopAll(); },
    };
  } catch (e) {
    for (const p of [...procs].reverse()) await p.stop(5_000);
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
