// The operator as the benchmarks run it: the shipped CLI (dist/cli, or FGC_OPERATOR_CLI: another build,
// say an older commit's) in its own process, with OPERATOR_NODE_FLAGS (the image's are imageNodeFlags()), no
// leader election, metrics off, health probes on a free port, on the example payload.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../sdk/testing/index.js';
import { parseYaml } from '../../runtime/index.js';
import { OPERATOR_CLI, spawnFeaturegates } from '../../test/support/cli.js';

export const operatorCLI = OPERATOR_CLI;
/** OPERATOR_NODE_FLAGS split into flags; undefined when it is not set (set and empty: no flags). */
const envNodeFlags = process.env.OPERATOR_NODE_FLAGS?.split(' ').filter(Boolean);
export const operatorNodeFlags = envNodeFlags ?? [];

/** The image's ENTRYPOINT in the Containerfile: node, its flags, the CLI. */
export function imageEntrypoint(): string[] {
  const containerfile = join(packageRoot(), 'Containerfile');
  const entry = /^ENTRYPOINT\s+(\[.*\])\s*$/m.exec(readFileSync(containerfile, 'utf8'))?.[1];
  if (!entry) throw new Error(`${containerfile}: no ENTRYPOINT ["node", …flags, "cli.js"] line`);
  return JSON.parse(entry) as string[];
}

/** The node flags of the image's ENTRYPOINT: what "as the image runs it" means. */
export function imageNodeFlags(): string[] {
  return imageEntrypoint().slice(1, -1);
}

/**
 * The node flags the hosted Deployment (deploy/hosted/deployment.yaml) runs a replica with: its container's `command`
 * (node, …flags, the CLI), else the image's ENTRYPOINT.
 */
export function hostedNodeFlags(): string[] {
  const path = join(packageRoot(), 'deploy', 'hosted', 'deployment.yaml');
  const deployment = parseYaml(readFileSync(path, 'utf8'), path) as { spec?: { template?: { spec?: { containers?: { command?: string[] }[] } } } };
  const command = deployment.spec?.template?.spec?.containers?.[0]?.command;
  return command ? command.slice(1, -1) : imageNodeFlags();
}

/** OPERATOR_NODE_FLAGS when set (even empty: no flags), else the hosted Deployment's. */
export function nodeFlagsOrHosted(): string[] {
  return envNodeFlags ?? hostedNodeFlags();
}

/** OPERATOR_NODE_FLAGS when set (even empty: no flags), else the image's. */
export function nodeFlagsOrImage(): string[] {
  return envNodeFlags ?? imageNodeFlags();
}

export interface OperatorSpawnOptions {
  /** More operator flags (after the benchmarks' own). */
  args?: string[];
  /** The operator's stderr (its log) on a pipe instead of ignored. */
  pipeStderr?: boolean;
  env?: NodeJS.ProcessEnv;
  /** Another build's CLI (its dist/cli/featuregates.js) instead of FGC_OPERATOR_CLI or this one. */
  cli?: string;
}

export function spawnOperatorProcess(
  kubeconfigPath: string,
  version: string,
  nodeFlags: string[] = operatorNodeFlags,
  o: OperatorSpawnOptions = {},
): ChildProcess {
  return spawnFeaturegates(
    [
      'operator',
      '--kubeconfig',
      kubeconfigPath,
      '--operator-version',
      version,
      '--authoritative-feature-gate-dir',
      join(packageRoot(), 'deploy', 'base', 'payload'),
      '--metrics-bind-address',
      '0',
      '--health-probe-bind-address',
      '127.0.0.1:0',
      ...(o.args ?? []),
    ],
    { nodeFlags, cli: o.cli ?? OPERATOR_CLI, stdout: 'ignore', stderr: o.pipeStderr ? 'pipe' : 'ignore', ...(o.env ? { env: o.env } : {}) },
  );
}

export function exited(p: ChildProcess): Promise<void> {
  return new Promise((r) => (p.exitCode !== null || p.signalCode !== null ? r() : p.once('exit', () => r())));
}

/** CPU seconds (user + system) and resident memory of a live process, from /proc. */
export function usage(pid: number): { cpuS: number; rssMB: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14, 15 of proc(5))
  const rssKB = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return { cpuS: ticks / 100, rssMB: rssKB / 1024 };
}

export const describeOperator = () => `${operatorCLI}${operatorNodeFlags.length ? ` with node ${operatorNodeFlags.join(' ')}` : ''} on node ${process.version}`;
