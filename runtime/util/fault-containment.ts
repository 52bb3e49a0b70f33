// Fault containment for the long-running commands (operator, hosted): a promise one guest's or one controller's
// code left unawaited and that rejects is logged and counted, and the process goes on serving everyone else —
// Node.js would otherwise end the process (and every guest on the replica) with it. A process-wide failure is
// not contained: a failed start, a lost Lease or membership, or an exception thrown synchronously out of an event
// handler (an uncaught exception: the process's state is unknown) still ends the process non-zero, so the
// Deployment restarts it. The places where per-guest and per-controller code runs catch their own faults first
// (a reconcile's exception is that key's error, a reflector listener's is logged, a watch event handler's ends
// that watch): this is the net under them.
import type { Logger } from '../log/logger.js';

/** Installs the handler; returns its removal. `onContained` counts (a metric, say). */
export function containUnhandledRejections(log: Logger, onContained: () => void = () => undefined): () => void {
  const handler = (reason: unknown) => {
    onContained();
    log.error('unhandled promise rejection contained (a fault in one guest or controller; the process goes on)', {
      error: reason instanceof Error ? reason.stack ?? reason.message : String(reason),
    });
  };
  process.on('unhandledRejection', handler);
  return () => process.off('unhandledRejection', handler);
}
