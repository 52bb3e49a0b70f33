// The control plane the operator benchmarks share: FeatureGate/cluster (Default) and ClusterVersion at
// 4.22.0, a watcher on FeatureGate/cluster, and an operator process started from an empty status.
import type { ChildProcess } from 'node:child_process';
import { FeatureGateResource, ResourceClient } from '../../runtime/index.js';
import { bundledCRDPaths, setClusterVersion, setFeatureGateSpec, setFeatureGateStatus, startControlPlane, type ControlPlaneOptions } from '../../sdk/testing/index.js';
import { FeatureGateWatcher } from './fg-watcher.js';
import { spawnOperatorProcess } from './operator-process.js';
import { nowMs } from './stats.js';

export const BENCH_VERSION = '4.22.0';

export async function startBenchCluster(planeOptions: Omit<ControlPlaneOptions, 'crdPaths'> = {}) {
  const plane = await startControlPlane({ ...planeOptions, crdPaths: bundledCRDPaths() });
  const kc = plane.kubeConfig;
  await setFeatureGateSpec(kc, {});
  await setClusterVersion(kc, { history: [BENCH_VERSION] });
  const watcher = await FeatureGateWatcher.start(kc);
  const fgs = new ResourceClient(kc, FeatureGateResource);
  const spawned: ChildProcess[] = [];
  return {
    plane,
    kc,
    watcher,
    fgs,
    /**
     * Empties the status, spawns the operator (or another process that writes the status: `spawnIt`) and resolves once its first status
     * write is seen: the
     * process, the time from spawn to that write, and when it was spawned.
     */
    async startOperator(
      spawnIt: (kubeconfigPath: string, version: string) => ChildProcess = spawnOperatorProcess,
    ): Promise<{ proc: ChildProcess; startMs: number; spawnedAt: number }> {
      if ((await fgs.get('cluster')).status?.featureGates?.length) {
        const cleared = watcher.next((v) => v === '');
        await setFeatureGateStatus(kc, []);
        await cleared;
      }
      const seen = watcher.next((v) => v === BENCH_VERSION);
      const spawnedAt = nowMs();
      const proc = spawnIt(plane.kubeconfigPath, BENCH_VERSION);
      spawned.push(proc);
      const died = new Promise<never>((_resolve, reject) =>
        proc.once('exit', (code, signal) =>
          reject(new Error(`${proc.spawnfile} exited (${signal ?? code}) before its first status write`)),
        ),
      );
      died.catch(() => undefined);
      await Promise.race([seen, died]);
      return { proc, startMs: nowMs() - spawnedAt, spawnedAt };
    },
    /** Stops the watcher, every process startOperator spawned that is still running, and the control plane. */
    async stop(): Promise<void> {
      await watcher.stop();
      for (const proc of spawned) if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await plane.stop();
    },
  };
}
