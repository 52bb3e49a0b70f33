// The default change handler: ignore the first observation; on a change, run the beforeExit hooks
// (release a leader lease, stop watches, flush logs), wait a random delay up to jitterMs so many
// components do not restart at once, then exit 0 and let the kubelet restart the process.
import type { FeatureGateChange, FeatureGateChangeHandler } from './feature-gate-change.js';

export interface ExitOnChangeOptions {
  /** Upper bound of the random delay before exiting. Default 0. */
  jitterMs?: number;
  /** Run in order before exiting; a failing hook is reported and the exit goes on. */
  beforeExit?: (() => void | Promise<void>) | (() => void | Promise<void>)[];
  /** Exit code. Default 0. */
  exitCode?: number;
  /** Test seam: what "exit" means. Default process.exit. */
  exit?: (code: number) => void;
  /** Where to report. Default stderr. */
  log?: (message: string) => void;
}

export function exitOnChange<Name extends string = string>(options: ExitOnChangeOptions = {}): FeatureGateChangeHandler<Name> {
  const hooks = options.beforeExit === undefined ? [] : Array.isArray(options.beforeExit) ? options.beforeExit : [options.beforeExit];
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const log = options.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  let exiting = false;
  return async ({ previous, current }: FeatureGateChange<Name>) => {
    if (!previous || exiting) return;
    exiting = true;
    const turnedOn = current.enabledNames.filter((n) => !previous.enabledNames.includes(n));
    const turnedOff = current.disabledNames.filter((n) => !previous.disabledNames.includes(n));
    log(`feature gates changed (enabled: ${turnedOn.join(',') || '-'}; disabled: ${turnedOff.join(',') || '-'}); exiting to restart with them`);
    for (const hook of hooks) {
      try {
        await hook();
      } catch (e) {
        log(`beforeExit hook failed: ${(e as Error).message}`);
      }
    }
    const delay = Math.floor(Math.random() * (options.jitterMs ?? 0));
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    exit(options.exitCode ?? 0);
  };
}
