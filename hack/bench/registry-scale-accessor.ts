// Child of `npm run bench -- registry-scale`: one SDK accessor (as a component starts it) on a cluster whose
// FeatureGate status holds many versions; prints its RSS and heap 5 s after the gates were observed.
//   node registry-scale-accessor.js <kubeconfig> <version>
import { readKubeconfigFile } from '../../runtime/index.js';
import { createFeatureGateAccess } from '../../sdk/index.js';

const [kubeconfig, version] = process.argv.slice(2);
const access = createFeatureGateAccess({
  kubeConfig: readKubeconfigFile(kubeconfig!)!,
  desiredVersion: version!,
  onChange: () => undefined,
});
access.start();
const gates = await access.waitForInitial({ timeoutMs: 60_000 });
await new Promise((r) => setTimeout(r, 5000));
global.gc?.();
const m = process.memoryUsage();
console.log(JSON.stringify({ rssMB: m.rss / 1048576, heapMB: m.heapUsed / 1048576, known: gates.known().length }));
await access.stop();
process.exit(0);
