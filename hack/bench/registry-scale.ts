// Benchmark: the registry at 265 gates (openshift/api's open proposal to mirror every upstream Kubernetes gate,
// API #2994) with 100 versions in history. Measures, in one run: the FeatureGate object's size and its margin
// under etcd's request limit (and how many versions fit), one operator sync's pure work at that size, an SDK
// accessor's memory with that status against a real kube-apiserver (beside one with a single entry), and
// `explain`/`diff` wall time through the CLI. Gate names: the 126 real names of release-5.1, plus 139 made from
// them ("Kube" or "Upstream" + a real name), so lengths are realistic (a little longer, if anything).
//   npm run bench -- registry-scale
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildRegistry,
  desiredFeatureGates,
  gateNames,
  ETCD_REQUEST_LIMIT_BYTES,
  featureGatesEqual,
  resolveFeatureGateDetails,
  serializedSizeBytes,
  type FeatureGateDetails,
} from '../../api-types/index.js';
import { bundledCRDPaths, setClusterVersion, setFeatureGateStatus, setFeatureGateSpec, startControlPlane } from '../../sdk/testing/index.js';
import { median, ms, nowMs, percentile } from './stats.js';

const root = join(import.meta.dirname, '..', '..', '..', '..'); // .cache/bench-build/hack/bench → the project
const cli = join(root, 'dist', 'cli', 'featuregates.js');
const real = JSON.parse(readFileSync(join(root, 'test', 'fixtures', 'openshift-api', 'payload-featuregates', 'releases', 'release-5.1', 'featureGate-4-10-SelfManagedHA-Default.yaml'), 'utf8'));
const realNames: string[] = [...real.status.featureGates[0].enabled, ...real.status.featureGates[0].disabled].map(
  (g: { name: string }) => g.name,
);
const GATES = 265;
const made = [...realNames.map((n) => `Kube${n}`), ...realNames.map((n) => `Upstream${n}`)];
const names = [...realNames, ...made.slice(0, GATES - realNames.length)].sort();
const VERSIONS = 100;
const version = (i: number) => `4.${VERSIONS + 100 - i}.0`;

const manifest = (set: string, on: (i: number) => boolean) => ({
  apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', metadata: { name: 'cluster' }, spec: set ? { featureSet: set } : {},
  status: { featureGates: [{ version: '', enabled: names.filter((_, i) => on(i)).map((name) => ({ name })), disabled: names.filter((_, i) => !on(i)).map((name) => ({ name })) }] },
});
const payload = mkdtempSync(join(tmpdir(), 'fgc-265-'));
const payload2 = mkdtempSync(join(tmpdir(), 'fgc-265b-'));
writeFileSync(join(payload, 'featureGate-Default.yaml'), JSON.stringify(manifest('', (i) => i % 3 === 0)));
writeFileSync(join(payload, 'featureGate-TechPreviewNoUpgrade.yaml'), JSON.stringify(manifest('TechPreviewNoUpgrade', (i) => i % 3 !== 2)));
writeFileSync(join(payload2, 'featureGate-Default.yaml'), JSON.stringify(manifest('', (i) => i % 3 === 0 || i % 10 === 1)));
writeFileSync(join(payload2, 'featureGate-TechPreviewNoUpgrade.yaml'), JSON.stringify(manifest('TechPreviewNoUpgrade', (i) => i % 3 !== 2)));

const registry = buildRegistry([payload].flatMap(() => ['featureGate-Default.yaml', 'featureGate-TechPreviewNoUpgrade.yaml']
  .map((f) => ({ source: f, object: JSON.parse(readFileSync(join(payload, f), 'utf8')) }))), { operatorVersion: version(0) });
