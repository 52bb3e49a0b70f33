// Events that wait for their turn at a shared WritePacer (a hosted replica's management writes) must not hold up a
// stop. In the 2,010-HCP benchmark a replica's SIGTERM took 59–70 s: each of its ~670 stopping sessions waited for
// its queued Events to be sent at the replica's 20 writes a second. close() sends nothing more that has not started,
// says how many Events it did not send, and resolves once the send in flight is done. Against the real API server;
// the pacer runs on a fake clock that the test never advances, so a stop that waits for the pace never resolves.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CoreEvent } from '../../api-types/index.js';
import { EventResource, ResourceClient, createEventRecorder, createLogger, loadKubeConfig, type ClusterAccess } from '../../runtime/index.js';
import { WritePacer } from '../../hosted/write-pacer.js';
import { ensureNamespace } from '../../sdk/testing/index.js';
import { kubeconfigPath } from '../support/cluster.js';
import { eventually } from '../support/timing.js';
import { FakeClock } from '../support/fake-clock.js';

const NS = 'paced-events';
let kc: ClusterAccess;
let stored: ResourceClient<CoreEvent>;

beforeAll(async () => {
  kc = await loadKubeConfig(kubeconfigPath());
  await ensureNamespace(kc, NS);
  stored = new ResourceClient(kc, EventResource, undefined, { namespace: NS });
});
afterAll(() => stored.transport.close());

describe('an event recorder behind a WritePacer', () => {
  it('close() does not wait for the pace: the Events still waiting for their turn are dropped and counted', async () => {
    const clock = new FakeClock();
    const pacer = new WritePacer({ perSecond: 1, burst: 2, maxInFlight: 1 }, clock);
    const lines: string[] = [];
    const events = createEventRecorder(kc, { namespace: NS, component: 'test', pacer, logger: createLogger({ write: (l) => lines.push(l) }) });
    for (let i = 0; i < 10; i++) events.event({ apiVersion: 'v1', kind: 'ConfigMap', name: `cm-${i}`, namespace: NS }, 'Normal', `Reason${i}`, `event ${i}`);
    // The burst's two are sent; the third waits for a token the fake clock never brings.
    await eventually(async () => expect((await stored.list()).items).toHaveLength(2));
    await eventually(() => expect(clock.pending).toBe(1));

    await events.close();

    expect((await stored.list()).items.map((e) => e.reason).sort()).toEqual(['Reason0', 'Reason1']);
    const log = lines.map((l) => JSON.parse(l) as { msg: string; notSent?: number });
    expect(log.find((l) => l.msg.startsWith('stopping: Events not sent'))?.notSent).toBe(8);
    // Closed: nothing more is taken.
    events.event({ apiVersion: 'v1', kind: 'ConfigMap', name: 'late', namespace: NS }, 'Normal', 'Late', 'late');
    await events.flush();
    await clock.advance(60_000);
    expect((await stored.list()).items).toHaveLength(2);
  });

  it('flush() still sends every queued Event at the pace', async () => {
    const clock = new FakeClock();
    const pacer = new WritePacer({ perSecond: 1, burst: 1, maxInFlight: 1 }, clock);
    const events = createEventRecorder(kc, { namespace: NS, component: 'test', pacer });
    const before = (await stored.list()).items.length;
    for (let i = 0; i < 3; i++) events.event({ apiVersion: 'v1', kind: 'ConfigMap', name: `f-${i}`, namespace: NS }, 'Normal', `Flush${i}`, `flush ${i}`);
    let flushed = false;
    void events.flush().then(() => { flushed = true; });
    // Each look moves the pace on by a second: the sends waiting for a token get it, one after another.
    await eventually(async () => {
      await clock.advance(1_000);
      expect(flushed).toBe(true);
    });
    expect((await stored.list()).items.length - before).toBe(3);
  });
});
