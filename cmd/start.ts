// `featuregates start` (what `npm start` runs). With no cluster configured: a local control plane with
// the CRDs, ClusterVersion/version (one Completed entry) and FeatureGate/cluster, and the operator on the
// example payload manifests; prints the resulting status and runs until Ctrl-C, leaving nothing behind.
// With a cluster configured (--kubeconfig or $KUBECONFIG), it runs the operator against that cluster.
import { join } from 'node:path';
import { createLogger, clusterConfigured, loadKubeConfig } from '../runtime/index.js';
import { startOperator } from '../controllers/manager.js';
import { bundledCRDPaths, packageRoot, setClusterVersion, setFeatureGateSpec, startControlPlane, type ControlPlane } from '../sdk/testing/index.js';
import { formatTable, readStatus } from './status.js';
import { payloadVersionFlag, type CommandSpec, LOG_FORMAT_OPTION, logFormatOption } from './args.js';

const EXAMPLE_VERSION = '4.22.0';

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
      const op = await startOperator({
        kubeConfig: kc, operatorVersion: version, featureGateDir: dir, logger,
        metricsBindAddress: '127.0.0.1:0', metricsSecure: false, healthProbeBindAddress: '127.0.0.1:0',
      });
      const ready = await Promise.race([op.ready.then(() => 'ready'), signal]);
      if (ready === 'ready') {
        process.stdout.write(`\n${formatTable(await readStatus(kc))}\n`);
        process.stdout.write(`metrics: http://${op.metricsAddress}/metrics  health: http://${op.healthAddress}/readyz\n`);
        if (plane) process.stdout.write(`try:     KUBECONFIG=${plane.kubeconfigPath} node dist/cmd/featuregates.js status\n`);
        process.stdout.write('press Ctrl-C to stop\n');
        await signal;
      }
      process.stderr.write('stopping...\n');
      await op.stop();
      return 0;
    } finally {
      await plane?.stop();
      if (plane) process.stderr.write('local control plane stopped\n');
    }
  },
};
