// The guest sessions of the shards a replica holds: an HCP has one while its shard is held here and its namespace is
// selected. One HCP's event starts, pokes or stops its session alone; a shard acquired or a Namespace's labels
// changed walks every HCP once per turn of the event loop (the calls of one turn share the walk). Per held shard a
// HeldShard (its fence, its sessions, their records); a shard that lapsed and is held again keeps its sessions. The
// guest kubeconfig Secrets are watched for the sessions' namespaces only, and a Secret's change pokes the sessions of
// its namespace through an index, not a walk of all of them. startHosted (coordinator.ts) wires this to the HCP
// reflector, the Namespace reflector and the shard manager.
import { hcpKey, hcpNamespace, shardOf, type HostedControlPlane, type HostedGuestRecord, type Namespace, type ShedGuest } from '../api-types/index.js';
import type { ClusterAccess, Logger, Reflector, Registry } from '../runtime/index.js';
import { GuestSecrets } from './guest-secrets.js';
import { GuestSession, type GuestSessionDeps } from './guest-session.js';
import { HeldShard } from './held-shard.js';

/** What every session of the replica shares (GuestSessionDeps less what is the HCP's own or this class's). */
export type SharedSessionDeps = Omit<GuestSessionDeps, 'key' | 'shard' | 'fence' | 'hcp' | 'secrets' | 'record'>;

export interface ReplicaSessionsOptions {
  shards: number;
  hcps: Reflector<HostedControlPlane>;
  /** With a namespace selector: the selected Namespaces. */
  namespaces?: Reflector<Namespace>;
  /** The Secret name every session reads instead of its HCP's status.kubeConfig (--guest-kubeconfig-secret). */
  secretOverride?: { name: string; key?: string };
  shared: SharedSessionDeps;
  /** A shard's records changed (status-records.ts writes them). */
  recordsChanged: (shard: number) => void;
  /** The replica is stopping: no session starts any more. */
  stopping: () => boolean;
  management: ClusterAccess;
  registry: Registry;
  logger: Logger;
}

export class ReplicaSessions {
  /** The guest kubeconfig Secrets of the sessions' namespaces (a runnable of the replica's caches). */
  readonly secrets: GuestSecrets;
  /** Shard → what this replica holds for it (nothing else keeps per-shard state). */
  private readonly held = new Map<number, HeldShard>();
  /** Namespace → the HCP keys of this replica's sessions in it. */
  private readonly byNamespace = new Map<string, Set<string>>();
  /** HCP key → why its guest is shed (memory-budget.ts): not engaged, its record says why, until it is taken back. */
  private readonly shedGuests = new Map<string, ShedGuest>();
  private walkQueued = false;

  constructor(private readonly o: ReplicaSessionsOptions) {
    this.secrets = new GuestSecrets(o.management, (namespace) => {
      for (const key of this.byNamespace.get(namespace) ?? []) this.heldOf(key)?.sessions.get(key)?.poke();
    }, o.logger, o.registry);
  }

  /** What is held for `shard` (status-records.ts reads its records). */
  heldShard(shard: number): HeldShard | undefined {
    return this.held.get(shard);
  }

  /** The HCP keys with a session, sorted. */
  keys(): string[] {
    return [...this.held.values()].flatMap((h) => [...h.sessions.keys()]).sort();
  }

  /** One HCP was added, changed or deleted: its session alone starts, syncs or stops. */
  readonly hcpChanged = (key: string): void => {
    if (this.o.stopping()) return;
    const h = this.heldOf(key);
    const s = h?.sessions.get(key);
    const want = this.wanted(key, this.o.hcps.get(key));
    if (this.shedGuests.has(key) && !this.eligible(key, this.o.hcps.get(key))) this.unshed(key);
    if (want && !s) this.start(key, h!);
    else if (!want && s) this.stop(key, s);
    else s?.poke();
  };

  /** Every HCP may concern this replica now: one walk, at the end of this turn of the event loop. */
  readonly walkSoon = (): void => {
    if (this.walkQueued) return;
    this.walkQueued = true;
    queueMicrotask(() => this.walk());
  };

  /** The shard is held (`resumed`: again, after a late renewal, its sessions kept). */
  acquired(shard: number, fence: () => void, resumed: boolean): void {
    const lapsed = resumed ? this.held.get(shard) : undefined;
    if (lapsed) {
      // Its sessions kept running; a write the lapsed fence refused was dropped, so they look again.
      if (lapsed.resume(fence)) for (const s of lapsed.sessions.values()) s.resync();
      this.o.recordsChanged(shard);
      return;
    }
    this.held.set(shard, new HeldShard(shard, fence));
    this.o.recordsChanged(shard); // a new holder writes the shard's record once (its guests' records replace the last holder's)
    this.walkSoon();
  }

  /** The shard went: its sessions stop; resolves when nothing of them runs. */
  async lost(shard: number): Promise<void> {
    const h = this.held.get(shard);
    this.held.delete(shard);
    for (const key of h?.sessions.keys() ?? []) this.forget(key);
    for (const key of [...this.shedGuests.keys()]) if (shardOf(key, this.o.shards) === shard) this.unshed(key);
    await Promise.all([...h?.sessions.values() ?? []].map((s) => s.stop()));
  }

