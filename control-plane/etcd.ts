// etcd for a test control plane: one member on loopback ports, no fsync, data in `<dir>/etcd`. Can be
// stopped and started again on the same data and port; ready when /health says so.
import { join } from 'node:path';
import { poll } from './readiness.js';
import { rawRequest } from './raw-request.js';
import { startSupervised, type SupervisedProcess } from './supervised-process.js';

export class Etcd {
  readonly url: string;
  private proc: SupervisedProcess | undefined;

  constructor(private readonly binary: string, private readonly dir: string, clientPort: number, private readonly peerPort: number,
    /** Told each started process, so the owner can stop them all in order. */
    private readonly onStart: (p: SupervisedProcess) => void) {
    this.url = `http://127.0.0.1:${clientPort}`;
  }

  get pid(): number {
    return this.proc?.pid ?? 0;
  }

  async start(): Promise<void> {
    if (this.proc?.isRunning()) return;
    const peer = `http://127.0.0.1:${this.peerPort}`;
    const p = startSupervised('etcd', this.binary, [
      '--name=default',
      `--data-dir=${join(this.dir, 'etcd')}`,
      `--listen-client-urls=${this.url}`,
      `--advertise-client-urls=${this.url}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=default=${peer}`,
      '--unsafe-no-fsync=true',
      '--log-level=warn',
    ], join(this.dir, 'etcd.log'));
    this.proc = p;
    this.onStart(p);
    await poll('etcd /health', 20_000, p, async () => {
      const r = await rawRequest(`${this.url}/health`, {});
      return r.status === 200 && r.body.includes('"health":"true"');
    });
  }

  async stop(): Promise<void> {
    await this.proc?.stop();
  }
}
