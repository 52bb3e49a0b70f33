// The hosted-fleet benchmark's coordinator replicas: `featuregates hosted` processes logging JSON into the management
// plane's directory, and those logs kept under .cache/bench once the plane's directory is gone.
import type { ChildProcess } from 'node:child_process';
import { closeSync, copyFileSync, mkdirSync, openSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot, type ControlPlane } from '../../sdk/testing/index.js';
import { OPERATOR_CLI, spawnFeaturegates } from '../../test/support/cli.js';
import type { LimitGroup } from '../../test/support/cgroup.js';

/** The payload catalog the hosted benchmarks' replicas read (the fixtures' releases, 4.15 → 5.1). */
export const BENCH_PAYLOAD_CATALOG = join(packageRoot(), 'test', 'fixtures', 'openshift-api', 'payload-featuregates', 'releases');

export interface Replica { id: string; proc: ChildProcess }

export interface ReplicaOptions {
  catalog: string;
  namespace: string;
  shards: number;
  nodeFlags: string[];
  /** Runs the replica inside this cgroup, with /metrics on a port of its own over plain HTTP (its log's `serving` line says which). */
  cgroup?: LimitGroup;
  /** More `featuregates hosted` flags. */
  args?: string[];
}

/** One replica, its stderr (the log) appended to `<management dir>/<id>.log`. */
export function spawnHostedReplica(mgmt: ControlPlane, id: string, o: ReplicaOptions): Replica {
  const log = openSync(join(mgmt.dir, `${id}.log`), 'a');
  const metrics = o.cgroup ? ['--metrics-bind-address', '127.0.0.1:0', '--metrics-secure=false'] : ['--metrics-bind-address', '0'];
  const proc = spawnFeaturegates(['hosted', '--kubeconfig', mgmt.kubeconfigPath, '--payload-catalog', o.catalog, '--namespace', o.namespace,
    '--identity', id, '--shards', String(o.shards), ...metrics, '--health-probe-bind-address', '0', '--log-format', 'json', ...o.args ?? []],
  { nodeFlags: o.nodeFlags, cli: OPERATOR_CLI, stdout: 'ignore', stderr: log, ...(o.cgroup ? { cgroup: o.cgroup } : {}) });
  closeSync(log);
  return { id, proc };
}

/** The replicas' logs (both generations) copied out of the management plane's directory `dir`; returns where. */
export function saveReplicaLogs(dir: string): string {
  const logs = join(packageRoot(), '.cache', 'bench', 'hosted-fleet-logs');
  rmSync(logs, { recursive: true, force: true });
  mkdirSync(logs, { recursive: true });
  for (const f of readdirSync(dir).filter((n) => /^replica-\d+\.log$/.test(n))) copyFileSync(join(dir, f), join(logs, f));
  return logs;
}
