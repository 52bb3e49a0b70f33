// kube-apiserver for a test control plane, on a loopback port over the given etcd: RBAC, the admin token
// file, a service-account key, no ServiceAccount admission (no controller makes default accounts), no
// priority-and-fairness. Can be stopped and started again on the same port; ready when the authenticated
// /readyz is 200 and namespace "default" exists.
import { join } from 'node:path';
import type { AdminAuth } from './auth.js';
import { poll } from './readiness.js';
import { rawRequest } from './raw-request.js';
import { startSupervised, type SupervisedProcess } from './supervised-process.js';

export interface APIServerConfig {
  binary: string;
  dir: string;
  port: number;
  etcdURL: string;
  auth: AdminAuth;
  readyTimeoutMs: number;
  extraArgs?: readonly string[];
}

export class APIServer {
  readonly server: string;
  /** Where kube-apiserver writes its self-generated serving certificate (apiserver.crt). */
  readonly certDir: string;
  private proc: SupervisedProcess | undefined;
  private readonly args: string[];
  /** The extra flags of the next start (start(extraArgs) replaces them). */
  private extraArgs: readonly string[];

  constructor(private readonly config: APIServerConfig, private readonly onStart: (p: SupervisedProcess) => void) {
    this.server = `https://127.0.0.1:${config.port}`;
    this.certDir = join(config.dir, 'certs');
    this.args = [
      `--etcd-servers=${config.etcdURL}`,
      `--cert-dir=${this.certDir}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${config.port}`,
      '--service-cluster-ip-range=10.0.0.0/24',
      '--allow-privileged=true',
      '--disable-admission-plugins=ServiceAccount',
      '--authorization-mode=RBAC',
      `--token-auth-file=${config.auth.tokenFile}`,
      `--service-account-issuer=${this.server}`,
      `--service-account-key-file=${config.auth.serviceAccountKeyFile}`,
      `--service-account-signing-key-file=${config.auth.serviceAccountKeyFile}`,
      '--enable-priority-and-fairness=false',
      '--v=1',
    ];
    this.extraArgs = config.extraArgs ?? [];
  }

  /** The running process (for readiness polls that should fail fast when it exits). */
  get process(): SupervisedProcess | undefined {
    return this.proc;
  }

  get pid(): number {
    return this.proc?.pid ?? 0;
  }

  /** Starts kube-apiserver; `extraArgs` replaces the extra flags it was configured with (a restart with other gates, say). */
  async start(extraArgs?: readonly string[]): Promise<void> {
    if (this.proc?.isRunning()) return;
    if (extraArgs) this.extraArgs = extraArgs;
    // kube-apiserver drains open watches on SIGTERM for a long time; tests want restarts to be quick.
    const p = startSupervised('kube-apiserver', this.config.binary, [...this.args, ...this.extraArgs], join(this.config.dir, 'kube-apiserver.log'), 3_000);
    this.proc = p;
    this.onStart(p);
    const auth = { token: this.config.auth.token };
    // Authenticated, to avoid the anonymous 403 window while RBAC bootstraps.
    await poll('kube-apiserver /readyz', this.config.readyTimeoutMs, p, async () => (await rawRequest(`${this.server}/readyz`, auth)).status === 200);
    await poll('namespace "default"', 10_000, p,
      async () => (await rawRequest(`${this.server}/api/v1/namespaces/default`, auth)).status === 200);
  }

  async stop(): Promise<void> {
    await this.proc?.stop();
  }
}
