// Where a running `featuregates start` says which local cluster it runs: one small JSON file per process in
// the temp dir, so `simulate` and `status` find it without a kubeconfig, and several at once can be told
// apart. A record whose process is gone (killed -9) is ignored and removed by the next reader.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterConfigured } from '../runtime/rest/kube-config.js';
import { processAlive } from '../runtime/util/process-alive.js';

export interface LocalClusterRecord {
  pid: number;
  kubeconfig: string;
  server: string;
  /** RFC 3339 */
  startedAt: string;
}

const PREFIX = 'featuregates-start.';
const SUFFIX = '.json';

/** Records this process's local cluster; returns the function that removes the record. */
export function recordLocalCluster(kubeconfig: string, server: string, dir: string = tmpdir()): () => void {
  const file = join(dir, `${PREFIX}${process.pid}${SUFFIX}`);
  const record: LocalClusterRecord = { pid: process.pid, kubeconfig, server, startedAt: new Date().toISOString() };
  writeFileSync(file, `${JSON.stringify(record)}\n`);
  return () => rmSync(file, { force: true });
}

/** The local clusters of the `featuregates start` processes still running, newest first. */
export function runningLocalClusters(dir: string = tmpdir()): LocalClusterRecord[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.startsWith(PREFIX) && n.endsWith(SUFFIX));
  } catch {
    return [];
  }
  const records: LocalClusterRecord[] = [];
  for (const name of names) {
    const file = join(dir, name);
    let r: LocalClusterRecord;
    try {
      r = JSON.parse(readFileSync(file, 'utf8')) as LocalClusterRecord;
    } catch {
      continue; // being written, or not ours
    }
    if (typeof r.pid !== 'number' || !processAlive(r.pid) || !existsSync(r.kubeconfig)) {
      rmSync(file, { force: true });
      continue;
    }
    records.push(r);
  }
  return records.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
}

/** A cluster to talk to, and what to tell the user when it was found through a running `featuregates start`. */
export interface ClusterChoice { kubeconfig?: string; note?: string }

/**
 * --kubeconfig, else $KUBECONFIG, else the newest running `featuregates start`'s local cluster (the note says
 * which, and that others run), else nothing (in-cluster, or no cluster: the loader says so).
 */
export function chooseCluster(kubeconfig: string | undefined, env: NodeJS.ProcessEnv = process.env, dir?: string): ClusterChoice {
  if (clusterConfigured(kubeconfig, env)) return { kubeconfig };
  const [newest, ...others] = runningLocalClusters(dir);
  if (!newest) return {};
  const more = others.length === 0 ? ''
    : `; ${others.length + 1} are running (pids ${[newest, ...others].map((r) => r.pid).join(', ')}), this is the newest: pass --kubeconfig to pick another`;
  return { kubeconfig: newest.kubeconfig, note: `using the local cluster of \`featuregates start\` (pid ${newest.pid}) at ${newest.server}${more}` };
}
