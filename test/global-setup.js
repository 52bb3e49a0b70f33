// One pair of real control planes per test run, shared by every test file: one with our CRDs
// (deploy/crds), one with openshift/api's upstream CRDs (from the pinned module). Tests that restart kube-apiserver start their
// own plane so they do not disturb the others. Jest loads global setup outside its module system, so
// this file is plain ESM and uses the compiled harness (`npm test` builds dist/ first).
import { startControlPlane, bundledCRDPaths, openshiftAPIModuleDir, upstreamCRDPaths } from '../dist/sdk/testing/index.js';

export default async function globalSetup() {
  const t0 = Date.now();
  // openshift/api's module (hack/openshift-api/go.mod) found once, for every worker (its CRDs, its CRD suites).
  process.env.OPENSHIFT_API_MODULE_DIR = openshiftAPIModuleDir();
  const [ours, upstream] = await Promise.all([
    startControlPlane({ crdPaths: bundledCRDPaths() }),
    startControlPlane({ crdPaths: upstreamCRDPaths() }),
  ]);
  globalThis.__FGC_PLANES__ = [ours, upstream];
  process.env.FGC_TEST_KUBECONFIG = ours.kubeconfigPath;
  process.env.FGC_TEST_UPSTREAM_KUBECONFIG = upstream.kubeconfigPath;
  process.env.FGC_TEST_KUBE_VERSION = ours.version;
  process.stderr.write(`\n[global-setup] control planes up in ${Date.now() - t0} ms: kube-apiserver ${ours.version} ` +
    `(our CRDs at ${ours.server}, upstream CRDs at ${upstream.server})\n`);
}
