// "Still waiting" warnings for an accessor that has not observed its gates: the first after `firstMs`, then
// with the delay doubling up to `maxMs`, each saying how long it has waited and what for; they end with the
// first observation (describe() returns undefined) or when `signal` aborts. Default: 10 s, then 20 s, 40 s…
// up to 5 minutes, on stderr — so a component whose version never appears does not hang silently.
import type { Clock } from '../runtime/util/clock.js';

export interface WaitWarningOptions {
  /** Delay before the first warning (ms). Default 10 000. */
  firstMs?: number;
  /** Largest delay between two warnings (ms). Default 300 000. */
  maxMs?: number;
  /** Where a warning goes. Default: the accessor's logger at warn, else a line on stderr. */
  warn?: (message: string) => void;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(1)}s`;
}

export async function warnWhileWaiting(options: Required<WaitWarningOptions> & {
  clock: Clock; signal: AbortSignal;
  /** The state still waited for, or undefined once the gates are observed. */
  describe: () => string | undefined;
}): Promise<void> {
  let delay = options.firstMs;
  let waited = 0;
  for (;;) {
    await options.clock.sleep(delay, options.signal);
    if (options.signal.aborted) return;
    waited += delay;
    const state = options.describe();
    if (state === undefined) return;
    options.warn(`still waiting for FeatureGate detection after ${seconds(waited)}: ${state}`);
    delay = Math.min(delay * 2, options.maxMs);
  }
}
