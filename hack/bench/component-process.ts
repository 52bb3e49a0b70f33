// Runs sdk-component.ts as its own process (the stand-in component operator) and resolves with the one JSON
// line it prints: its memory 30 s and 90 s after it is ready, its idle CPU per minute between (see that file).
import { spawn } from 'node:child_process';
import { bundledCRDPaths, setClusterVersion, setFeatureGateSpec, setFeatureGateStatus, startControlPlane, type ControlPlane } from '../../sdk/testing/index.js';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type ComponentMode = 'baseline' | 'accessor';
export interface MemorySample {
  rssMB: number;
  heapUsedMB: number;
  externalMB: number;
  heapCommittedMB: number;
  newSpaceMB: number;
  mallocedMB: number;
}
export interface ComponentSample {
  mode: ComponentMode;
  readyMs: number;
  at30: MemorySample;
  at90: MemorySample;
  idleCpuS: number;
  afterGc?: MemorySample;
}

/**
 * `watching`: the component first holds one client-node watch on another resource (sdk-component.ts); `sdkModule`:
 * the accessor comes from another build's sdk/index.js (a baseline in the same run).
 */
export function runComponent(
  kubeconfigPath: string,
  mode: ComponentMode,
  nodeFlags: string[] = [],
  watching = false,
  sdkModule?: string,
): Promise<ComponentSample> {
  const script = join(dirname(fileURLToPath(import.meta.url)), 'sdk-component.js');
  const p = spawn(
    process.execPath,
    [...nodeFlags, script, kubeconfigPath, mode, watching ? 'watching' : '-', ...(sdkModule ? [sdkModule] : [])],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  p.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  return new Promise((resolve, reject) =>
    p.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out) as ComponentSample) : reject(new Error(`sdk-component ${mode} exited ${code}`)),
    ),
  );
}

/** The cluster the stand-in components read: a local control plane whose FeatureGate has an entry for 4.22.0. */
export async function startComponentPlane(): Promise<ControlPlane> {
  const plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
  await setFeatureGateSpec(plane.kubeConfig, {});
  await setClusterVersion(plane.kubeConfig, { history: ['4.22.0'] });
  await setFeatureGateStatus(plane.kubeConfig, [{ version: '4.22.0', enabled: ['ExampleGatewayAPI'], disabled: ['ExampleNodeSwap'] }]);
  return plane;
}
