// A stand-in component operator for `npm run bench -- sdk-fanout`: it loads @kubernetes/client-node and a
// KubeConfig as any component does, then (mode "accessor") also the SDK and one started accessor, idles,
// and prints its RSS 60 s after start and its CPU seconds over the following 60 s as one JSON line.
//   node sdk-component.js <kubeconfig> baseline|accessor
import { KubeConfig } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';

const [kubeconfigPath, mode] = process.argv.slice(2);
const kc = new KubeConfig();
kc.loadFromFile(kubeconfigPath!);
if (mode === 'accessor') {
  const { createFeatureGateAccess } = await import('../../sdk/index.js');
  const access = createFeatureGateAccess({ kubeConfig: kc, desiredVersion: '4.22.0', onChange: () => undefined });
  access.start();
  await access.waitForInitial({ timeoutMs: 30_000 });
}
const cpu = () => {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));
await sleep(Math.max(0, 60_000 - performance.now()));
const rssMB = process.memoryUsage().rss / 1048576;
const c0 = cpu();
await sleep(60_000);
console.log(JSON.stringify({ mode, rssMB, idleCpuS: cpu() - c0 }));
process.exit(0);
