// Benchmark: a FeatureGate status write → all 100 SDK accessors in one process observe the change.
//   npm run bench -- sdk-fanout
import { createFeatureGateAccess } from '../../sdk/index.js';
import { bundledCRDPaths, setClusterVersion, setFeatureGateStatus, startControlPlane } from '../../sdk/testing/index.js';
import { median, ms, nowMs, percentile } from './stats.js';

const ACCESSORS = 100;
const CHANGES = Number(process.env.N ?? 50);
const plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
const kc = plane.kubeConfig;
await setClusterVersion(kc, { history: ['4.22.0'] });
await setFeatureGateStatus(kc, [{ version: '4.22.0', enabled: [{ name: 'Gate-0' }], disabled: [] }]);

let expected = 'Gate-0';
let seen = 0;
let allSeen: (() => void) | undefined;
const accessors = Array.from({ length: ACCESSORS }, () => createFeatureGateAccess({
  kubeConfig: kc, desiredVersion: '4.22.0',
  onChange: ({ current }) => {
    if (current.enabledNames[0] === expected && ++seen === ACCESSORS) allSeen?.();
  },
}));
for (const a of accessors) a.start();
await Promise.all(accessors.map((a) => a.waitForInitial({ timeoutMs: 60_000 })));
await new Promise((r) => setTimeout(r, 2000)); // let every watch connect

const samples: number[] = [];
for (let i = 1; i <= CHANGES; i++) {
  expected = `Gate-${i}`;
  seen = 0;
  const done = new Promise<void>((resolve) => { allSeen = resolve; });
  const t0 = nowMs();
  await setFeatureGateStatus(kc, [{ version: '4.22.0', enabled: [{ name: expected }], disabled: [] }]);
  await done;
  samples.push(nowMs() - t0);
}
await Promise.all(accessors.map((a) => a.stop()));
await plane.stop();
console.log(`status write → all ${ACCESSORS} accessors observed, ${CHANGES} changes: median ${ms(median(samples))}, p99 ${ms(percentile(samples, 99))}, max ${ms(Math.max(...samples))}`);
