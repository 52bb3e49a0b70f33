// Turns shared by many askers at one bucket's pace, served in the order asked, each asker holding at most one place in
// the line (it asks again only after its turn ran). Hosted mode gives one to a replica for its guests' first listings
// (FIRST_LISTINGS): a replica taking over hundreds of guests lists at most that many at once, and a guest that asks
// again and again gets one turn per round like any other — it cannot run the bucket into a debt the honest guests
// would wait behind (a plain shared token bucket let ~13 such guests starve the rest of a replica).
//
// With places (`maxInFlight`), a turn that returns a promise holds one until the work it started has settled, or for
// `holdMs` at most (a tenant's guest may take a write and never answer): the pace then follows what the process
// gets done, not only the clock — on an idle core turns run as fast as the bucket allows, on a starved one no more
// work is started than `maxInFlight` turns' worth, so the event loop never holds a backlog a Lease renewal would wait
// behind (client-go bounds a controller's work the same way, by its number of workers).
import { realClock, type Clock } from '../runtime/util/clock.js';

export interface TurnPlaces {
  /** Turns whose work may be unsettled at once. */
  maxInFlight: number;
  /** The longest one turn holds its place. */
  holdMs: number;
}

export class FairTurns {
  private readonly line: (() => unknown)[] = [];
  private serving = false;
  private held = 0;
  private placeFreed: (() => void) | undefined;

  /** `bucket.when()` says how long the next turn must wait (a BucketLimiter: per second, burst). */
  constructor(
    private readonly bucket: { when(): number },
    private readonly clock: Clock = realClock,
    private readonly places?: TurnPlaces,
  ) {}

  /** `turn` runs when its place in the line comes; with places, the promise it returns holds one until it settles. */
  ask(turn: () => unknown): void {
    this.line.push(turn);
    if (!this.serving) void this.serve();
  }

  /** Askers waiting in the line. */
  get waiting(): number {
    return this.line.length;
  }

  /** Turns whose work has not settled yet (and has held its place less than holdMs). */
  get inFlight(): number {
    return this.held;
  }

  private async serve(): Promise<void> {
    this.serving = true;
    while (this.line.length > 0) {
      if (this.places && this.held >= this.places.maxInFlight) {
        await new Promise<void>((resolve) => {
          this.placeFreed = resolve;
        });
        continue;
      }
      const wait = this.bucket.when();
      if (wait > 0) await this.clock.sleep(wait);
      const turn = this.line.shift()!;
      let work: unknown;
      try {
        work = turn();
      } catch {
        // A turn's failure is its asker's to report: the line goes on for everyone else.
      }
      this.hold(work);
    }
    this.serving = false;
  }

  /** Keeps a place while `work` is unsettled, for holdMs at most. */
  private hold(work: unknown): void {
    if (!this.places || !(work instanceof Promise)) return;
    this.held++;
    const timer = new AbortController();
    let given = false;
    const giveBack = () => {
      if (given) return;
      given = true;
      timer.abort();
      this.held--;
      const freed = this.placeFreed;
      this.placeFreed = undefined;
      freed?.();
    };
    void this.clock.sleep(this.places.holdMs, timer.signal).then(giveBack);
    work.then(giveBack, giveBack);
  }
}
