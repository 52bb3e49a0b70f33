// Benchmark: "ClusterVersion change → FeatureGate status visible to a watcher" through the operator,
// over 100 changes, against a raw "PUT → watch event" round trip on the same control plane.
//   npm run bench -- status-latency
import { join } from 'node:path';
import { Watch } from '@kubernetes/client-node';
import { startOperator } from '../../controllers/manager.js';
import { FeatureGates, ResourceClient } from '../../runtime/index.js';
import { bundledCRDPaths, packageRoot, setClusterVersion, setFeatureGateSpec, setFeatureGateStatus, startControlPlane } from '../../sdk/testing/index.js';
import { median, ms, nowMs, percentile } from './stats.js';

const N = Number(process.env.N ?? 100);
const plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
const kc = plane.kubeConfig;
await setFeatureGateSpec(kc, {});
await setClusterVersion(kc, { history: ['4.22.0'] });
const op = await startOperator({
  kubeConfig: kc, operatorVersion: '4.22.0', featureGateDir: join(packageRoot(), 'deploy', 'base', 'payload'),
  metricsBindAddress: '0', healthProbeBindAddress: '0',
});
await op.ready;

// A watcher on FeatureGate/cluster that resolves the next event matching a predicate.
type Fg = { metadata: { resourceVersion: string }; status?: { featureGates?: { version: string }[] } };
let waiter: { pred: (o: Fg) => boolean; resolve: () => void } | undefined;
const watch = await new Watch(kc).watch('/apis/config.openshift.io/v1/featuregates', { fieldSelector: 'metadata.name=cluster' },
  (_t, o: Fg) => { if (waiter?.pred(o)) { const w = waiter; waiter = undefined; w.resolve(); } }, () => undefined);
const next = (pred: (o: Fg) => boolean) => new Promise<void>((resolve) => { waiter = { pred, resolve }; });
const versions = (o: Fg) => (o.status?.featureGates ?? []).map((e) => e.version).join(',');

// Operator path: alternate history between [4.22.0] and [4.22.0, 4.21.<i>] with a status entry for 4.21.<i> present,
// so every change makes the operator write (prune or keep).
const operatorSamples: number[] = [];
const fgs = new ResourceClient(kc, FeatureGates);
for (let i = 0; i < N; i++) {
  const old = `4.21.${i}`;
  const cur = (await fgs.get('cluster')).status!.featureGates[0]!;
  await setClusterVersion(kc, { history: ['4.22.0', old] });
  const seeded = next((o) => versions(o) === `4.22.0,${old}`);
  await setFeatureGateStatus(kc, [cur, { version: old, enabled: [], disabled: [] }]);
  await seeded;
  const pruned = next((o) => versions(o) === '4.22.0');
  const t0 = nowMs();
  await setClusterVersion(kc, { history: ['4.22.0'] });
  await pruned;
  operatorSamples.push(nowMs() - t0);
}

// Raw path: PUT /status ourselves and wait for the watch event.
const rawSamples: number[] = [];
for (let i = 0; i < N; i++) {
  const cur = (await fgs.get('cluster')).status!.featureGates[0]!;
  const tag = `9.9.${i}`;
  const seen = next((o) => versions(o).includes(tag));
  const t0 = nowMs();
  await setFeatureGateStatus(kc, [cur, { version: tag, enabled: [], disabled: [] }]);
  await seen;
  rawSamples.push(nowMs() - t0);
}
watch.abort();
await op.stop();
await plane.stop();
const om = median(operatorSamples);
const rm = median(rawSamples);
console.log(`ClusterVersion change → status visible to a watcher (operator), ${N} changes: median ${ms(om)}, p99 ${ms(percentile(operatorSamples, 99))}`);
console.log(`raw PUT /status → watch event, ${N} writes: median ${ms(rm)}, p99 ${ms(percentile(rawSamples, 99))}`);
console.log(`ratio of medians: ${(om / rm).toFixed(2)}`);
