// Hollow guests (test/support/hollow-guests.ts) in a process of their own, so that the fleet benchmark measuring
// the coordinator does not count their CPU or memory. Forked with an IPC channel:
//   node hollow-guests-process.js N VERSION     → {type: 'ready', kubeconfigs}  (each guest's ClusterVersion at VERSION)
// then answers the parent's messages:
//   {type: 'count', expected: {featureGates, spec?}, indices?}  → {type: 'count', correct}    guests whose FeatureGate status (and
//                                                                  spec, when given) are exactly these and whose ClusterOperator exists
//   {type: 'history', history: [v, …], indices?}                → {type: 'done'}   every guest's ClusterVersion: that history, Completed
//   {type: 'clear', indices?}                                    → {type: 'done'}   every guest's FeatureGate status emptied
//   {type: 'writes'}                                             → {type: 'writes', total}
import { startHollowGuests } from '../../test/support/hollow-guests.js';

const n = Number(process.argv[2]);
const version = process.argv[3] ?? '4.22.0';
const fleet = await startHollowGuests(n);
const send = (m: unknown) => process.send!(m);

const clusterVersion = (history: string[]) => ({
  metadata: { name: 'version' }, spec: { clusterID: '00000000-0000-4000-8000-000000000000' },
  status: {
    desired: { version: history[0]!, image: `quay.io/openshift-release-dev/ocp-release:${history[0]}` },
    history: history.map((v, i) => ({ version: v, image: `quay.io/openshift-release-dev/ocp-release:${v}`, state: 'Completed', verified: false,
      startedTime: new Date(Date.UTC(2026, 0, 1) - i * 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z'),
      completionTime: new Date(Date.UTC(2026, 0, 1) - i * 3_600_000 + 600_000).toISOString().replace(/\.\d+Z$/, 'Z') })),
    observedGeneration: 1, versionHash: 'hollow', availableUpdates: null,
  },
});
for (const g of fleet.guests) g.put('clusterversions', clusterVersion([version]));
send({ type: 'ready', kubeconfigs: fleet.guests.map((g) => g.kubeconfig()) });

type Message = { type: 'count'; expected: { featureGates: unknown; spec?: unknown }; indices?: number[] } | { type: 'history'; history: string[]; indices?: number[] }
  | { type: 'clear'; indices?: number[] } | { type: 'writes' };
process.on('message', (m: Message) => {
  const chosen = (indices?: number[]) => (indices ? indices.map((i) => fleet.guests[i]!) : fleet.guests);
  switch (m.type) {
    case 'count': {
      // Entries compared by version order (the parent's expectation is sorted the same way).
      const byVersion = (entries: unknown) =>
        JSON.stringify(
          Array.isArray(entries) ? [...(entries as { version: string }[])].sort((a, b) => a.version.localeCompare(b.version)) : entries,
        );
      const want = byVersion(m.expected.featureGates);
      const correct = chosen(m.indices).filter((g) => {
        const fg = g.get('featuregates', 'cluster') as { spec?: unknown; status?: { featureGates?: unknown } } | undefined;
        return (
          fg &&
          byVersion(fg.status?.featureGates) === want &&
          (m.expected.spec === undefined || JSON.stringify(fg.spec) === JSON.stringify(m.expected.spec)) &&
          g.get('clusteroperators', 'config-operator')
        );
      }).length;
      return send({ type: 'count', correct });
    }
    case 'history':
      for (const g of chosen(m.indices)) g.put('clusterversions', clusterVersion(m.history));
      return send({ type: 'done' });
    case 'clear':
      for (const g of chosen(m.indices)) {
        const fg = g.get('featuregates', 'cluster');
        if (fg) g.put('featuregates', { ...fg, status: { featureGates: [] } });
      }
      return send({ type: 'done' });
    case 'writes':
      return send({ type: 'writes', total: fleet.guests.reduce((a, g) => a + [...g.writes.values()].reduce((x, y) => x + y, 0), 0) });
  }
});
process.on('disconnect', () => void fleet.close().then(() => process.exit(0)));
