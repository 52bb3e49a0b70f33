// A replica's guests wait for a place before their first listing (hosted/guest-connection.ts FIRST_LISTINGS): a
// replica taking over hundreds of guests at once lists them a few at a time instead of all at once. A guest is its
// tenant's, so one that never answers must not keep its place: it gives it back after FIRST_LISTINGS.holdMs, and the
// guest behind it (here a real kube-apiserver with the upstream CRDs) is listed — long before the silent guest's own
// request times out.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from '@jest/globals';
import { FIRST_LISTINGS, GuestConnection } from '../../hosted/guest-connection.js';
import { BucketLimiter, realClock, silentLogger } from '../../runtime/index.js';
import { FairTurns } from '../../hosted/fair-turns.js';
import { kubeconfigPath } from '../support/cluster.js';
import { startHostileServer, type HostileServer } from '../support/hostile-server.js';

describe('first listings of guests', () => {
  let silent: HostileServer | undefined;
  const guests: GuestConnection[] = [];
  afterAll(async () => {
    await Promise.all(guests.map((g) => g.stop()));
    await silent?.close();
  });

  it('a guest that never answers gives its place back; the next guest is listed well before its request would time out', async () => {
    silent = await startHostileServer({ tls: true, answer: () => undefined /* never answers */ });
    const places = new FairTurns(new BucketLimiter(1000, 1000), realClock, { maxInFlight: 1, holdMs: FIRST_LISTINGS.holdMs });
    const guest = (kubeconfig: string, name: string) => {
      // A minute per request: were the place held until the silent guest's request ends, the good one would wait that long.
      const g = new GuestConnection(kubeconfig, name, 'replica-0', () => undefined, () => undefined, { requestTimeoutMs: 60_000 }, 'config-operator',
        undefined, silentLogger, places);
      guests.push(g);
      return g;
    };
    const started = Date.now();
    const stuck = guest(silent.kubeconfig(), 'silent guest');
    const good = guest(readFileSync(kubeconfigPath('upstream'), 'utf8'), 'good guest');
    await good.whenSynced;
    const waited = Date.now() - started;
    expect(silent.requests.length).toBeGreaterThan(0); // the silent guest had the place first
    expect(stuck.synced()).toBe(false);
    expect(stuck.failing()).toBe(false); // its request is still open: only the hold gave the place back
    expect(waited).toBeGreaterThanOrEqual(FIRST_LISTINGS.holdMs - 50); // and not before (one place)
    expect(waited).toBeLessThan(30_000);
  }, 45_000);
});
