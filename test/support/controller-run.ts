// A controller spec run by the real Controller on a fake clock: its declared policies (resync, a conflict's
// backoff, the Degraded condition) act as in production, and the test reads when each reconcile ran.
import { Controller, type ControllerSpec } from '../../runtime/index.js';
import { FakeClock } from './fake-clock.js';

export interface FakeClockRun {
  controller: Controller;
  clock: FakeClock;
  /** The fake-clock time of each reconcile, in order. */
  times: number[];
}

/** Starts `spec` at time 0 and lets its first reconcile end. */
export async function runOnFakeClock(spec: ControllerSpec): Promise<FakeClockRun> {
  const clock = new FakeClock();
  const times: number[] = [];
  const controller = new Controller(
    {
      ...spec,
      reconcile: (key, signal) => {
        times.push(clock.now());
        return spec.reconcile(key, signal);
      },
    },
    { clock },
  );
  controller.start();
  await clock.advance(0);
  return { controller, clock, times };
}
