// What a long-running process runs — its serving endpoint, caches, leader election, event recorder, controllers —
// in named groups, stopped in one place (controller-runtime's runnable groups and StopAndWait): the groups in the
// reverse of the order they were declared, the members of one group together. A runnable added while the process
// runs starts at once, as one added to a started manager; one added once stopping has begun is not started (a
// controller asked for after the Lease was lost never runs). One that fails to stop is logged, and the rest stop.
import { silentLogger, type Logger } from '../log/logger.js';

export interface Runnable {
  /** Started when added (omitted: the runnable started itself, e.g. a server already listening). */
  start?(): void;
  stop(): Promise<void> | void;
}

export class RunnableGroups<Group extends string> {
  private readonly members: Map<Group, Runnable[]>;
  private readonly closed = new Set<Group>();
  private stopping: Promise<void> | undefined;

  /** `order`: the groups in the order they start; they stop in the reverse order. */
  constructor(order: readonly Group[], private readonly log: Logger = silentLogger) {
    this.members = new Map(order.map((g) => [g, []]));
  }

  /** True once stopAndWait() was called. */
  get stopped(): boolean {
    return this.stopping !== undefined;
  }

  /**
   * Adds `r` to `group` and starts it; once stopping (or once its group was stopped on its own), it is neither
   * started nor kept. Returns whether it was added.
   */
  add(group: Group, r: Runnable): boolean {
    const list = this.members.get(group);
    if (!list) throw new Error(`no runnable group ${group}`);
    if (this.stopping || this.closed.has(group)) return false;
    list.push(r);
    r.start?.();
    return true;
  }

  /**
   * Stops one group now and takes no more into it, the others running on (the operator's controllers when its
   * Lease is lost: nothing more is written, and the caller decides what the process does).
   */
  stopGroup(group: Group): Promise<void> {
    this.closed.add(group);
    return this.stopMembers(group);
  }

  /** Stops every group, the last declared first, each group's members together; resolves when all have stopped. */
  stopAndWait(): Promise<void> {
    this.stopping ??= (async () => {
      for (const group of [...this.members.keys()].reverse()) await this.stopMembers(group);
    })();
    return this.stopping;
  }

  private async stopMembers(group: Group): Promise<void> {
    const list = this.members.get(group) ?? [];
    const results = await Promise.allSettled(list.splice(0).map(async (r) => r.stop()));
    for (const res of results) {
      if (res.status === 'rejected') this.log.error('a runnable failed to stop', { group, error: (res.reason as Error)?.message ?? String(res.reason) });
    }
  }
}
