// Benchmark: one operator sync's pure work — resolve the current entry and compute the desired status —
// for 101 versions × 1000 gates, plus the no-write equality check. Goal ≤ 5 ms median.
//   npm run bench -- desired-status
import { buildRegistry, desiredFeatureGates, featureGatesEqual, resolveFeatureGateDetails, serializedSizeBytes } from '../../api-types/index.js';
import { median, ms, nowMs, percentile } from './stats.js';

const GATES = 1000;
const VERSIONS = 101;
const ITERATIONS = 300;

const gates = Array.from({ length: GATES }, (_, i) => `FeatureGate${String(i).padStart(4, '0')}Example`);
const manifest = (set: string, on: (i: number) => boolean) => ({
  source: `${set}.yaml`,
  object: {
    kind: 'FeatureGate', spec: set ? { featureSet: set } : {},
    status: { featureGates: [{ version: '', enabled: gates.filter((_, i) => on(i)).map((name) => ({ name })), disabled: gates.filter((_, i) => !on(i)).map((name) => ({ name })) }] },
  },
});
const registry = buildRegistry([manifest('', (i) => i % 3 === 0), manifest('TechPreviewNoUpgrade', (i) => i % 3 !== 2)], { operatorVersion: '4.200.0' });
const versions = Array.from({ length: VERSIONS }, (_, i) => `4.${200 - i}.0`);
const history = versions.map((version) => ({ version }));
const existing = versions.slice(1).map((v) => resolveFeatureGateDetails({}, registry, v));
existing.unshift(resolveFeatureGateDetails({}, registry, versions[0] as string));

const samples: number[] = [];
let writes = 0;
for (let i = 0; i < ITERATIONS; i++) {
  const spec = i % 2 === 0 ? {} : { featureSet: 'TechPreviewNoUpgrade' };
  const t0 = nowMs();
  const current = resolveFeatureGateDetails(spec, registry, versions[0] as string);
  const desired = desiredFeatureGates({ current, existing, history });
  if (!featureGatesEqual(desired, existing)) writes++;
  samples.push(nowMs() - t0);
}
const warm = samples.slice(20);
const size = serializedSizeBytes({ featureGates: existing });
console.log(`desired status, ${VERSIONS} versions x ${GATES} gates (${(size / 1024).toFixed(0)} KiB status), ${warm.length} timed runs:`);
console.log(`  median ${ms(median(warm))}, p99 ${ms(percentile(warm, 99))}, max ${ms(Math.max(...warm))} (${writes} of ${ITERATIONS} needed a write)`);
