// Turns shared by many pacers at one bucket's pace, served in the order asked, each asker holding at most one place in
// the line (it asks again only after its turn ran). Hosted mode gives one to a replica for every engaged guest's
// wake-ups (REPLICA_WAKEUPS): a change every guest sees at once is worked through at the replica's pace, and a guest
// whose changes never stop gets one turn per round like any other — it cannot run the bucket into a debt the honest
// guests would wait behind (a plain shared token bucket let ~13 such guests starve the rest of a replica).
import { realClock, type Clock } from './clock.js';

export class FairTurns {
  private readonly line: (() => void)[] = [];
  private serving = false;

  /** `bucket.when()` says how long the next turn must wait (a BucketLimiter: per second, burst). */
  constructor(private readonly bucket: { when(): number }, private readonly clock: Clock = realClock) {}

  /** `turn` runs when its place in the line comes. */
  ask(turn: () => void): void {
    this.line.push(turn);
    if (!this.serving) void this.serve();
  }

  /** Askers waiting in the line. */
  get waiting(): number {
    return this.line.length;
  }

  private async serve(): Promise<void> {
    this.serving = true;
    while (this.line.length > 0) {
      const wait = this.bucket.when();
      if (wait > 0) await this.clock.sleep(wait);
      this.line.shift()!();
    }
    this.serving = false;
  }
}
