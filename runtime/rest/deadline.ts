// The bound of a request: one deadline for its whole life (connection, every attempt, every Retry-After wait
// between them), as client-go bounds a request by its context. An attempt races each step against it.

/** The epoch ms a request with this timeout must end by (undefined: no bound, as kubectl's --request-timeout=0). */
export function deadlineFor(timeoutMs: number): number | undefined {
  return timeoutMs > 0 && Number.isFinite(timeoutMs) ? Date.now() + timeoutMs : undefined;
}

/** Why a request was aborted: the signal's reason when it is an Error. */
export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('request aborted');
}

/**
 * The bound of one attempt: `expired` rejects with the timeout's error when `ms` pass (or with the abort's
 * reason when the signal fires); it never settles when there is no bound. `fired` says it did.
 */
export class Deadline {
  readonly expired: Promise<never>;
  fired = false;
  private timer: NodeJS.Timeout | undefined;
  private detach: (() => void) | undefined;

  constructor(ms: number | undefined, timeoutError: () => Error, signal?: AbortSignal) {
    this.expired = new Promise<never>((_resolve, reject) => {
      if (ms !== undefined) this.timer = setTimeout(() => { this.fired = true; reject(timeoutError()); }, ms);
      if (signal) {
        const onAbort = () => { this.fired = true; reject(abortReason(signal)); };
        signal.addEventListener('abort', onAbort, { once: true });
        this.detach = () => signal.removeEventListener('abort', onAbort);
      }
    });
    this.expired.catch(() => undefined);
  }

  /** `step`, or the deadline's error if it passes first. */
  within<T>(step: Promise<T>): Promise<T> {
    return Promise.race([step, this.expired]);
  }

  clear(): void {
    clearTimeout(this.timer);
    this.detach?.();
  }
}
