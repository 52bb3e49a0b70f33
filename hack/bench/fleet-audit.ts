// What hosted-fleet reads from the guests' audit logs: the writes of a window by client, per sample, and every
// successful guest write by a replica that did not hold the guest's shard at the time (the fence's promise).
import { shardName, shardOf } from '../../api-types/index.js';
import { readAuditWrites } from '../../test/support/audit.js';
import type { leaseTimeline } from './lease-timeline.js';

/** The writes in [from, to] by clients whose User-Agent matches `who` (Events left out), per sample: "verb resource code n". */
export function writesPerSample(paths: string[], who: RegExp, window: { from: number; to: number }, samples: number): string {
  const counts = new Map<string, number>();
  for (const p of paths) {
    for (const w of readAuditWrites(p)) {
      if (w.received < window.from || w.received > window.to || !who.test(w.userAgent) || w.resource === 'events') continue;
      const what = `${w.verb} ${w.resource}${w.subresource ? `/${w.subresource}` : ''} ${w.code}`;
      counts.set(what, (counts.get(what) ?? 0) + 1);
    }
  }
  return [...counts].sort().map(([w, n]) => `${w} ${(n / samples).toFixed(2)}`).join(', ') || 'none';
}

/**
 * Every successful FeatureGate / ClusterOperator write to these guests names its replica (User-Agent `replica/<id>`):
 * the writes, and those whose replica did not hold the guest's shard — the Lease samples just before and just after
 * the write both name another holder.
 */
export function nonHolderWrites(
  guests: readonly { key: string; audit: string }[], timeline: ReturnType<typeof leaseTimeline>, shards: number,
): { writes: number; violations: string[] } {
  let writes = 0;
  const violations: string[] = [];
  for (const g of guests) {
    const lease = shardName(shardOf(g.key, shards));
    for (const w of readAuditWrites(g.audit)) {
      const id = /replica\/(\S+)/.exec(w.userAgent)?.[1];
      if (!id || w.code >= 300 || !['featuregates', 'clusteroperators'].includes(w.resource)) continue;
      writes++;
      const before = timeline.holderAt(lease, w.received);
      const after = timeline.holderAfter(lease, w.completed);
      if (before !== undefined && after !== undefined && before !== id && after !== id) violations.push(`${g.key}: ${w.verb} ${w.resource} by ${id} while ${before} held ${lease}`);
    }
  }
  return { writes, violations };
}
