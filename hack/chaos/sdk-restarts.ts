// Chaos: N SDK accessors in one process across kube-apiserver restarts. After each restart a change of
// their version's gates is written as soon as the API server is ready; every accessor must see it within
// 2 s, with no spurious onChange and no unhandled rejection.
import type { VersionGates } from '../../api-types/index.js';
import { createFeatureGateAccess, type FeatureGateAccess } from '../../sdk/index.js';
import { bundledCRDPaths, setClusterVersion, setFeatureGateStatus, startControlPlane } from '../../sdk/testing/index.js';
import { Figures, percentile, secs, sleep, until, type ScenarioResult } from './lib.js';

const VERSION = '4.22.1';
const entry = (i: number): VersionGates => ({ version: VERSION, enabled: [`Gate${i}`], disabled: [`Gate${i + 1}`] });

export async function sdkAcrossRestarts(o: { accessors: number; restarts: number }): Promise<ScenarioResult> {
  const f = new Figures();
  const plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
  const kc = plane.kubeConfig;
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => unhandled.push(e);
  process.on('unhandledRejection', onUnhandled);
  const accessors: FeatureGateAccess[] = [];
  const seen: string[][] = [];
  try {
    await setClusterVersion(kc, { history: [VERSION] });
    await setFeatureGateStatus(kc, [entry(0)]);
    for (let i = 0; i < o.accessors; i++) {
      seen.push([]);
      const a = createFeatureGateAccess({
        kubeConfig: kc, desiredVersion: VERSION,
        onChange: ({ current }) => { seen[i]!.push(current.enabledNames.join(',')); },
      });
      a.start();
      accessors.push(a);
    }
    await Promise.all(accessors.map((a) => a.waitForInitial({ timeoutMs: 60_000 })));
    const lags: number[] = [];
    for (let r = 1; r <= o.restarts; r++) {
      await sleep(2000);
      await plane.restartAPIServer();
      const readyAt = performance.now();
      await setFeatureGateStatus(kc, [entry(r)]);
      lags.push(await until(`restart ${r}: all accessors see Gate${r}`, async () => seen.every((s) => s.at(-1) === `Gate${r}`), 30_000, 10)
        .then(() => performance.now() - readyAt));
      process.stderr.write(`[chaos] SDK restart ${r}/${o.restarts}: all ${o.accessors} accessors saw the change ${secs(lags.at(-1)!)} after ready\n`);
    }
    const expected = Array.from({ length: o.restarts + 1 }, (_, i) => `Gate${i}`).join(' ');
    const spurious = seen.filter((s) => s.join(' ') !== expected).length;
    f.add(`${o.accessors} accessors see the next change after a restart (max / median of ${o.restarts})`, `${secs(Math.max(...lags))} / ${secs(percentile(lags, 50))}`, '≤ 2 s', Math.max(...lags) <= 2000);
    f.add('accessors with a spurious or missing onChange', spurious, '0', spurious === 0);
    f.add('unhandled rejections', unhandled.length, '0', unhandled.length === 0);
    return { name: 'SDK accessors across kube-apiserver restarts', figures: f.list };
  } finally {
    await Promise.all(accessors.map((a) => a.stop()));
    process.off('unhandledRejection', onUnhandled);
    await plane.stop();
  }
}
