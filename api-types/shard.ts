// Sharding a fleet of hosted control planes over coordinator replicas, pure:
//  - an HCP maps to one of a fixed number of shards by a stable hash of `namespace/name` (FNV-1a, 32 bit,
//    then murmur3's finalizer),
//    so its shard never changes while the shard count stays;
//  - a shard's owner is planned over the live members, balanced and moving as little as it can: each member
//    scores hash(member, shard) (rendezvous weights); no member owns more than ceil(shards / members); a shard
//    stays with its live holder, and the rest go highest score first to members with room — a joining member
//    takes only shards for itself, a leaving one gives up only its own;
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

/** The most shards one of `members` members may own: ceil(shards / members). */
export function shardCap(shards: number, members: number): number {
  return Math.ceil(shards / Math.max(1, members));
}

/**
 * The owner of every shard (index) among the live `members`, undefined when there are none, from who holds each
 * shard now (`holders`; a holder that is not a live member holds nothing):
 *  1. a member keeps the shards it holds, up to shardCap (over it — a member has joined — the highest-scoring ones);
 *  2. every other shard goes, over all (shard, member) pairs from the highest score down (ties by member name, then
 *     shard), to the first member with room.
 * From no holders this is the one stable matching of shards and members by score, and from any set of holders the
 * plan is a fixed point of its own claims: holders that are a part of the plan give the same plan, so replicas that
 * see the claims at different moments agree. The result does not depend on the order of `members`.
 */
export function shardPlan(
  shards: number, members: readonly string[], holders: ReadonlyMap<number, string> = new Map(),
): (string | undefined)[] {
  const plan = new Array<string | undefined>(shards).fill(undefined);
  const live = [...new Set(members)].sort();
  if (live.length === 0) return plan;
  const cap = shardCap(shards, live.length);
  const count = new Map(live.map((m) => [m, 0]));
  const pairs: { shard: number; member: string; score: number }[] = [];
  for (let shard = 0; shard < shards; shard++) for (const member of live) pairs.push({ shard, member, score: score(member, shard) });
  pairs.sort((a, b) => b.score - a.score || (a.member < b.member ? -1 : a.member > b.member ? 1 : a.shard - b.shard));
  const place = (keep: boolean) => {
    for (const p of pairs) {
      if (plan[p.shard] !== undefined || count.get(p.member)! >= cap || (keep && holders.get(p.shard) !== p.member)) continue;
      plan[p.shard] = p.member;
      count.set(p.member, count.get(p.member)! + 1);
    }
  };
  place(true);
  place(false);
  return plan;
}

/** The shards `member` owns among `members` when nobody holds any (a fresh fleet). */
export function ownedShards(member: string, members: readonly string[], shards: number): number[] {
  return shardPlan(shards, members).flatMap((owner, s) => (owner === member ? [s] : []));
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