  private heldOf(key: string): HeldShard | undefined {
    return this.held.get(shardOf(key, this.o.shards));
  }

  /** The HCP's guest is this replica's to engage (its shard held, its namespace selected), shed or not. */
  private eligible(key: string, hcp: HostedControlPlane | undefined): boolean {
    const selected = hcp !== undefined && (!this.o.namespaces || this.o.namespaces.get(hcp.metadata.namespace) !== undefined);
    return selected && this.heldOf(key) !== undefined;
  }

  private wanted(key: string, hcp: HostedControlPlane | undefined): boolean {
    return this.eligible(key, hcp) && !this.shedGuests.has(key);
  }

  /** The memory budget's view (memory-budget.ts): each session's cost. */
  costs(): { key: string; failing: boolean; bytesRead: number }[] {
    return [...this.held.values()].flatMap((h) => [...h.sessions].map(([key, s]) => ({ key, ...s.cost() })));
  }

  /** The guests this replica would engage were none shed: its sessions' and the shed ones still its own. */
  eligibleKeys(): Set<string> {
    const keys = new Set(this.keys());
    for (const key of this.shedGuests.keys()) if (this.eligible(key, this.o.hcps.get(key))) keys.add(key);
    return keys;
  }

  /** The budget sheds the guest: its session stops, then its record and metrics say why (the last record kept beside). */
  shed(g: ShedGuest): void {
    const h = this.heldOf(g.key);
    const s = h?.sessions.get(g.key);
    if (!h || !s || this.o.stopping()) return;
    this.shedGuests.set(g.key, g);
    h.sessions.delete(g.key);
    this.forget(g.key);
    const last = s.lastRecord();
    void s.stop().then(() => {
      if (this.shedGuests.get(g.key) !== g || this.held.get(h.shard) !== h) return; // taken back, or the shard went meanwhile
      h.putRecord({ ...last ?? { hcp: g.key, shard: h.shard, owner: this.o.shared.identity, featureSet: '', versions: [] }, lastError: g.message });
      this.o.recordsChanged(h.shard);
      const [namespace, name] = g.key.split('/') as [string, string];
      this.o.shared.metrics.synced(namespace, name, false, 'MemoryBudget');
    });
  }

  /** The budget takes a shed guest back: engaged again (its session writes its own record). */
  readmit(key: string): void {
    if (!this.shedGuests.has(key)) return;
    this.unshed(key);
    this.hcpChanged(key);
  }

  private unshed(key: string): void {
    this.shedGuests.delete(key);
    const h = this.heldOf(key);
    if (h?.dropRecord(key)) this.o.recordsChanged(h.shard);
    const [namespace, name] = key.split('/') as [string, string];
    this.o.shared.metrics.forget(namespace, name);
  }

  private start(key: string, h: HeldShard): void {
    const session = new GuestSession({
      ...this.o.shared, key, shard: h.shard, fence: h.fence, hcp: () => this.o.hcps.get(key), secrets: this.secrets,
      ...(this.o.secretOverride ? { secretOverride: this.o.secretOverride } : {}),
      record: (r: HostedGuestRecord) => {
        // A record said after the shard went (its session stopping) is not the new holder's to write.
        if (this.held.get(h.shard) !== h) return;
        h.putRecord(r);
        this.o.recordsChanged(h.shard);
      },
    });
    h.sessions.set(key, session);
    const namespace = hcpNamespace(key);
    let inNamespace = this.byNamespace.get(namespace);
    if (!inNamespace) this.byNamespace.set(namespace, (inNamespace = new Set()));
    inNamespace.add(key);
    session.start();
  }

  private stop(key: string, s: GuestSession): void {
    const h = this.heldOf(key);
    h?.sessions.delete(key);
    this.forget(key);
    if (h?.dropRecord(key)) this.o.recordsChanged(h.shard);
    void s.stop();
    this.walkSoon(); // the walk forgets the Secret names no session needs any more
  }

  private forget(key: string): void {
    const namespace = hcpNamespace(key);
    const inNamespace = this.byNamespace.get(namespace);
    inNamespace?.delete(key);
    if (inNamespace?.size === 0) this.byNamespace.delete(namespace);
  }

  /** Starts the sessions of held shards' HCPs, stops those no longer held or selected, and keeps the Secrets they read. */
  private walk(): void {
    this.walkQueued = false;
    if (this.o.stopping()) return;
    const want = new Set<string>();
    for (const hcp of this.o.hcps.list()) {
      const key = hcpKey(hcp);
      if (this.wanted(key, hcp)) want.add(key);
    }
    for (const h of [...this.held.values()]) for (const [key, s] of [...h.sessions]) if (!want.has(key)) this.stop(key, s);
    for (const key of [...this.shedGuests.keys()]) if (!this.eligible(key, this.o.hcps.get(key))) this.unshed(key);
    for (const key of want) {
      const h = this.heldOf(key)!;
      if (!h.sessions.has(key)) this.start(key, h);
    }
    // The Secret names no session of this replica reads any more are forgotten (their watches stop).
    const names = new Set<string>();
    if (this.o.secretOverride) names.add(this.o.secretOverride.name);
    else for (const key of want) { const n = this.o.hcps.get(key)?.status?.kubeConfig?.name; if (n) names.add(n); }
    this.secrets.retain(names);
  }
}
