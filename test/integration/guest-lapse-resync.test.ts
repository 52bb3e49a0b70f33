// A guest engagement whose writes the shard's fence refused while the shard had lapsed (hosted/shards.ts: a late
// renewal keeps the guests and claims the shard again). The refused write is dropped, not retried; when the shard is
// held again the coordinator makes the session resync. What the HCP source wakes (a poke) does not reach the
// version-bound controllers, which read the guest's own objects: in the 2,010-HCP run 2010i, 16 guests kept the status
// refused in a lapse until their 10-minute resync. Against a real guest API server (upstream CRDs).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { FEATURE_GATE_NAME, type FeatureGate } from '../../api-types/index.js';
import { GuestConnection } from '../../hosted/guest-connection.js';
import { GuestControllers } from '../../hosted/guest-controllers.js';
import { GuestEngagement } from '../../hosted/guest-engagement.js';
import { FeatureGateResource, NotLeaderError, ResourceClient, readKubeconfigFile, silentLogger, type EventRecorder } from '../../runtime/index.js';
import { ReleaseCatalog } from '../../hosted/release-catalog.js';
import { setClusterVersion } from '../../sdk/testing/index.js';
import { kubeconfigPath } from '../support/cluster.js';
import { eventually, sleep } from '../support/timing.js';
import { PAYLOAD_ROOT } from '../support/payloads.js';

describe('a guest engagement after a lapse of its shard', () => {
  const kc = readKubeconfigFile(kubeconfigPath('upstream'))!;
  const featureGates = new ResourceClient<FeatureGate>(kc, FeatureGateResource);
  const held = { now: false };
  const guest = new GuestConnection(readFileSync(kubeconfigPath('upstream'), 'utf8'), 'lapse test guest', 'replica-0', () => {
    if (!held.now) throw new NotLeaderError('not the leader of Lease ns/featuregates-hosted-shard-07: write refused');
  }, () => undefined, {}, 'config-operator', undefined, silentLogger);
  const listeners = new Set<(name: string) => void>();
  const requested = {
    spec: () => ({}),
    addListener: (fn: (name: string) => void) => {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
  const events: EventRecorder = { event: () => undefined, flush: async () => undefined };
  let engagement: GuestEngagement | undefined;
  const controllers = new GuestControllers();
  controllers.start();

  beforeAll(async () => {
    await setClusterVersion(kc, { history: ['4.22.0'] });
    // The guest's FeatureGate with the spec the HCP asks for and no status: only the status controller has to write.
    if (await featureGates.find(FEATURE_GATE_NAME)) await featureGates.delete(FEATURE_GATE_NAME);
    await featureGates.create({ apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', metadata: { name: FEATURE_GATE_NAME }, spec: {} });
  });
  afterAll(async () => {
    await engagement?.stop();
    await controllers.stop();
    await guest.stop();
  });

  it('writes no status while its fence refuses; held again, a poke of the HCP does not write it, a resync does', async () => {
    engagement = new GuestEngagement({
      guest, hcpKey: 'clusters-l/l', controllers, catalog: new ReleaseCatalog(join(PAYLOAD_ROOT, 'releases')), requested, clusterOperatorName: 'config-operator',
      events, logger: silentLogger, recheckAfterMs: 600_000, onReconciled: () => undefined, onStopped: () => undefined,
    });
    const status = async () => (await featureGates.get(FEATURE_GATE_NAME)).status?.featureGates ?? [];
    await guest.whenSynced;
    await eventually(() => expect(engagement!.version()).toBe('4.22.0'));
    await sleep(1_500); // its controllers ran: the status write was refused, and dropped
    expect(await status()).toEqual([]);
    held.now = true; // the shard is held again
    for (const fn of [...listeners]) fn('clusters-l/l'); // what the session's poke() reaches
    await sleep(1_500);
    expect(await status()).toEqual([]); // the spec was right: nothing woke the status controller
    engagement.resync(); // what GuestSession.resync() adds
    await eventually(async () => expect((await status()).map((e) => e.version)).toEqual(['4.22.0']));
  }, 60_000);
});
