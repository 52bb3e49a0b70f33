// Chaos: many concurrent writers of FeatureGate spec and ClusterVersion history (read-modify-write with
// conflict retry, as other controllers and admins do) while the operator keeps status. At the end the
// status must be exactly what the final spec and history call for, with few conflicts on the operator's side.
import { FEATURE_GATE_NAME, type ClusterVersion, type FeatureGate } from '../../api-types/index.js';
import { ClusterVersionResource, FeatureGateResource, ResourceClient, retryOnConflict } from '../../runtime/index.js';
import { historyEntry, setClusterVersion } from '../../sdk/testing/index.js';
import { Figures, OPERATOR_VERSION, converged, onChaosCluster, putConflicts, secs, sleep, until, type ScenarioResult } from './lib.js';

export async function concurrentWriters(o: { writers: number; writesEach: number }): Promise<ScenarioResult> {
  const f = new Figures();
  return onChaosCluster({ history: [OPERATOR_VERSION, '4.21.9'] }, async ({ kc, operator }) => {
    const op = operator();
    await until('first status', () => converged(kc), 60_000);
    const fgs = new ResourceClient(kc, FeatureGateResource, undefined, { timeoutMs: 30_000 });
    const cvs = new ResourceClient(kc, ClusterVersionResource, undefined, { timeoutMs: 30_000 });
    const conflicts0 = await putConflicts(op);
    const t0 = performance.now();
    let clientConflicts = 0;
    let succeeded = 0;
    // Read-modify-write with client-go's RetryOnConflict manners: a short jittered pause between tries.
    const counted = async (fn: () => Promise<unknown>): Promise<void> => {
      await retryOnConflict(fn, { attempts: 502, pauseMs: () => Math.random() * 20, onConflict: () => { clientConflicts++; } });
      succeeded++;
    };
    await Promise.all(Array.from({ length: o.writers }, async (_, w) => {
      for (let i = 0; i < o.writesEach; i++) {
        const kind = w % 3;
        if (kind === 0) {
          // spec writers: metadata and spec rewrites that keep the Default feature set
          await counted(async () => {
            const fg: FeatureGate = await fgs.get(FEATURE_GATE_NAME);
            return fgs.replace({ ...fg, metadata: { ...fg.metadata, annotations: { ...fg.metadata.annotations, [`writer-${w}`]: String(i) } }, spec: { featureSet: '' } });
          });
        } else if (kind === 1) {
          // history writers: ClusterVersion status changes
          await counted(async () => {
            const cv: ClusterVersion = await cvs.get('version');
            return cvs.replaceStatus({ ...cv, status: { ...cv.status!, history: [historyEntry(OPERATOR_VERSION), historyEntry(`4.21.${w}`)], observedGeneration: i } });
          });
        } else {
          // a second status writer: stale entries the operator must prune
          await counted(async () => {
            const fg: FeatureGate = await fgs.get(FEATURE_GATE_NAME);
            return fgs.replaceStatus({ ...fg, status: { ...(fg.status ?? {}), featureGates: [...(fg.status?.featureGates ?? []), { version: `4.20.${w}.${i}`, enabled: [], disabled: [] }] } });
          });
        }
      }
    }));
    const writing = performance.now() - t0;
    // Final state: history [4.22.1, 4.21.<last odd writer>]; status must hold only 4.22.1 (no entry existed for 4.21.x).
    await setClusterVersion(kc, { history: [OPERATOR_VERSION] });
    const settle = await until('status correct after the writers', () => converged(kc), 30_000).catch(() => Infinity);
    await sleep(1000);
    const conflicts = (await putConflicts(op)) - conflicts0;
    const total = o.writers * o.writesEach;
    f.add(`${o.writers} concurrent writers × ${o.writesEach} writes`, `${succeeded} of ${total} in ${secs(writing)} (${clientConflicts} writer-side 409s retried)`, 'all succeed', succeeded === total);
    f.add('status correct afterwards', Number.isFinite(settle) ? `yes, ${secs(settle)}` : 'no', 'yes', Number.isFinite(settle));
    // The controller's token bucket allows 100 at once, then 10 per second: more would be a retry storm.
    const bound = Math.round(100 + 10 * (writing / 1000));
    f.add('operator PUT conflicts (409) during the storm', `${conflicts} in ${secs(writing)}`, `≤ ${bound} (bucket: 100 + 10/s)`, conflicts <= bound);
    f.add('operator exits', op.exited() ? 1 : 0, '0', !op.exited());
    return { name: 'concurrent spec and history writers', figures: f.list };
  });
}
