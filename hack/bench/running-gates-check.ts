// The cost of one RunningGatesController check (what `featuregates verify` does against kube-apiserver):
// read /metrics (streamed, only kubernetes_feature_enabled kept), /version and /flagz of a real local
// kube-apiserver v1.36, and compute the verdicts. Reports the size of /metrics, wall time and this process's
// CPU per check (median of N), against a baseline in the same run: one GET of FeatureGate/cluster.
//   npm run bench -- running-gates-check [--checks 50]
import { parseArgs } from 'node:util';
import { FEATURE_GATE_NAME, gateChecks } from '../../api-types/index.js';
import { FeatureGateResource, KubeTransport, ResourceClient, kubernetesGateLifecycle, readComponentGates, readKubeconfigFile } from '../../runtime/index.js';
import { bundledCRDPaths, setFeatureGateStatus, startControlPlane } from '../../sdk/testing/index.js';
import { percentile } from './stats.js';

const { values } = parseArgs({ options: { checks: { type: 'string', default: '50' } } });
const N = Number(values.checks);
const plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
try {
  const kc = readKubeconfigFile(plane.kubeconfigPath)!;
  await setFeatureGateStatus(kc, [{ version: '4.22.0', enabled: ['APIResponseCompression'], disabled: ['APIServingWithRoutine'] }]);
  const lifecycle = kubernetesGateLifecycle();
  let bytes = 0;
  await KubeTransport.for(kc).request({ method: 'GET', path: '/metrics', accept: 'text/plain', maxBodyBytes: 64 * 1024 * 1024, onLine: (l) => { bytes += l.length + 1; } });
  const measure = async (what: () => Promise<unknown>) => {
    const wall: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < N; i++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await what();
      wall.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
    }
    return { wall: percentile(wall, 50), cpu: percentile(cpu, 50), cpuMax: Math.max(...cpu) };
  };
  const fgs = new ResourceClient(kc, FeatureGateResource);
  const base = await measure(() => fgs.get(FEATURE_GATE_NAME));
  const check = await measure(async () => {
    const read = await readComponentGates(kc);
    return gateChecks({ desired: [{ name: 'APIResponseCompression', enabled: true }, { name: 'APIServingWithRoutine', enabled: false }], running: read.running, lifecycle });
  });
  process.stdout.write(`# running-gates-check: ${N} checks against kube-apiserver ${plane.version} (idle, /metrics ${(bytes / 1024).toFixed(0)} KiB), node ${process.version}\n`);
  process.stdout.write(`one check: wall ${check.wall.toFixed(1)} ms, CPU ${check.cpu.toFixed(1)} ms (max ${check.cpuMax.toFixed(1)} ms) — median of ${N}\n`);
  process.stdout.write(`baseline, GET FeatureGate/cluster: wall ${base.wall.toFixed(1)} ms, CPU ${base.cpu.toFixed(1)} ms\n`);
  process.stdout.write(`at one check per 10 minutes: ${(check.cpu / 10 / 1000).toFixed(4)} s of CPU per minute\n`);
} finally {
  await plane.stop();
}
