// `featuregates start` (what `npm start` runs). With no cluster configured: a local control plane with
// the CRDs, ClusterVersion/version (one Completed entry) and FeatureGate/cluster, and the operator on the
// example payload manifests; prints the resulting status and runs until Ctrl-C, leaving nothing behind.
// With a cluster configured (--kubeconfig or $KUBECONFIG), it runs the operator against that cluster.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLUSTER_VERSION_NAME, parsePayloadVersion, type ClusterVersion } from '../api-types/index.js';
import { ClusterVersionResource, createLogger, clusterConfigured, loadKubeConfig, Reflector, ResourceClient } from '../runtime/index.js';
import { SIMULATED_PAYLOAD_ANNOTATION, START_KUBECONFIG_POINTER } from './simulate.js';
import { startOperator } from '../controllers/manager.js';
import { bundledCRDPaths, packageRoot, setClusterVersion, setFeatureGateSpec, startControlPlane, type ControlPlane } from '../sdk/testing/index.js';
import { formatTable, readStatus } from './status.js';
import { payloadVersionFlag, type CommandSpec, LOG_FORMAT_OPTION, logFormatOption } from './args.js';

const EXAMPLE_VERSION = '4.22.0';

function nextMinor(version: string): string {
  const v = parsePayloadVersion(version);
  return `${v.major}.${v.minor + 1}.0`;
}

function untilSignal(): Promise<string> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}

export const startCommand: CommandSpec = {
  name: 'start',
  summary: 'run locally: a local control plane (when no cluster is configured) and the operator, until Ctrl-C',
  usage: 'featuregates start [--kubeconfig P] [--operator-version V] [--authoritative-feature-gate-dir D]',
  options: {
    'log-format': LOG_FORMAT_OPTION,
    kubeconfig: { type: 'string', help: 'run against this cluster instead of a local control plane' },
    'operator-version': { type: 'string', help: `payload version (default: $OPERATOR_IMAGE_VERSION, else ${EXAMPLE_VERSION})` },
    'authoritative-feature-gate-dir': { type: 'string', help: 'payload manifests (default: the example set in deploy/base/payload)' },
  },
  async run(values) {
    const version = values['operator-version'] ?? process.env.OPERATOR_IMAGE_VERSION ?? EXAMPLE_VERSION;
    payloadVersionFlag(version, values['operator-version'] !== undefined ? '--operator-version' : 'OPERATOR_IMAGE_VERSION');
    const dir = values['authoritative-feature-gate-dir'] ?? join(packageRoot(), 'deploy', 'base', 'payload');
    const logger = createLogger({ fields: { operator: 'featuregates' }, ...logFormatOption(values['log-format']) });
    let plane: ControlPlane | undefined;
    const signal = untilSignal();
    try {
      let kc;
      if (clusterConfigured(values.kubeconfig)) {
        kc = await loadKubeConfig(values.kubeconfig);
        process.stderr.write(`running the operator against ${kc.getCurrentCluster()?.server}\n`);
      } else {
        const t0 = Date.now();
        process.stderr.write('no cluster configured: starting a local control plane (etcd + kube-apiserver)...\n');
        plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
        kc = plane.kubeConfig;
        await setClusterVersion(kc, { history: [version] });
        await setFeatureGateSpec(kc, {});
        process.stderr.write(`control plane ${plane.version} ready in ${Date.now() - t0} ms; kubeconfig: ${plane.kubeconfigPath}\n`);
      }
      // On the local control plane, a stand-in for the cluster-version operator: the operator runs at ClusterVersion's desired version
      // (with leader election, so a second operator waits instead of fighting it); `featuregates simulate
      // upgrade --to V` changes the desired version, and the operator is rolled to V as the CVO would.
      const startFor = (v: string, payload: string) => startOperator({
        kubeConfig: kc, operatorVersion: v, featureGateDir: payload, logger,
        metricsBindAddress: '127.0.0.1:0', metricsSecure: false, healthProbeBindAddress: '127.0.0.1:0',
        leaderElect: true, leaderElectionNamespace: 'default',
        onLostLeadership: (reason) => logger.error('leader election lost', { reason }),
      });
      let running = { version, op: await startFor(version, dir) };
      const ready = await Promise.race([running.op.ready.then(() => 'ready'), signal]);
      if (ready === 'ready') {
        process.stdout.write(`\n${formatTable(await readStatus(kc))}\n`);
        process.stdout.write(`metrics: http://${running.op.metricsAddress}/metrics  health: http://${running.op.healthAddress}/readyz\n`);
        if (plane) {
          writeFileSync(START_KUBECONFIG_POINTER, plane.kubeconfigPath);
          process.stdout.write(`try:     KUBECONFIG=${plane.kubeconfigPath} node dist/cli/featuregates.js status\n`);
          process.stdout.write(`         node dist/cli/featuregates.js simulate upgrade --to ${nextMinor(version)}   (then --complete; watch status gain the entry)\n`);
        }
        process.stdout.write('press Ctrl-C to stop\n');
        const cvs = new Reflector<ClusterVersion>(new ResourceClient(kc, ClusterVersionResource), { name: CLUSTER_VERSION_NAME, logger });
        let rolling = Promise.resolve();
        if (plane) cvs.addListener(() => {
          const cv = cvs.get(CLUSTER_VERSION_NAME);
          const desired = cv?.status?.desired?.version;
          if (!desired || desired === running.version) return;
          const payload = cv?.metadata.annotations?.[SIMULATED_PAYLOAD_ANNOTATION] ?? dir;
          rolling = rolling.then(async () => {
            if (desired === running.version) return;
            process.stderr.write(`ClusterVersion desires ${desired}: rolling the operator from ${running.version} to ${desired} (payload ${payload})\n`);
            await running.op.stop();
            running = { version: desired, op: await startFor(desired, payload) };
          }).catch((e: unknown) => logger.error('rolling the operator failed', { error: (e as Error).message }));
        });
        if (plane) cvs.start();
        await signal;
        await cvs.stop();
        await rolling;
      }
      process.stderr.write('stopping...\n');
      await running.op.stop();
      return 0;
    } finally {
      if (plane) rmSync(START_KUBECONFIG_POINTER, { force: true });
      await plane?.stop();
      if (plane) process.stderr.write('local control plane stopped\n');
    }
  },
};
