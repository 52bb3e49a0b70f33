// What a long-running process runs — its serving endpoint, caches, leader election, event recorder, controllers —
// in named groups, started and stopped in one place (controller-runtime's runnable groups and StopAndWait):
//  - a runnable declares what it waits for, as controller-runtime's do: a cache says when it has listed (`synced`);
//    one that writes says it needs the leader (`needLeaderElection`, controller-runtime's LeaderElectionRunnable).
//    The rest start when added. One that needs the leader, added before this process leads or before every cache
//    added so far has listed, waits, and the waiting ones start in the order they were added once both hold
//    (controller-runtime starts its leader-election group after its caches have synced and the Lease is won);
//  - the groups stop in the reverse of the order they were declared, the members of one group together; a
//    runnable still waiting to start is let go unstarted. A runnable added while the process runs starts at once
//    (as one added to a started manager); one added once stopping has begun is not started (a controller asked
//    for after the Lease was lost never runs). One that fails to stop is logged, and the rest stop.
import { silentLogger, type Logger } from '../log/logger.js';

export interface Runnable {
  /** Started when added, or once it may run (omitted: the runnable started itself, e.g. a server already listening). */
  start?(): void;
  stop(): Promise<void> | void;
  /** A cache: resolves once it has listed. Runnables that need the leader start after every cache added before them. */
  readonly synced?: Promise<unknown>;
  /** Runs only while this process leads (default false): added before it leads, it waits for lead(). */
  readonly needLeaderElection?: boolean;
}

export interface RunnableGroupsOptions {
  /** This process elects a leader: runnables that need the leader wait for lead(). Without, it leads from the start. */
  leaderElection?: boolean;
}

export class RunnableGroups<Group extends string> {
  private readonly members: Map<Group, Runnable[]>;
  private readonly closed = new Set<Group>();
  private stopping: Promise<void> | undefined;
  private leading: boolean;
  /** The caches added since the waiting runnables were last released: empty when every cache added has listed. */
  private readonly caches: Promise<unknown>[] = [];
  /** Runnables that need the leader, added before they could start, in the order added. */
  private readonly waiting: { group: Group; r: Runnable }[] = [];
  private releasing: Promise<void> | undefined;

  /** `order`: the groups in the order they start; they stop in the reverse order. */
  constructor(order: readonly Group[], private readonly log: Logger = silentLogger, options: RunnableGroupsOptions = {}) {
    this.members = new Map(order.map((g) => [g, []]));
    this.leading = !options.leaderElection;
  }

  /** True once stopAndWait() was called. */
  get stopped(): boolean {
    return this.stopping !== undefined;
  }

  /**
   * Adds `r` to `group` and starts it, or, when it needs the leader and this process does not lead or a cache has not
   * listed, keeps it to start once both hold. Once stopping (or once its group was stopped on its own), it is neither
   * started nor kept. Returns whether it was added.
   */
  add(group: Group, r: Runnable): boolean {
    const list = this.members.get(group);
    if (!list) throw new Error(`no runnable group ${group}`);
    if (this.stopping || this.closed.has(group)) return false;
    if (r.synced) this.caches.push(r.synced);
    if (r.needLeaderElection && (!this.leading || this.caches.length > 0 || this.waiting.length > 0)) {
      this.waiting.push({ group, r });
      this.releaseWhenReady();
      return true;
    }
    list.push(r);
    r.start?.();
    return true;
  }

  /**
   * This process leads from now on (its Lease is won): the runnables that need the leader start once every cache has
   * listed. Resolves when they have started, or when stopping let them go.
   */
  lead(): Promise<void> {
    this.leading = true;
    return this.releaseWhenReady();
  }

  /**
   * Stops one group now and takes no more into it, the others running on (the operator's controllers when its
   * Lease is lost: nothing more is written, and the caller decides what the process does).
   */
  stopGroup(group: Group): Promise<void> {
    this.closed.add(group);
    this.letGoWaiting((w) => w.group === group);
    return this.stopMembers(group);
  }

  /** Stops every group, the last declared first, each group's members together; resolves when all have stopped. */
  stopAndWait(): Promise<void> {
    this.stopping ??= (async () => {
      this.letGoWaiting(() => true);
      for (const group of [...this.members.keys()].reverse()) await this.stopMembers(group);
    })();
    return this.stopping;
  }

  /** Starts the waiting runnables once this process leads and every cache added has listed (again, for caches added meanwhile). */
  private releaseWhenReady(): Promise<void> {
    if (!this.leading || this.stopping) return this.releasing ?? Promise.resolve();
    this.releasing ??= (async () => {
      for (let listed = 0; listed < this.caches.length && !this.stopping;) {
        const upTo = this.caches.length;
        try {
          await Promise.all(this.caches.slice(listed, upTo));
        } catch (e) {
          this.log.error('a cache failed to list; the runnables that need the leader are not started', { error: (e as Error)?.message ?? String(e) });
          return;
        }
        listed = upTo;
      }
      this.releasing = undefined;
      if (this.stopping) return;
      if (this.caches.length > 0) this.log.info('caches synced');
      this.caches.length = 0;
      for (const { group, r } of this.waiting.splice(0)) {
        if (this.closed.has(group)) continue;
        this.members.get(group)!.push(r);
        r.start?.();
      }
    })();
    return this.releasing;
  }

  private letGoWaiting(which: (w: { group: Group }) => boolean): void {
    for (let i = this.waiting.length - 1; i >= 0; i--) if (which(this.waiting[i]!)) this.waiting.splice(i, 1);
  }

  private async stopMembers(group: Group): Promise<void> {
    const list = this.members.get(group) ?? [];
    const results = await Promise.allSettled(list.splice(0).map(async (r) => r.stop()));
    for (const res of results) {
      if (res.status === 'rejected') this.log.error('a runnable failed to stop', { group, error: (res.reason as Error)?.message ?? String(res.reason) });
    }
  }
}
