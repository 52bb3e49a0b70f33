// Waiting for a process to become ready: poll a check every 100 ms until it passes, the deadline passes
// or the process exits (then say so, with its last log lines). And the racy "pick a free port" step.
import { createServer } from 'node:net';
import { realClock } from '../runtime/util/clock.js';
import type { SupervisedProcess } from './supervised-process.js';

export async function poll(what: string, timeoutMs: number, proc: SupervisedProcess | undefined,
  check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = '';
  while (Date.now() < deadline) {
    if (proc && !proc.isRunning()) {
      throw new Error(`${proc.name} exited while waiting for ${what}; last log lines:\n${proc.logTail()}`);
    }
    try {
      if (await check()) return;
    } catch (e) {
      lastError = (e as Error).message;
    }
    await realClock.sleep(100);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${lastError})` : ''}` +
    (proc ? `; last ${proc.name} log lines:\n${proc.logTail()}` : ''));
}

/** A loopback port free right now (another process may take it before we bind it: callers retry). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** A port race shows up as an early exit saying the address is taken. */
export function isPortRace(e: unknown): boolean {
  return /address already in use|bind:/i.test(String((e as Error).message));
}
