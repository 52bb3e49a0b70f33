// The HCPs of hosted-fleet's fleet by kind — reachable (a real guest kube-apiserver), hollow, unreachable, hostile —:
// one name for each, used where an HCP is published and where it is looked for (which replica holds it).
import { shardName, shardOf } from '../../api-types/index.js';
import type { HostileKind } from '../../test/support/hostile-guests.js';

export type FleetHcpKind = 'real' | 'hollow' | 'unreachable' | 'hostile';

const LETTER: Record<FleetHcpKind, string> = { real: 'g', hollow: 'w', unreachable: 'u', hostile: 'h' };

/** The i-th HCP of a kind: its namespace, its name and its key (`namespace/name`, what its shard is of). */
export function fleetHcp(kind: FleetHcpKind, i: number): { namespace: string; name: string; key: string } {
  const name = `${LETTER[kind]}${i}`;
  return { namespace: `clusters-${name}`, name, key: `clusters-${name}/${name}` };
}

/** How many HCPs of each kind the fleet has, and the kind of each hostile one (in the order they were published). */
export interface FleetCounts { real: number; hollow: number; unreachable: number; hostile: readonly HostileKind[] }

/**
 * What each replica holds through the shard Leases (`holders`: Lease name → holder): its shards, its guests by kind
 * and the kinds of its hostile ones — replicas idle unequally by what they hold.
 */
export function heldByReplica(
  holders: ReadonlyMap<string, string | undefined>, replicaIds: readonly string[], shards: number, fleet: FleetCounts,
): string {
  const holderOf = (kind: FleetHcpKind, i: number) => holders.get(shardName(shardOf(fleetHcp(kind, i).key, shards)));
  const held = (kind: FleetHcpKind, n: number, id: string) => [...Array(n).keys()].filter((i) => holderOf(kind, i) === id).length;
  return replicaIds.map((id) => {
    const owned = [...Array(shards).keys()].filter((s) => holders.get(shardName(s)) === id).length;
    const kinds = fleet.hostile.filter((_, i) => holderOf('hostile', i) === id);
    return `${id} ${owned} shards, ${held('hollow', fleet.hollow, id)} hollow + ${held('real', fleet.real, id)} real guests + ` +
      `${held('unreachable', fleet.unreachable, id)} unreachable, hostile: ${kinds.join(', ') || 'none'}`;
  }).join('; ');
}
