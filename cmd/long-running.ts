// The shell of the two long-running commands (`featuregates operator` and `featuregates hosted`): each only
// composes its controllers in `start`; this runs them until SIGTERM or SIGINT (then stops them, exit 0), or
// until their start fails (logged as "<what> failed", exit 1). Losing a Lease the process needs exits 1 at once
// (its controllers are stopped and every write fenced already; the Deployment restarts the pod). Once stopped the
// process exits at once, whatever is still open (a guest's keep-alive socket, a timer): a hosted replica of the
// 2,010-HCP fleet logged "stopped" 6 s after its SIGTERM and exited 90 s later. What was still open is logged.
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
  logger.info('stopped', lingering());
  // Not kept alive by what is still open; an unref'd timer fires only if something else keeps the loop running.
  setTimeout(() => process.exit(code), 0).unref();
  return code;
}

/** What keeps the event loop alive besides the standard streams, by kind (empty when nothing). */
function lingering(): { stillOpen?: Record<string, number> } {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  // stdin/stdout/stderr show up as TTYWrap or PipeWrap; a pipe of the standard streams is not a straggler.
  for (const kind of ['TTYWrap', 'PipeWrap']) if (counts[kind] !== undefined && (counts[kind] -= 3) <= 0) delete counts[kind];
  return Object.keys(counts).length ? { stillOpen: counts } : {};
}
