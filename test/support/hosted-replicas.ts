// `featuregates hosted` replicas as real processes against a test management plane (short Lease timing, guest
// backoff capped at 2 s, JSON logs kept per replica), and what `featuregates hosted status -o json` says. No Jest
// import: the chaos suite (hack/chaos) runs it too.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HostedGuestRecord } from '../../api-types/index.js';
import { runCLI, servingAddress, spawnCLI } from './cli.js';

export interface HostedReplicasOptions {
  /** The management kubeconfig path (read when a replica starts: the plane may start after this is made). */
  kubeconfig: () => string;
  catalog: string;
  namespace: string;
  shards: number;
  /** Serve plain-HTTP /metrics on a free loopback port (default: no metrics endpoint). */
  metrics?: boolean;
}

export interface HostedReplicas {
  readonly procs: Map<string, ChildProcess>;
  readonly logs: Map<string, string>;
  /** Starts a replica; `extraArgs` go after the usual flags. */
  start(identity: string, extraArgs?: readonly string[]): void;
  /** The replica's /metrics URL, from its `serving` log line (with `metrics: true`). */
  metricsURL(identity: string): Promise<string>;
  /** `featuregates hosted status -o json`, by HCP key. */
  records(): Promise<Map<string, HostedGuestRecord>>;
  /** Runs `fn`; on failure writes every replica's log (to $FGC_LOG_DIR when set) and shows its end. */
  dumpOnFailure(fn: () => Promise<void>): Promise<void>;
  killAll(): void;
}

export function hostedReplicas(o: HostedReplicasOptions): HostedReplicas {
  const procs = new Map<string, ChildProcess>();
  const logs = new Map<string, string>();
  return {
    procs, logs,
    start(identity, extraArgs = []) {
      const p = spawnCLI(['hosted', '--kubeconfig', o.kubeconfig(), '--payload-catalog', o.catalog, '--namespace', o.namespace,
        '--identity', identity, '--shards', String(o.shards), '--health-probe-bind-address', '0',
        ...(o.metrics ? ['--metrics-bind-address', '127.0.0.1:0', '--metrics-secure=false'] : ['--metrics-bind-address', '0']),
        '--leader-elect-lease-duration', '4s', '--leader-elect-renew-deadline', '3s', '--leader-elect-retry-period', '1s',
        '--guest-backoff-max', '2s', '--log-format', 'json', ...extraArgs]);
      logs.set(identity, '');
      p.stderr!.on('data', (d: Buffer) => logs.set(identity, logs.get(identity) + d.toString()));
      procs.set(identity, p);
    },
    async metricsURL(identity) {
      return `http://${await servingAddress(() => logs.get(identity) ?? '', 'metrics')}/metrics`;
    },
    async records() {
      const r = runCLI(['hosted', 'status', '--kubeconfig', o.kubeconfig(), '--namespace', o.namespace, '-o', 'json']);
      if (r.code !== 0) throw new Error(`featuregates hosted status exited ${r.code}: ${r.stderr}`);
      return new Map((JSON.parse(r.stdout) as HostedGuestRecord[]).map((x) => [x.hcp, x]));
    },
    async dumpOnFailure(fn) {
      try {
        await fn();
      } catch (e) {
        for (const [id, text] of logs) {
          const file = join(process.env.FGC_LOG_DIR ?? mkdtempSync(join(tmpdir(), 'fgc-hosted-log-')), `hosted-${id}.log`);
          writeFileSync(file, text);
          process.stderr.write(`--- ${id} (last 3000 chars; all of it in ${file}, kept when FGC_LOG_DIR names a folder)\n${text.slice(-3000)}\n`);
        }
        throw e;
      }
    },
    killAll() {
      for (const p of procs.values()) p.kill('SIGKILL');
    },
  };
}
