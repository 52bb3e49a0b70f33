// The shell of the two long-running commands (`featuregates operator` and `featuregates hosted`): each only
// composes its controllers in `start`; this runs them until SIGTERM or SIGINT (then stops them, exit 0), or
// until their start fails (logged as "<what> failed", exit 1). Losing a Lease the process needs exits 1 at once
// (its controllers are stopped and every write fenced already; the Deployment restarts the pod).
import { containUnhandledRejections, type Logger } from '../runtime/index.js';

export interface Running {
  /** Resolves when started; rejects when starting failed. */
  ready: Promise<unknown>;
  stop(): Promise<void>;
}

export async function runUntilSignalled(logger: Logger, what: string,
  start: (lost: (message: string) => (reason: string) => void) => Promise<Running>): Promise<number> {
  containUnhandledRejections(logger);
  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => { finish = resolve; });
  const running = await start((message) => (reason) => {
    logger.error(message, { reason });
    process.exit(1);
  });
  running.ready.catch((e: unknown) => {
    logger.error(`${what} failed`, { error: (e as Error).message });
    finish(1);
  });
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => { logger.info(`${sig} received, shutting down`); finish(0); });
  const code = await finished;
  await running.stop();
  logger.info('stopped');
  return code;
}
