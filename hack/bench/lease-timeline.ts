// The holders of a namespace's Leases over time, sampled every 100 ms: who held a shard when a write landed (the
// hosted-fleet benchmark's audit check of writes by a replica not holding the shard).
import { LeaseResource, ResourceClient, type ClusterAccess, type Lease } from '../../runtime/index.js';
import { sleep } from '../../test/support/timing.js';

/** Lease holders in `namespace`, sampled every 100 ms until stop(). */
export function leaseTimeline(mkc: ClusterAccess, namespace: string) {
  const samples: { at: number; holders: Map<string, string> }[] = [];
  const leases = new ResourceClient<Lease>(mkc, LeaseResource, undefined, { namespace });
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        const { items } = await leases.list();
        samples.push({ at: Date.now(), holders: new Map(items.map((l) => [l.metadata.name, l.spec?.holderIdentity ?? ''])) });
      } catch { /* the API server is busy; next sample */ }
      await sleep(100);
    }
  })();
  return {
    samples,
    holderAt: (lease: string, t: number) => [...samples].reverse().find((s) => s.at <= t)?.holders.get(lease),
    holderAfter: (lease: string, t: number) => samples.find((s) => s.at >= t)?.holders.get(lease),
    /** When, from `t` on, `lease` was first seen held by someone other than `from` (undefined: not yet). */
    takenFrom: (lease: string, from: string, t: number) => samples.find((s) => s.at >= t && ![undefined, '', from].includes(s.holders.get(lease)))?.at,
    async stop() { running = false; await loop; },
  };
}
