// Shared parts of the chaos scenarios: the operator as a child process (as deployed: --leader-elect),
// its metrics scraped over HTTP, convergence polling, and a figures table with goals.
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { FEATURE_GATE_NAME, type FeatureGate } from '../../api-types/index.js';
import { FeatureGateResource, LeaseResource, ResourceClient, type Lease } from '../../runtime/index.js';
import { OPERATOR_CLI, servingAddress, spawnFeaturegates } from '../../test/support/cli.js';
import type { LimitGroup } from '../../test/support/cgroup.js';
import {
  bundledCRDPaths, packageRoot, setClusterVersion, setFeatureGateSpec, startControlPlane, type ControlPlane,
} from '../../sdk/testing/index.js';

export { percentile, sleep, until } from '../../test/support/timing.js';
export const OPERATOR_VERSION = '4.22.1';
export const PAYLOAD_DIR = join(packageRoot(), 'deploy', 'base', 'payload');
/** A throttle-proxy pick: the PUTs of FeatureGate/cluster's status. */
export const FEATURE_GATE_STATUS_PUT = (method: string, path: string) => method === 'PUT' && path.endsWith('/featuregates/cluster/status');
/** OpenShift's lease timing (library-go), as deploy/overlays/openshift passes it. */
export const OPENSHIFT_TIMING_ARGS = ['--leader-elect-lease-duration', '137s', '--leader-elect-renew-deadline', '107s', '--leader-elect-retry-period', '26s'];

export interface Figure {
  label: string;
  value: string;
  goal: string;
  pass: boolean;
}

export interface ScenarioResult {
  name: string;
  figures: Figure[];
}

export class Figures {
  readonly list: Figure[] = [];
  add(label: string, value: string | number, goal: string, pass: boolean): void {
    this.list.push({ label, value: String(value), goal, pass });
  }
}

export interface OperatorProcess {
  readonly proc: ChildProcess;
  readonly pid: number;
  log(): string;
  /** host:port of /metrics, once it logged it. */
  metricsAddress(): Promise<string>;
  healthAddress(): Promise<string>;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  exited(): boolean;
}

/**
 * `featuregates operator --leader-elect` against `kubeconfigPath`, metrics and health on free loopback ports (inside
 * `cgroup` when given: its CPU quota and memory limit).
 */
export function spawnOperator(kubeconfigPath: string, extraArgs: string[] = [], cgroup?: LimitGroup): OperatorProcess {
  // FGC_OPERATOR_CLI runs another build (say, an older commit's dist) under the same scenario.
  const proc = spawnFeaturegates(['operator', '--kubeconfig', kubeconfigPath,
    '--operator-version', OPERATOR_VERSION, '--authoritative-feature-gate-dir', PAYLOAD_DIR,
    '--metrics-bind-address', '127.0.0.1:0', ...(process.env.FGC_OPERATOR_CLI ? [] : ['--metrics-secure=false']), '--health-probe-bind-address', '127.0.0.1:0',
    '--leader-elect', '--leader-election-namespace', 'default', '--degraded-inertia', '0s', ...extraArgs],
  { cli: OPERATOR_CLI, stdout: 'ignore', env: { POD_NAME: 'chaos-operator' }, ...(cgroup ? { cgroup } : {}) });
  let text = '';
  let exitedFlag = false;
  proc.stderr!.on('data', (d: Buffer) => { text += d.toString(); });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.once('exit', (code, signal) => { exitedFlag = true; resolve({ code, signal }); }));
  const address = (field: 'metrics' | 'health') =>
    servingAddress(() => text, field, 10_000).catch((e: Error) => { throw new Error(`operator ${proc.pid}: ${e.message}`); });
  return {
    proc, pid: proc.pid!, log: () => text, exit, exited: () => exitedFlag,
    metricsAddress: () => address('metrics'), healthAddress: () => address('health'),
  };
}

export interface ChaosCluster {
  plane: ControlPlane;
  kc: KubeConfig;
  /** spawnOperator (default: the admin kubeconfig); every process is killed when the scenario ends. */
  operator(kubeconfigPath?: string, extraArgs?: string[], cgroup?: LimitGroup): OperatorProcess;
  /** Every operator process spawned so far. */
  readonly operators: readonly OperatorProcess[];
}

