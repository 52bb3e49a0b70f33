// Chaos: 100 status changes (stale entries injected one at a time, each pruned by the operator). The
// operator records one FeatureGateUpdate per write, correlated as client-go's recorder does: at most 25
// Event requests (creates and count patches) for the lot; the rest dropped by the spam filter.
import { EventResource, ResourceClient } from '../../runtime/index.js';
import { Figures, converged, injectStaleEntry, onChaosCluster, scrape, sleep, until, type ScenarioResult } from './lib.js';

export async function eventSpam(o: { changes: number }): Promise<ScenarioResult> {
  const f = new Figures();
  return onChaosCluster({}, async ({ kc, operator }) => {
    const op = operator();
    await until('first status', () => converged(kc), 60_000);
    const writes0 = await scrape(op, 'featuregates_status_writes_total');
    for (let i = 1; i <= o.changes; i++) {
      await until('stale entry written', () => injectStaleEntry(kc, `4.20.${i}`), 10_000, 10);
      await until('pruned', () => converged(kc), 10_000, 10);
    }
    await sleep(2000);
    const writes = (await scrape(op, 'featuregates_status_writes_total')) - writes0;
    const requests = await scrape(op, 'rest_client_requests_total', { resource: 'events' });
    const list = await new ResourceClient(kc, EventResource, undefined, { namespace: 'default' }).list();
    const updates = list.items.filter((e) => e.reason === 'FeatureGateUpdate');
    f.add('status writes by the operator', writes, `${o.changes}`, writes >= o.changes);
    f.add('Event requests (creates + count patches), all reasons', requests, '≤ 25', requests <= 25);
    f.add('FeatureGateUpdate Event objects / summed count', `${updates.length} / ${updates.reduce((a, e) => a + (e.count ?? 1), 0)}`, '1 object, count ≤ 25', updates.length === 1);
    return { name: 'event spam filter and aggregation', figures: f.list };
  });
}
