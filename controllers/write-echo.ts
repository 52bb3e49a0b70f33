// A controller's own last write, until its cache has heard it. A status controller that replaces an object and is woken
// again before the write's watch event arrives (another input changed meanwhile) reads the object as it was before its
// write: what it would write from there is the same change again, sent with a resourceVersion already gone — a 409 at
// best. client-go's controllers keep "expectations" for the same reason. While the cache still holds the version this
// controller replaced, nothing is written from it: the echo is on its way and wakes the controller (the cached object
// is one of its sources); a change by anyone else moves the cache past that version and is acted on at once.
interface Versioned { metadata: { resourceVersion?: string } }

export class WriteEcho {
  /** The resourceVersion the last write replaced (undefined: no write waits for its echo). */
  private replaced: string | undefined;

  /** True while `cached` is still the object this controller last replaced. */
  behind(cached: Versioned): boolean {
    if (this.replaced === undefined || cached.metadata.resourceVersion !== this.replaced) {
      this.replaced = undefined;
      return false;
    }
    return true;
  }

  /** `replaced` (as read from the cache) was just replaced by a write that succeeded. */
  wrote(replaced: Versioned): void {
    this.replaced = replaced.metadata.resourceVersion;
  }
}