/**
 * Runs a scenario on its own control plane with our CRDs (plus `extraAPIServerArgs`), FeatureGate/cluster
 * (Default) and ClusterVersion/version with `history` (default: the operator version) in place; afterwards
 * kills every operator it spawned (paused ones too) and stops the plane.
 */
export async function onChaosCluster<T>(
  o: { history?: string[]; extraAPIServerArgs?: string[] },
  body: (c: ChaosCluster) => Promise<T>,
): Promise<T> {
  const plane = await startControlPlane({
    crdPaths: bundledCRDPaths(),
    ...(o.extraAPIServerArgs ? { extraAPIServerArgs: o.extraAPIServerArgs } : {}),
  });
  const operators: OperatorProcess[] = [];
  try {
    await setFeatureGateSpec(plane.kubeConfig, {});
    await setClusterVersion(plane.kubeConfig, { history: o.history ?? [OPERATOR_VERSION] });
    return await body({
      plane,
      kc: plane.kubeConfig,
      operators,
      operator: (path = plane.kubeconfigPath, args = [], cgroup?: LimitGroup) => {
        const p = spawnOperator(path, args, cgroup);
        operators.push(p);
        return p;
      },
    });
  } finally {
    for (const p of operators) {
      p.proc.kill('SIGCONT');
      p.proc.kill('SIGKILL');
    }
    await plane.stop();
  }
}

/** The operator's Lease (default namespace), or undefined when it cannot be read within `timeoutMs`. */
export async function readLease(kc: KubeConfig, timeoutMs = 2000): Promise<Lease | undefined> {
  return await new ResourceClient(kc, LeaseResource, undefined, { namespace: 'default', timeoutMs }).get('config-operator-lock').catch(() => undefined);
}

/** Sum (or max) of the samples of one metric whose labels include every given label (0 when absent). */
export async function scrape(op: OperatorProcess, name: string, labels: Record<string, string> = {}, combine: 'sum' | 'max' = 'sum'): Promise<number> {
  const res = await fetch(`http://${await op.metricsAddress()}/metrics`, { signal: AbortSignal.timeout(5000) });
  const text = await res.text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    const v = Number(line.slice(line.lastIndexOf(' ') + 1));
    sum = combine === 'sum' ? sum + v : Math.max(sum, v);
  }
  return sum;
}

/** How many "operator failed" lines the processes logged (a crash of the manager, not a deliberate exit). */
export function operatorFailedLines(ops: readonly OperatorProcess[]): number {
  return ops.flatMap((p) => p.log().split('\n').filter((l) => l.includes('"operator failed"'))).length;
}

export const putConflicts = (op: OperatorProcess) => scrape(op, 'rest_client_requests_total', { method: 'PUT', code: '409' });

/** The versions in FeatureGate/cluster status, read with a short timeout (undefined when unreachable). */
export async function statusVersions(kc: KubeConfig): Promise<string[] | undefined> {
  try {
    const fg = await new ResourceClient(kc, FeatureGateResource, undefined, { timeoutMs: 2000 }).get(FEATURE_GATE_NAME);
    return fg.status?.featureGates.map((e) => e.version) ?? [];
  } catch {
    return undefined;
  }
}

/** Adds a stale entry to FeatureGate status (as a second writer would); the operator must prune it. */
export async function injectStaleEntry(kc: KubeConfig, version: string): Promise<boolean> {
  const client = new ResourceClient(kc, FeatureGateResource, undefined, { timeoutMs: 2000 });
  try {
    const fg: FeatureGate = await client.get(FEATURE_GATE_NAME);
    const entries = fg.status?.featureGates ?? [];
    await client.replaceStatus({
      ...fg,
      status: { ...(fg.status ?? {}), featureGates: [...entries, { version, enabled: [], disabled: [] }] },
    });
    return true;
  } catch {
    return false;
  }
}

export const converged = async (kc: KubeConfig) => JSON.stringify(await statusVersions(kc)) === JSON.stringify([OPERATOR_VERSION]);

export const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

export function writeKubeconfigFor(server: string, template: string, path: string): string {
  const cfg = JSON.parse(template) as { clusters: { cluster: { server: string } }[] };
  for (const c of cfg.clusters) c.cluster.server = server;
  writeFileSync(path, JSON.stringify(cfg), { mode: 0o600 });
  return path;
}
