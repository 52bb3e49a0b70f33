// Sharding a fleet of hosted control planes over coordinator replicas, pure:
//  - an HCP maps to one of a fixed number of shards by a stable hash of `namespace/name` (FNV-1a, 32 bit,
//    then murmur3's finalizer),
//    so its shard never changes while the shard count stays;
//  - a shard's owner is chosen by rendezvous (highest-random-weight) hashing over the live members: each
//    member scores hash(member, shard) and the highest wins — a joining or leaving member moves only the
//    shards it wins or held, about shards / members of them;
//  - liveness of a member is judged on the observer's own monotonic clock, as the leader elector judges a
//    Lease: a member's record that has not changed for its lease duration is dead; an empty holder (a
//    released Lease) is gone at once.

const utf8 = new TextEncoder();

/** FNV-1a, 32 bit, of the UTF-8 bytes of `s`. */
export function fnv1a32(s: string): number {
  let h = 0x811c9dc5;
  for (const byte of utf8.encode(s)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** murmur3's 32-bit finalizer: FNV-1a's low bits are poorly spread for similar keys (clusters-hc-1, -2, ...). */
export function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

/** The most shards a fleet may be split into (each is a Lease renewed by its holder). */
export const MAX_SHARDS = 1000;

/** What is wrong with a shard count, or undefined when it is a whole number from 1 to MAX_SHARDS. */
export function shardCountProblem(shards: number): string | undefined {
  return Number.isInteger(shards) && shards >= 1 && shards <= MAX_SHARDS ? undefined : `must be a whole number from 1 to ${MAX_SHARDS}`;
}

/** The shard of an HCP key (`namespace/name`), 0 ≤ shard < shards. */
export function shardOf(key: string, shards: number): number {
  if (!Number.isInteger(shards) || shards < 1) throw new RangeError(`shards must be a positive integer, got ${shards}`);
  return mix32(fnv1a32(key)) % shards;
}

/** A member's score for a shard; scores of one member are not correlated across shards. */
function score(member: string, shard: number): number {
  return mix32(fnv1a32(`${member}\u0000${shard}`));
}

/** The member that owns `shard` among `members` (highest score; ties by name), undefined when none. */
export function shardOwner(shard: number, members: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const m of members) {
    const s = score(m, shard);
    if (s > bestScore || (s === bestScore && best !== undefined && m < best)) {
      best = m;
      bestScore = s;
    }
  }
  return best;
}

/** The shards `member` owns among `members`. */
export function ownedShards(member: string, members: readonly string[], shards: number): number[] {
  const out: number[] = [];
  for (let s = 0; s < shards; s++) if (shardOwner(s, members) === member) out.push(s);
  return out;
}

export interface MemberRecord {
  /** The member's identity (its Lease's holderIdentity; "" once released). */
  holder: string;
  /** What changes on every renewal (e.g. renewTime and resourceVersion), compared for change only. */
  version: string;
  leaseDurationMs: number;
}

/** Live members from repeated observations of their records, on the observer's monotonic clock. */
export class MemberLiveness {
  private readonly seen = new Map<string, { version: string; at: number; durationMs: number; holder: string }>();

  /** Records one full listing (by record name) at monotonic time `now`; returns the live identities. */
  observe(records: ReadonlyMap<string, MemberRecord>, now: number): string[] {
    for (const name of [...this.seen.keys()]) if (!records.has(name)) this.seen.delete(name);
    for (const [name, r] of records) {
      const prior = this.seen.get(name);
      if (!prior || prior.version !== r.version || prior.holder !== r.holder) {
        this.seen.set(name, { version: r.version, at: now, durationMs: r.leaseDurationMs, holder: r.holder });
      }
    }
    return this.live(now);
  }

  live(now: number): string[] {
    const out = new Set<string>();
    for (const s of this.seen.values()) if (s.holder !== '' && now - s.at < s.durationMs) out.add(s.holder);
    return [...out].sort();
  }
}
