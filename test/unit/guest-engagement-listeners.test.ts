// A guest engagement over a guest's caches, without an API server: what it subscribes to, and its timing on a fake
// clock. An engagement is made again each time the HCP's kubeconfig Secret changes — text a tenant controls — so
// whatever it subscribes to on longer-lived sources (the session's HCP spec source, the guest's reflectors) must be let
// go when it stops, or a tenant rotating its Secret keeps every old engagement (and its guest caches) alive; and a
// guest whose ClusterVersion keeps changing is followed at a bounded pace (GUEST_REBINDS).
import { describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { GUEST_REBINDS, GuestEngagement, type EngagedGuest, type GuestEngagementDeps } from '../../hosted/guest-engagement.js';
import { GuestControllers } from '../../hosted/guest-controllers.js';
import { ClusterOperatorResource, FeatureGateResource, ResourceClient, loadRegistry, readKubeconfigText, silentLogger, type EventRecorder } from '../../runtime/index.js';
import type { ClusterVersion } from '../../api-types/index.js';
import { UNREACHABLE_GUEST_KUBECONFIG } from '../../sdk/testing/hosted-fleet.js';
import { FakeClock } from '../support/fake-clock.js';
import { clusterVersion, historyEntry } from '../support/objects.js';
import { PAYLOAD_ROOT } from '../support/payloads.js';

/** A watch source that counts its listeners and holds the objects `get` answers. */
function source<T>(objects: Record<string, T> = {}) {
  const listeners = new Set<(name: string) => void>();
  return {
    listeners, objects, get: (name: string) => objects[name],
    addListener: (fn: (name: string) => void) => { listeners.add(fn); return () => listeners.delete(fn); },
    changed: (name: string) => { for (const fn of [...listeners]) fn(name); },
  };
}

/** A guest that never answers a request (no test here writes to it): its caches are the sources above. */
function guest(synced: Promise<void>) {
  const access = readKubeconfigText(UNREACHABLE_GUEST_KUBECONFIG, 'unit test guest')!;
  return {
    featureGates: source(), clusterVersions: source<ClusterVersion>(), clusterOperators: source(), whenSynced: synced, access,
    featureGate: new ResourceClient(access, FeatureGateResource), clusterOperator: new ResourceClient(access, ClusterOperatorResource),
  } satisfies EngagedGuest;
}

const events: EventRecorder = { event: () => undefined, flush: async () => undefined };
const registry = loadRegistry(join(PAYLOAD_ROOT, 'releases', 'release-4.22'), { operatorVersion: '4.22.1' });
const catalog = { registry: () => registry };

/** An engagement of `g`, its HCP asking nothing, with `more` for what a test sets (a fake clock, the replica's controllers…). */
function engage(g: ReturnType<typeof guest>, more: Partial<GuestEngagementDeps> = {}): GuestEngagement {
  const controllers = more.controllers ?? new GuestControllers(more.clock ? { clock: more.clock } : {});
  controllers.start();
  return new GuestEngagement({
    guest: g, hcpKey: 'clusters-a/a', controllers, catalog, requested: { ...source(), spec: () => undefined }, clusterOperatorName: 'config-operator',
    events, logger: silentLogger, recheckAfterMs: 600_000, onReconciled: () => undefined, onStopped: () => undefined, ...more,
  });
}

describe('GuestEngagement', () => {
  it('lets go of every source it listened to when it stops (100 re-engagements leave no listener behind)', async () => {
    const requested = { ...source(), spec: () => undefined };
    const g = guest(new Promise<void>(() => undefined));
    for (let i = 0; i < 100; i++) {
      await engage(g, { requested, recheckAfterMs: 60_000 }).stop();
    }
    expect(requested.listeners.size).toBe(0);
    for (const r of [g.featureGates, g.clusterVersions, g.clusterOperators]) expect(r.listeners.size).toBe(0);
  });

  // multicluster-runtime's shape: a guest is a cluster engaged on the replica's one controller of each kind (8 per guest,
  // ~5,400 queues in a replica of 670 guests, before). Re-engaging a guest (a tenant rotating its Secret) leaves nothing.
  it('engages 100 guests on the replica\'s one controller per kind; stopped, they leave nothing in its queues', async () => {
    const clock = new FakeClock();
    const controllers = new GuestControllers({ clock });
    const guests = Array.from({ length: 100 }, () => guest(Promise.resolve()));
    const engagements = guests.map((g, i) => {
      g.clusterVersions.objects.version = clusterVersion('version', [historyEntry('4.22.0')]);
      return engage(g, { clock, controllers, hcpKey: `clusters-${i}/hcp` });
    });
    await clock.advance(0);
    expect(engagements.every((e) => e.version() === '4.22.0')).toBe(true);
    expect(controllers.of('GuestVersionController').queue.clusters).toBe(100);
    for (const g of guests) {
      g.clusterVersions.objects.version = clusterVersion('version', [historyEntry('4.22.1'), historyEntry('4.22.0')]);
      g.clusterVersions.changed('version');
    }
    await clock.advance(0);
    expect(engagements.every((e) => e.version() === '4.22.1')).toBe(true);
    await Promise.all(engagements.map((e) => e.stop()));
    expect(controllers.clustersHeld()).toBe(0);
    for (const g of guests) for (const r of [g.featureGates, g.clusterVersions, g.clusterOperators]) expect(r.listeners.size).toBe(0);
    await controllers.stop();
  });

  it('an honest guest upgraded every 20 s is bound to each version at once, however many upgrades (hostile-tenants chaos: it waited ~20 s at one per 30 s)', async () => {
    const clock = new FakeClock();
    const g = guest(Promise.resolve());
    g.clusterVersions.objects.version = clusterVersion('version', [historyEntry('4.22.0')]);
    const e = engage(g, { clock });
    try {
      await clock.advance(0);
      const history = ['4.22.0'];
      for (let z = 1; z <= 8; z++) {
        await clock.advance(20_000);
        history.unshift(`4.22.${z}`);
        g.clusterVersions.objects.version = clusterVersion('version', history.map((v) => historyEntry(v)));
        g.clusterVersions.changed('version');
        await clock.advance(0);
        expect(e.version()).toBe(`4.22.${z}`);
      }
    } finally {
      await e.stop();
    }
  });

  it('follows a guest whose version keeps changing at GUEST_REBINDS\' pace, on its clock: three at once, then one per rebind period', async () => {
    const clock = new FakeClock();
    const g = guest(Promise.resolve());
    const setVersion = async (v: string) => {
      g.clusterVersions.objects.version = clusterVersion('version', [historyEntry(v)]);
      g.clusterVersions.changed('version');
      await clock.advance(0);
    };
    g.clusterVersions.objects.version = clusterVersion('version', [historyEntry('4.22.0')]);
    const e = engage(g, { clock });
    try {
      await clock.advance(0);
      expect(e.version()).toBe('4.22.0'); // the first bind: one token of three
      await setVersion('4.22.1');
      await setVersion('4.22.2');
      expect(e.version()).toBe('4.22.2'); // the burst is spent
      await setVersion('4.22.3');
      expect(e.version()).toBe('4.22.2');
      await clock.advance(1_000 / GUEST_REBINDS.perSecond - 1);
      expect(e.version()).toBe('4.22.2');
      await clock.advance(1);
      expect(e.version()).toBe('4.22.3');
    } finally {
      await e.stop();
    }
  });
});
