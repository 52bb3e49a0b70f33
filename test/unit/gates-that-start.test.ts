// GatesThatStartController's reconciler over an in-memory cache: its verdict, and what it costs per FeatureGate event
// (every status write is one) — wired as the manager wires it, the API server's version is read once, not per event
// (a GET per event added a third to the operator's scenario CPU in `npm run bench -- upstream`). And that reader on a
// fake clock: once per period, the last answer kept when a read fails, a failed read tried again sooner.
import { describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import type { FeatureGate } from '../../api-types/index.js';
import { loadRegistry, readAtMostEvery, type EventRecorder } from '../../runtime/index.js';
import { gatesThatStartReconciler } from '../../controllers/gates-that-start.js';
import { OperatorConditions } from '../../controllers/operator-conditions.js';
import { PAYLOAD_ROOT } from '../support/payloads.js';

describe('GatesThatStartController', () => {
  it('reads the API server\'s version once across many FeatureGate events, and says Degraded only for a refused set', async () => {
    let fg: FeatureGate = { apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', metadata: { name: 'cluster' }, spec: {} };
    const recorded: string[] = [];
    const events: EventRecorder = { event: (_o, _t, reason) => { recorded.push(reason); }, flush: async () => undefined };
    const conditions = new OperatorConditions();
    let reads = 0;
    const reconcile = gatesThatStartReconciler({
      operatorVersion: '4.23.0', registry: loadRegistry(join(PAYLOAD_ROOT, 'releases', 'release-4.23'), { operatorVersion: '4.23.0' }),
      featureGates: { get: () => fg, addListener: () => () => true }, conditions, events,
      kubernetesVersion: readAtMostEvery(async () => { reads++; return '1.36.3'; }, 10 * 60_000),
    });
    for (let i = 0; i < 50; i++) await reconcile();
    expect(reads).toBe(1);
    expect(conditions.all().find((c) => c.type === 'GatesThatStartDegraded')).toMatchObject({ status: 'False' });
    fg = { ...fg, spec: { featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: [], disabled: ['MutableCSINodeAllocatableCount'] } } };
    for (let i = 0; i < 5; i++) await reconcile();
    expect(reads).toBe(1);
    expect(conditions.all().find((c) => c.type === 'GatesThatStartDegraded')).toMatchObject({ status: 'True', reason: 'GatesRefusedByComponents' });
    expect(recorded).toEqual(['FeatureGatesRefusedByComponents']); // once, when the verdict changed
  });

  it('the shared version reader asks once per period, keeps the last answer through failures, retries a failure sooner', async () => {
    let t = 0;
    const answers: (string | undefined)[] = [undefined, '1.35.4', undefined, '1.36.3'];
    let reads = 0;
    const read = readAtMostEvery(async () => answers[reads++], 600_000, { retryMs: 10_000, now: () => t });
    expect(await read()).toBeUndefined(); // not answered: nothing known yet
    t += 5_000;
    expect(await read()).toBeUndefined();
    expect(reads).toBe(1); // within retryMs: not asked again
    t += 5_000;
    expect(await read()).toBe('1.35.4');
    t += 599_999;
    expect(await read()).toBe('1.35.4');
    expect(reads).toBe(2);
    t += 1;
    expect(await read()).toBe('1.35.4'); // a failed read keeps what was known
    expect(reads).toBe(3);
    t += 10_000;
    const [a, b] = await Promise.all([read(), read()]); // concurrent callers share one request
    expect([a, b, reads]).toEqual(['1.36.3', '1.36.3', 4]);
  });
});
