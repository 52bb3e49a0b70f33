// hosted-fleet's wave: every guest's ClusterVersion moves to a new z-version at once (as a fleet-wide upgrade reaches
// the guests), until every guest's status holds both entries; then back (the history rewritten to the old version
// alone), until the new entry is pruned everywhere.
import { FEATURE_GATE_NAME, type FeatureGateDetails } from '../../api-types/index.js';
import { FeatureGateResource, ResourceClient, type ClusterAccess } from '../../runtime/index.js';
import { setClusterVersion } from '../../sdk/testing/index.js';
import { until } from '../../test/support/timing.js';
import type { HollowGuests } from './hollow-guests-client.js';
import { nowMs } from './stats.js';

const byVersion = (entries: readonly FeatureGateDetails[]) =>
  JSON.stringify([...entries].sort((a, b) => a.version.localeCompare(b.version)));

/** The wave to `to` (whose entry is `toEntry`) from `from` and back: the seconds until all were correct, each way. */
export async function wave(
  hollow: HollowGuests, guests: readonly { i: number; kc: ClusterAccess }[],
  from: { version: string; entry: FeatureGateDetails }, to: { version: string; entry: FeatureGateDetails },
): Promise<{ label: string; version: string; allS: number; hollowS: number }[]> {
  const out = [];
  for (const [label, history, entries] of [['to', [to.version, from.version], [to.entry, from.entry]], ['back', [from.version], [from.entry]]] as const) {
    const t0 = nowMs();
    await Promise.all([hollow.ask({ type: 'history', history }), ...guests.map((g) => setClusterVersion(g.kc, { history: [...history] }))]);
    const wanted = byVersion(entries);
    const realDone = Promise.all(guests.map((g) => until(`guest ${g.i} after the wave`, async () => {
      const fg = await new ResourceClient(g.kc, FeatureGateResource).get(FEATURE_GATE_NAME);
      return byVersion(fg.status?.featureGates ?? []) === wanted;
    }, 600_000, 250)));
    // Together: a real guest that times out first must fail this await (and keep the logs), not reject unhandled.
    const [hollowS] = await Promise.all([hollow.allCorrect([...entries], t0, 600), realDone]);
    out.push({ label, version: history[0], allS: (nowMs() - t0) / 1000, hollowS });
  }
  return out;
}
