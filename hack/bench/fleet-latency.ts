// hosted-fleet's latency phase: a ClusterVersion change → status round trip on a guest and on the single-cluster
// baseline, samples interleaved, each beside its API server's own floor (a status PUT by this process until its
// watcher sees it), and the ratios the rows give: p50 and p99 as measured, p50 with both operators' shares over one floor.
import { FEATURE_GATE_NAME, type FeatureGate } from '../../api-types/index.js';
import { FeatureGateResource, ResourceClient, type ClusterAccess } from '../../runtime/index.js';
import { until } from '../../test/support/timing.js';
import type { FeatureGateWatcher } from './fg-watcher.js';
import { median, percentile } from './stats.js';
import { operatorChange, rawWrite } from './status-change.js';

export interface LatencySamples { fleet: number[]; base: number[]; fleetRaw: number[]; baseRaw: number[] }

/** A status PUT by this process until the watcher sees it (rawWrite), then the operator's prune of that entry awaited. */
async function rawThenPruned(kc: ClusterAccess, fgs: ResourceClient<FeatureGate>, watcher: FeatureGateWatcher, i: number): Promise<number> {
  const ms = await rawWrite(kc, fgs, watcher, i);
  await until('the raw entry pruned', async () => (await fgs.get(FEATURE_GATE_NAME)).status?.featureGates.length === 1, 30_000, 20);
  return ms;
}

/** `samples` changes on each side, the guests in turn, each followed by its server's floor. */
export async function interleavedSamples(
  base: { kc: ClusterAccess; fgs: ResourceClient<FeatureGate>; watcher: FeatureGateWatcher },
  guests: readonly { kc: ClusterAccess; watcher?: FeatureGateWatcher }[], samples: number,
): Promise<LatencySamples> {
  const s: LatencySamples = { fleet: [], base: [], fleetRaw: [], baseRaw: [] };
  for (let i = 0; i < samples; i++) {
    s.base.push(await operatorChange(base.kc, base.fgs, base.watcher, i));
    const g = guests[i % guests.length]!;
    const gfgs = new ResourceClient(g.kc, FeatureGateResource);
    s.fleet.push(await operatorChange(g.kc, gfgs, g.watcher!, i));
    s.baseRaw.push(await rawThenPruned(base.kc, base.fgs, base.watcher, i));
    s.fleetRaw.push(await rawThenPruned(g.kc, gfgs, g.watcher!, i));
  }
  return s;
}

/** What to print and the rows: the floors, the operators' shares (p50 change − p50 floor) and the ratios. */
export function latencyReport(s: LatencySamples): { lines: string[]; rows: Record<string, number> } {
  const n = s.fleet.length;
  const shares = [median(s.fleet) - median(s.fleetRaw), median(s.base) - median(s.baseRaw)] as const;
  // The p50 ratio with both shares over one API server's floor (the baseline's: the larger of the two ratios): what
  // separates the coordinator's code from the single-cluster operator's, the guests' slower servers left out.
  const sameFloor = (floor: number) => (floor + shares[0]) / (floor + shares[1]);
  const rows = {
    latencyP50Ratio: median(s.fleet) / median(s.base),
    latencyP50RatioSameFloor: sameFloor(median(s.baseRaw)),
    latencyP99Ratio: percentile(s.fleet, 99) / percentile(s.base, 99),
  };
  return {
    rows,
    lines: [
      `latency floor (the API server's PUT → watch, ${n} each): guests p50 ${median(s.fleetRaw).toFixed(1)} ms, ` +
        `single-cluster p50 ${median(s.baseRaw).toFixed(1)} ms; the operators' share (p50 change − p50 floor): fleet ` +
        `${shares[0].toFixed(1)} ms, single-cluster ${shares[1].toFixed(1)} ms`,
      `latency p50 over the same floor: ${rows.latencyP50RatioSameFloor.toFixed(2)} on the baseline's, ` +
        `${sameFloor(median(s.fleetRaw)).toFixed(2)} on the guests'`,
      `latency (${n} changes): fleet p50 ${median(s.fleet).toFixed(1)} / p99 ${percentile(s.fleet, 99).toFixed(1)} ms; ` +
        `single-cluster operator p50 ${median(s.base).toFixed(1)} / p99 ${percentile(s.base, 99).toFixed(1)} ms ` +
        `(ratio ${rows.latencyP50Ratio.toFixed(2)} / ${rows.latencyP99Ratio.toFixed(2)})`,
    ],
  };
}
