// A stand-in component operator for `npm run bench -- sdk-fanout`: it loads @kubernetes/client-node and a
// KubeConfig as any component does, then (mode "loaded") also the SDK's modules, or (mode "accessor") the SDK
// and one started accessor; idles, and prints its RSS (and V8's heap and external memory) 60 s after start and
// its CPU seconds over the following 60 s as one JSON line; with --expose-gc also RSS, heap and external memory
// after a full collection at the end. With `watching`, every mode first holds one client-node watch on another
// resource (Namespaces), as a component operator does before it adds the SDK: the accessor's floor beside it.
//   node sdk-component.js <kubeconfig> baseline|loaded|accessor [watching]
import { KubeConfig, Watch } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { sleep } from '../../test/support/timing.js';

const [kubeconfigPath, mode, watching] = process.argv.slice(2);
const kc = new KubeConfig();
kc.loadFromFile(kubeconfigPath!);
if (watching === 'watching') {
  let seen = 0;
  const held = new Promise<void>((resolve, reject) => {
    void new Watch(kc).watch('/api/v1/namespaces', {}, () => { if (++seen === 1) resolve(); }, (err) => { if (err) reject(err as Error); })
      .catch(reject);
  });
  await held; // the first event (ADDED of an existing namespace): the watch is up
}
if (mode === 'loaded') await import('../../sdk/index.js');
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
await sleep(Math.max(0, 60_000 - performance.now()));
const m = process.memoryUsage();
const MB = 1048576;
const c0 = cpu();
await sleep(60_000);
const idleCpuS = cpu() - c0;
// What is retained: the same after a full collection (when started with --expose-gc), which takes away the
// few MB by which identical processes differ with the timing of their last collection.
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const g = process.memoryUsage();
console.log(JSON.stringify({ mode, rssMB: m.rss / MB, heapUsedMB: m.heapUsed / MB, heapTotalMB: m.heapTotal / MB, externalMB: m.external / MB, idleCpuS,
  ...(gc ? { gcRssMB: g.rss / MB, gcHeapUsedMB: g.heapUsed / MB, gcExternalMB: g.external / MB } : {}) }));
process.exit(0);