const entries: FeatureGateDetails[] = Array.from({ length: VERSIONS }, (_, i) => resolveFeatureGateDetails({}, registry, version(i)));
const object = { apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', metadata: { name: 'cluster', resourceVersion: '123456', uid: '7f1c3b9e-0000-4000-8000-000000000000' }, spec: {}, status: { featureGates: entries } };
const bytes = serializedSizeBytes(object);
const perEntry = serializedSizeBytes(entries[0]);
console.log(`registry: ${names.length} gates (${realNames.length} real names), ${VERSIONS} versions in history`);
console.log(`  FeatureGate/cluster: ${(bytes / 1024).toFixed(0)} KiB (${(bytes / 1048576).toFixed(2)} MiB), ${perEntry} B per status entry (${(perEntry / names.length).toFixed(1)} B per gate)`);
console.log(`  etcd limit ${ETCD_REQUEST_LIMIT_BYTES} B: margin ${((ETCD_REQUEST_LIMIT_BYTES - bytes) / 1024).toFixed(0)} KiB (${(100 * (1 - bytes / ETCD_REQUEST_LIMIT_BYTES)).toFixed(0)}%); ` +
  `the guard refuses from ${Math.floor((ETCD_REQUEST_LIMIT_BYTES - (bytes - VERSIONS * (perEntry + 1))) / (perEntry + 1)) + 1} versions at this gate count`);

// one sync's pure work
const history = entries.map((e) => ({ version: e.version }));
const samples: number[] = [];
for (let i = 0; i < 320; i++) {
  const t0 = nowMs();
  const current = resolveFeatureGateDetails(i % 2 ? { featureSet: 'TechPreviewNoUpgrade' } : {}, registry, version(0));
  const desired = desiredFeatureGates({ current, existing: entries, history });
  featureGatesEqual(desired, entries);
  samples.push(nowMs() - t0);
}
const warm = samples.slice(20);
console.log(`  desired status (resolve + desired + equality), ${warm.length} runs: median ${ms(median(warm))}, p99 ${ms(percentile(warm, 99))}`);

// CLI speed on the payload folder
const time = (args: string[]) => {
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = nowMs();
    const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
    runs.push(nowMs() - t0);
    if (r.status !== 0 && r.status !== 1) throw new Error(`${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  }
  return median(runs);
};
console.log(`  explain ${names[7]} (payload): median ${ms(time(['explain', names[7]!, '--authoritative-feature-gate-dir', payload, '--payload-version', version(0)]))} (5 runs)`);
console.log(`  diff of two payloads: median ${ms(time(['diff', '--from', payload, '--to', payload2, '--from-version', version(0), '--to-version', version(0)]))} (5 runs)`);

// a real API server: the status stored, explain from the cluster, and SDK accessors' memory
const plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
try {
  await setClusterVersion(plane.kubeConfig, { history: entries.map((e) => e.version) });
  await setFeatureGateSpec(plane.kubeConfig, {});
  const accessor = (v: string) => JSON.parse(execFileSync(process.execPath, ['--expose-gc', join(import.meta.dirname, 'registry-scale-accessor.js'), plane.kubeconfigPath, v], { encoding: 'utf8' })) as { rssMB: number; heapMB: number; known: number };
  const asNames = entries.map((e) => ({ version: e.version, ...gateNames(e) }));
  await setFeatureGateStatus(plane.kubeConfig, asNames.slice(0, 1));
  const small = [accessor(version(0)), accessor(version(0)), accessor(version(0))];
  await setFeatureGateStatus(plane.kubeConfig, asNames);
  const big = [accessor(version(0)), accessor(version(0)), accessor(version(0))];
  const med = (xs: { rssMB: number; heapMB: number }[], k: 'rssMB' | 'heapMB') => median(xs.map((x) => x[k]));
  console.log(`  SDK accessor, 1 status entry: RSS ${med(small, 'rssMB').toFixed(1)} MB, heap ${med(small, 'heapMB').toFixed(1)} MB (median of 3)`);
  console.log(`  SDK accessor, ${VERSIONS} entries × ${names.length} gates: RSS ${med(big, 'rssMB').toFixed(1)} MB, heap ${med(big, 'heapMB').toFixed(1)} MB ` +
    `(median of 3; +${(med(big, 'rssMB') - med(small, 'rssMB')).toFixed(1)} MB RSS, +${(med(big, 'heapMB') - med(small, 'heapMB')).toFixed(1)} MB heap); it knows ${big[0]!.known} gates`);
  console.log(`  explain ${names[7]} (cluster, ${VERSIONS} versions): median ${ms(time(['explain', names[7]!, '--kubeconfig', plane.kubeconfigPath]))} (5 runs)`);
  console.log(`  diff of two versions of the cluster: median ${ms(time(['diff', '--from-version', version(0), '--to-version', version(VERSIONS - 1), '--kubeconfig', plane.kubeconfigPath]))} (5 runs)`);
} finally {
  await plane.stop();
  rmSync(payload, { recursive: true, force: true });
  rmSync(payload2, { recursive: true, force: true });
}
