// On a local cluster, a stand-in for the cluster-version operator's rollout: the operator runs at
// ClusterVersion's desired version, and when `featuregates simulate upgrade --to V` changes it, the running
// operator is stopped and one for V started (with the payload folder the simulation named, else the same);
// when `simulate upgrade --complete` marks V Completed, `onCompleted` runs (after the operator's roll) — where
// `featuregates start` rolls its kube-apiserver to V's gates, as OpenShift's kube-apiserver operator would
// have during the upgrade.
import { CLUSTER_VERSION_NAME, type ClusterVersion } from '../api-types/index.js';
import { ClusterVersionResource, Reflector, ResourceClient, type ClusterAccess, type Logger } from '../runtime/index.js';
import type { RunningOperator } from '../controllers/manager.js';

/** ClusterVersion annotation: the payload folder the simulated upgrade's operator runs with. */
export const SIMULATED_PAYLOAD_ANNOTATION = 'featuregates.local/simulated-payload-dir';

export interface LocalRollout {
  /** The operator running now and its version. */
  current(): { version: string; op: RunningOperator };
  /** Stops following ClusterVersion (waits for a roll under way); the running operator keeps running. */
  stop(): Promise<void>;
}

export function followDesiredVersion(options: {
  kubeConfig: ClusterAccess;
  running: { version: string; op: RunningOperator };
  payloadDir: string;
  start: (version: string, payloadDir: string) => Promise<RunningOperator>;
  logger: Logger;
  onRoll?: (from: string, to: string, payloadDir: string) => void;
  onCompleted?: (version: string) => Promise<void>;
}): LocalRollout {
  let running = options.running;
  let completed = options.running.version;
  let rolling = Promise.resolve();
  const cvs = new Reflector<ClusterVersion>(new ResourceClient(options.kubeConfig, ClusterVersionResource), {
    name: CLUSTER_VERSION_NAME,
    logger: options.logger,
  });
  cvs.addListener(() => {
    const cv = cvs.get(CLUSTER_VERSION_NAME);
    const desired = cv?.status?.desired?.version;
    if (!desired) return;
    if (desired !== running.version) {
      const payload = cv?.metadata.annotations?.[SIMULATED_PAYLOAD_ANNOTATION] ?? options.payloadDir;
      rolling = rolling.then(async () => {
        if (desired === running.version) return;
        options.onRoll?.(running.version, desired, payload);
        await running.op.stop();
        running = { version: desired, op: await options.start(desired, payload) };
      }).catch((e: unknown) => options.logger.error('rolling the operator failed', { error: (e as Error).message }));
    }
    // Completed: after the operator's roll (queued above when both arrive at once).
    const newest = cv?.status?.history?.[0];
    const done = options.onCompleted;
    if (done && newest?.version === desired && newest.state === 'Completed' && desired !== completed) {
      completed = desired;
      rolling = rolling.then(() => done(desired))
        .catch((e: unknown) => options.logger.error('completing the upgrade failed', { version: desired, error: (e as Error).message }));
    }
  });
  cvs.start();
  return {
    current: () => running,
    async stop() {
      await cvs.stop();
      await rolling;
    },
  };
}
