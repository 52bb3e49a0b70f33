// Whether a process with this PID exists (signal 0: nothing is sent). EPERM means it exists but is not ours.
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
