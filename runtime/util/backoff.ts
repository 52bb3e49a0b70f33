// Jittered exponential backoff: initial, doubling up to max, each delay drawn from [d/2, d].
export class Backoff {
  private attempt = 0;

  constructor(private readonly initialMs: number, private readonly maxMs: number, private readonly random: () => number = Math.random) {}

  next(): number {
    const d = Math.min(this.maxMs, this.initialMs * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 60);
    return d / 2 + (d / 2) * this.random();
  }

  reset(): void {
    this.attempt = 0;
  }
}
