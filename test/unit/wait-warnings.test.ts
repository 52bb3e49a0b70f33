// The accessor's "still waiting" warnings, on a fake clock: first after firstMs, then doubling up to maxMs;
// each says how long and what for; they end at the first observation or on stop.
import { describe, expect, it } from '@jest/globals';
import { warnWhileWaiting } from '../../sdk/wait-warnings.js';
import { FakeClock } from '../support/fake-clock.js';

describe('warnWhileWaiting', () => {
  it('warns after 10 s, 20 s, 40 s… capped, with the state at each moment, until observed', async () => {
    const clock = new FakeClock();
    const warnings: string[] = [];
    let state: string | undefined = 'featuregates.config.openshift.io/cluster does not exist yet';
    const done = warnWhileWaiting({
      firstMs: 10_000,
      maxMs: 40_000,
      warn: (m) => warnings.push(m),
      clock,
      signal: new AbortController().signal,
      describe: () => state,
    });
    await clock.advance(9_999);
    expect(warnings).toEqual([]);
    await clock.advance(1);
    expect(warnings).toEqual(['still waiting for FeatureGate detection after 10s: featuregates.config.openshift.io/cluster does not exist yet']);
    state = 'missing desired version "4.22.1" in featuregates.config.openshift.io/cluster';
    await clock.advance(20_000); // 30 s
    await clock.advance(40_000); // 70 s
    await clock.advance(40_000); // 110 s: capped at 40 s
    expect(warnings.slice(1)).toEqual([30, 70, 110].map((s) => `still waiting for FeatureGate detection after ${s}s: ${state}`));
    state = undefined; // observed
    await clock.advance(40_000);
    await done;
    expect(warnings).toHaveLength(4);
    expect(clock.pending).toBe(0);
  });

  it('ends without a word when stopped', async () => {
    const clock = new FakeClock();
    const warnings: string[] = [];
    const stop = new AbortController();
    const done = warnWhileWaiting({ firstMs: 1_500, maxMs: 60_000, warn: (m) => warnings.push(m), clock, signal: stop.signal, describe: () => 'x' });
    await clock.advance(1_500);
    expect(warnings).toEqual(['still waiting for FeatureGate detection after 1.5s: x']);
    stop.abort();
    await done;
    await clock.advance(100_000);
    expect(warnings).toHaveLength(1);
  });
});
