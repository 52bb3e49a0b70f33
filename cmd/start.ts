// `featuregates start` (what `npm start` runs): with no cluster configured, a local control plane with
// the CRDs installed; stops cleanly on Ctrl-C.
import { bundledCRDPaths, startControlPlane } from '../sdk/testing/index.js';
import type { CommandSpec } from './args.js';

export const startCommand: CommandSpec = {
  name: 'start',
  summary: 'start a local control plane (etcd + kube-apiserver) with the CRDs installed, until Ctrl-C',
  usage: 'featuregates start',
  options: {},
  async run() {
    const t0 = Date.now();
    process.stderr.write('starting the local control plane (etcd + kube-apiserver)...\n');
    const plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
    process.stdout.write(`control plane ${plane.version} ready in ${Date.now() - t0} ms\n` +
      `  server:     ${plane.server}\n  kubeconfig: ${plane.kubeconfigPath}\n` +
      `  try: KUBECONFIG=${plane.kubeconfigPath} kubectl get featuregates\n` +
      'press Ctrl-C to stop\n');
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    process.stderr.write('stopping...\n');
    await plane.stop();
    process.stderr.write('stopped\n');
    return 0;
  },
};
