// The hosted status records (hosted/status-records.ts) write through a controller, on a fake clock: the changes of a
// second make one write per shard, a failed write is retried with the controller's backoff (not on a timer of its
// own), and a write the shard's fence refuses is dropped, never retried. The server is a small one whose answers are
// the subject (a write that fails once); the records' own behaviour against the real API server is in hosted.test.ts.
import { afterEach, describe, expect, it } from '@jest/globals';
import { HeldShard } from '../../hosted/held-shard.js';
import { StatusRecords } from '../../hosted/status-records.js';
import { NotLeaderError, readKubeconfigText } from '../../runtime/index.js';
import { FakeClock } from '../support/fake-clock.js';
import { startHostileServer, status, type HostileServer } from '../support/hostile-server.js';
import { eventually } from '../support/timing.js';

const servers: HostileServer[] = [];
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  for (const s of servers.splice(0)) await s.close();
});

/** A management API for ConfigMaps in one namespace: GET answers 404 until one is created; POSTs fail while `failing` > 0. */
async function management(failing: number) {
  const s = await startHostileServer();
  servers.push(s);
  const stored = new Map<string, unknown>();
  let left = failing;
  s.answer = (req, res, seen) => {
    const name = decodeURIComponent((req.url ?? '').split('?')[0]!.split('/').pop()!);
    if (req.method === 'GET') {
      if (!stored.has(name)) return status(res, 404, `configmaps "${name}" not found`);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return res.end(JSON.stringify(stored.get(name)));
    }
    if (left > 0) {
      left--;
      return status(res, 500, 'etcdserver: request timed out');
    }
    const created = JSON.parse(seen.body) as { metadata: { name: string } };
    stored.set(created.metadata.name, created);
    res.writeHead(201, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(created));
  };
  return { server: s, stored, writes: () => s.requests.filter((q) => q.method !== 'GET').length };
}

/** The writer of shard 3's record, the shard held with `fence`. */
function records(s: HostileServer, clock: FakeClock, fence: () => void): { r: StatusRecords; held: HeldShard } {
  const held = new HeldShard(3, fence);
  const r = new StatusRecords(readKubeconfigText(s.kubeconfig(), 'status records test')!, 'fgc', (shard) => (shard === 3 ? held : undefined), undefined, clock);
  stops.push(() => r.stop());
  return { r, held };
}

const record = (n: number) => ({ hcp: `clusters/hcp-${n}`, shard: 3, owner: 'replica-0', featureSet: 'Default', versions: ['4.22.1'] });

describe('StatusRecords', () => {
  it('the changes of a second are one write per shard; a failed write is retried with backoff on the clock', async () => {
    const m = await management(1);
    const clock = new FakeClock();
    const { r, held } = records(m.server, clock, () => undefined);
    r.changed(3); // acquired
    for (let i = 0; i < 5; i++) {
      held.putRecord(record(i));
      r.changed(3);
    }
    await clock.advance(999);
    expect(m.server.requests).toHaveLength(0);
    await clock.advance(1);
    await eventually(() => expect(m.writes()).toBe(1), 5_000, 10); // the failing one
    // wall time (the records' own 1 s retry timer before): no retry without the clock
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(m.writes()).toBe(1);
    await clock.advance(5); // the controller's first backoff step
    await eventually(() => expect(m.writes()).toBe(2), 5_000, 10);
    const cm = m.stored.get('featuregates-hosted-shard-03') as { data: Record<string, string> };
    expect(Object.keys(cm.data).sort()).toEqual([0, 1, 2, 3, 4].map((i) => `clusters_hcp-${i}`));
  });

  it('a write the shard\'s fence refuses is not sent and not retried', async () => {
    const m = await management(0);
    const clock = new FakeClock();
    const { r, held } = records(m.server, clock, () => { throw new NotLeaderError('shard 3 is no longer held'); });
    held.putRecord(record(1));
    r.changed(3);
    await clock.advance(1_000);
    await eventually(() => expect(m.server.requests.map((q) => q.method)).toEqual(['GET']), 5_000, 10);
    await clock.advance(600_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(m.writes()).toBe(0);
    expect(m.server.requests).toHaveLength(1);
  });
});
