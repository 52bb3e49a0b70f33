// A stand-in component operator for `npm run bench -- sdk-component-cost` and `sdk-fanout`: it loads
// @kubernetes/client-node and a KubeConfig as any component does, then (mode "accessor") also the SDK with one
// started accessor that has observed its gates. With `watching`, every mode first holds one client-node watch on
// another resource (Namespaces), as a component operator does before it adds the SDK. Once ready (its watch up, its
// gates observed) it idles and prints one JSON line: its memory 30 s and 90 s after ready, as sampled — no collection
// is forced before (a component pays what the process holds, garbage included) — and its CPU seconds per minute
// between the two; with --expose-gc also its memory after a full collection at the end (what is retained).
//   node sdk-component.js <kubeconfig> baseline|accessor [watching|-] [sdk module: another build's sdk/index.js]
import { KubeConfig } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { sleep } from '../../test/support/timing.js';
import { holdNamespaceWatch } from './component-watch.js';

export const SAMPLE_AFTER_READY_MS = [30_000, 90_000] as const;

const [kubeconfigPath, mode, watching, sdkModule] = process.argv.slice(2);
const kc = new KubeConfig();
kc.loadFromFile(kubeconfigPath!);
if (watching === 'watching') await holdNamespaceWatch(kc);
if (mode === 'accessor') {
  const { createFeatureGateAccess } = await import(sdkModule ? pathToFileURL(sdkModule).href : '../../sdk/index.js') as typeof import('../../sdk/index.js');
  const access = createFeatureGateAccess({ kubeConfig: kc, desiredVersion: '4.22.0', onChange: () => undefined });
  access.start();
  await access.waitForInitial({ timeoutMs: 30_000 });
}
const ready = performance.now();
const cpu = () => {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};
const MB = 1048576;
const sample = () => {
  const m = process.memoryUsage();
  const heap = getHeapStatistics();
  const newSpace = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.physical_space_size ?? 0;
  // Where RSS beyond the heap's used bytes sits: the heap's committed pages — its young generation among them, whose
  // semi-spaces grow after a busy start and stay grown in an idle process — and memory malloc'd by V8.
  return { rssMB: m.rss / MB, heapUsedMB: m.heapUsed / MB, externalMB: m.external / MB, heapCommittedMB: heap.total_physical_size / MB,
    newSpaceMB: newSpace / MB, mallocedMB: heap.malloced_memory / MB };
};
await sleep(Math.max(0, ready + SAMPLE_AFTER_READY_MS[0] - performance.now()));
const first = sample();
const c0 = cpu();
await sleep(Math.max(0, ready + SAMPLE_AFTER_READY_MS[1] - performance.now()));
const second = sample();
const idleCpuS = (cpu() - c0) * 60_000 / (SAMPLE_AFTER_READY_MS[1] - SAMPLE_AFTER_READY_MS[0]);
// What is retained: the same after a full collection (when started with --expose-gc), labelled as such.
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const g = sample();
console.log(JSON.stringify({ mode, readyMs: ready, at30: first, at90: second, idleCpuS, ...(gc ? { afterGc: g } : {}) }));
process.exit(0);
