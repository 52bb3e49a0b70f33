// A child process that cannot outlive its owner: it is started through a small Node "reaper" that
// polls the owner's PID and, when the owner is gone (even after SIGKILL, when no exit handler runs),
// stops the child with SIGTERM, then SIGKILL. Stopping is by PID: SIGTERM, a grace period, SIGKILL.
// The reaper leads its own process group, so signals sent to the owner's group do not reach the child.
import { spawn } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';

// Runs as `node -e REAPER <ownerPid> <graceMs> <command> <args...>`; kept as source text so it works
// the same from TypeScript sources under Jest and from the compiled package.
const REAPER = `
const { spawn } = require('node:child_process');
const [ownerPid, graceMs, cmd, ...args] = process.argv.slice(1);
const child = spawn(cmd, args, { stdio: 'inherit' });
let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  try { child.kill('SIGTERM'); } catch {}
  setTimeout(() => { try { child.kill('SIGKILL'); } catch {} }, Number(graceMs)).unref();
}
for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, stop);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
child.on('error', (e) => { console.error(String(e)); process.exit(127); });
setInterval(() => {
  try { process.kill(Number(ownerPid), 0); } catch { stop(); }
}, 200);
`;

export interface SupervisedProcess {
  /** PID of the reaper (the process to signal). */
  readonly pid: number;
  readonly name: string;
  readonly logFile: string;
  /** Resolves with the exit code once the process is gone. */
  readonly exited: Promise<number | null>;
  isRunning(): boolean;
  /** SIGTERM, wait up to graceMs, then SIGKILL. Resolves when the process has exited. */
  stop(graceMs?: number): Promise<void>;
  /** The last lines of the process log, for error messages. */
  logTail(lines?: number): string;
}

export function startSupervised(name: string, command: string, args: string[], logFile: string,
  graceMs = 20_000): SupervisedProcess {
  const fd = openSync(logFile, 'a');
  const child = spawn(process.execPath, ['-e', REAPER, String(process.pid), String(graceMs), command, ...args], {
    stdio: ['ignore', fd, fd],
    // Its own process group: a terminal's Ctrl-C (SIGINT to the foreground group) reaches only the owner,
    // which stops its work first (releasing Leases through this API server) and then stops these.
    detached: true,
  });
  closeSync(fd);
  let running = true;
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => { running = false; resolve(code); });
    child.on('error', () => { running = false; resolve(null); });
  });
  if (child.pid === undefined) throw new Error(`cannot start ${name} (${command})`);
  const pid = child.pid;
  return {
    pid, name, logFile, exited,
    isRunning: () => running,
    async stop(stopGraceMs = graceMs) {
      if (!running) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => { if (running) child.kill('SIGKILL'); }, stopGraceMs + 1000);
      await exited;
      clearTimeout(timer);
    },
    logTail(lines = 30) {
      try {
        return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
      } catch {
        return '(no log)';
      }
    },
  };
}
