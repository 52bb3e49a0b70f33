// Shared parts of the chaos scenarios: the operator as a child process (as deployed: --leader-elect),
// its metrics scraped over HTTP, convergence polling, and a figures table with goals.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { FEATURE_GATE_NAME, type FeatureGate } from '../../api-types/index.js';
import { FeatureGates, ResourceClient } from '../../runtime/index.js';
import { packageRoot } from '../../sdk/testing/index.js';

export const OPERATOR_VERSION = '4.22.1';
export const PAYLOAD_DIR = join(packageRoot(), 'deploy', 'base', 'payload');
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

/** `featuregates operator --leader-elect` against `kubeconfigPath`, metrics and health on free loopback ports. */
export function spawnOperator(kubeconfigPath: string, extraArgs: string[] = []): OperatorProcess {
  // FGC_OPERATOR_CLI runs another build (say, an older commit's dist) under the same scenario.
  const cli = process.env.FGC_OPERATOR_CLI ?? join(packageRoot(), 'dist', 'cmd', 'featuregates.js');
  const proc = spawn(process.execPath, [cli, 'operator', '--kubeconfig', kubeconfigPath,
    '--operator-version', OPERATOR_VERSION, '--authoritative-feature-gate-dir', PAYLOAD_DIR,
    '--metrics-bind-address', '127.0.0.1:0', ...(process.env.FGC_OPERATOR_CLI ? [] : ['--metrics-secure=false']), '--health-probe-bind-address', '127.0.0.1:0',
    '--leader-elect', '--leader-election-namespace', 'default', '--degraded-inertia', '0s', ...extraArgs],
  { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, POD_NAME: 'chaos-operator' } });
  let text = '';
  let exitedFlag = false;
  proc.stderr!.on('data', (d: Buffer) => { text += d.toString(); });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.once('exit', (code, signal) => { exitedFlag = true; resolve({ code, signal }); }));
  const address = async (field: 'metrics' | 'health') => {
    for (let i = 0; i < 200; i++) {
      const m = new RegExp(`"msg":"serving"[^\\n]*"${field}":"([^"]+)"`).exec(text);
      if (m) return m[1]!;
      await sleep(50);
    }
    throw new Error(`operator ${proc.pid} did not log its ${field} address:\n${text}`);
  };
  return {
    proc, pid: proc.pid!, log: () => text, exit, exited: () => exitedFlag,
    metricsAddress: () => address('metrics'), healthAddress: () => address('health'),
  };
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

export const putConflicts = (op: OperatorProcess) => scrape(op, 'rest_client_requests_total', { method: 'PUT', code: '409' });

/** Polls `check` every `intervalMs` until it returns true; resolves with the elapsed ms, or rejects after `timeoutMs`. */
export async function until(what: string, check: () => Promise<boolean>, timeoutMs: number, intervalMs = 50): Promise<number> {
  const t0 = performance.now();
  let last = '';
  while (performance.now() - t0 < timeoutMs) {
    try {
      if (await check()) return performance.now() - t0;
    } catch (e) {
      last = (e as Error).message;
    }
    await sleep(intervalMs);
  }
  throw new Error(`${what}: not within ${timeoutMs} ms${last ? ` (last error: ${last})` : ''}`);
}

/** The versions in FeatureGate/cluster status, read with a short timeout (undefined when unreachable). */
export async function statusVersions(kc: KubeConfig): Promise<string[] | undefined> {
  try {
    const fg = await new ResourceClient(kc, FeatureGates, undefined, { timeoutMs: 2000 }).get(FEATURE_GATE_NAME);
    return fg.status?.featureGates.map((e) => e.version) ?? [];
  } catch {
    return undefined;
  }
}

/** Adds a stale entry to FeatureGate status (as a second writer would); the operator must prune it. */
export async function injectStaleEntry(kc: KubeConfig, version: string): Promise<boolean> {
  const client = new ResourceClient(kc, FeatureGates, undefined, { timeoutMs: 2000 });
  try {
    const fg: FeatureGate = await client.get(FEATURE_GATE_NAME);
    const entries = fg.status?.featureGates ?? [];
    await client.replaceStatus({ ...fg, status: { ...(fg.status ?? {}), featureGates: [...entries, { version, enabled: [], disabled: [] }] } });
    return true;
  } catch {
    return false;
  }
}

export const converged = async (kc: KubeConfig) => JSON.stringify(await statusVersions(kc)) === JSON.stringify([OPERATOR_VERSION]);

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
}

export const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

export function writeKubeconfigFor(server: string, template: string, path: string): string {
  const cfg = JSON.parse(template) as { clusters: { cluster: { server: string } }[] };
  for (const c of cfg.clusters) c.cluster.server = server;
  writeFileSync(path, JSON.stringify(cfg), { mode: 0o600 });
  return path;
}
