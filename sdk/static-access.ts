// Accessors that do not watch a cluster: fixed gates (tests, render paths), gates read from a FeatureGate
// object (bootstrap), and a testing variant whose readiness and read error the test controls.
import type { FeatureGate } from '../api-types/index.js';
import { gatesForVersion, FeatureGatesNotObservedError, type FeatureGateAccess } from './feature-gate-access.js';
import { FeatureGates } from './feature-gates.js';

/** Always ready with these gates; start/stop do nothing. */
export function staticFeatureGateAccess<Name extends string = string>(gates: {
  enabled: Iterable<Name>;
  disabled: Iterable<Name>;
}): FeatureGateAccess<Name> {
  const value = new FeatureGates<Name>(gates.enabled, gates.disabled);
  return {
    start: () => undefined,
    stop: async () => undefined,
    waitForInitial: async () => value,
    current: () => value,
    isReady: () => true,
  };
}

/**
 * The gates of `version` in a FeatureGate object (for example a rendered manifest at bootstrap). Throws
 * `unable to determine features: missing desired version "<v>" in featuregates.config.openshift.io/cluster`.
 */
export function featureGateAccessFromObject<Name extends string = string>(
  featureGate: FeatureGate,
  version: string,
): FeatureGateAccess<Name> {
  const g = gatesForVersion<Name>(featureGate, version);
  return staticFeatureGateAccess({ enabled: g.enabledNames, disabled: g.disabledNames });
}

export interface TestingFeatureGateAccess<Name extends string = string> extends FeatureGateAccess<Name> {
  /** Marks the gates observed (resolves pending waits). */
  setReady(): void;
  /** current() throws this error while set (even when ready), as library-go's testing accessor returns it. */
  setReadError(error: Error | undefined): void;
}

/** An accessor whose readiness and read error the test controls. Starts not ready unless `ready` is true. */
export function testingFeatureGateAccess<Name extends string = string>(gates: { enabled: Iterable<Name>; disabled: Iterable<Name> },
  options: { ready?: boolean; readError?: Error } = {}): TestingFeatureGateAccess<Name> {
  const value = new FeatureGates<Name>(gates.enabled, gates.disabled);
  let ready = options.ready ?? false;
  let readError = options.readError;
  const waiters: ((g: FeatureGates<Name>) => void)[] = [];
  return {
    start: () => undefined,
    stop: async () => undefined,
    waitForInitial: ({ timeoutMs, signal } = {}) => new Promise((resolve, reject) => {
      if (ready) return resolve(value);
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      if (timeoutMs !== undefined) setTimeout(() => reject(new Error('timed out waiting for FeatureGate detection')), timeoutMs).unref();
      waiters.push(resolve);
    }),
    current: () => {
      if (readError) throw readError;
      if (!ready) throw new FeatureGatesNotObservedError('featureGates not yet observed');
      return value;
    },
    isReady: () => ready,
    setReady: () => {
      ready = true;
      for (const w of waiters.splice(0)) w(value);
    },
    setReadError: (e) => { readError = e; },
  };
}
