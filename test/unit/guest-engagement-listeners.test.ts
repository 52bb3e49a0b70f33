// A guest engagement is made again each time the HCP's kubeconfig Secret changes — text a tenant controls. Whatever
// an engagement subscribes to on longer-lived sources (the session's HCP spec source, the guest's reflectors) must be
// let go when it stops, or a tenant rotating its Secret keeps every old engagement (and its guest caches) alive.
import { describe, expect, it } from '@jest/globals';
import { GuestEngagement } from '../../hosted/guest-engagement.js';
import type { GuestConnection } from '../../hosted/guest-connection.js';
import { silentLogger, type EventRecorder, type ReleaseCatalog } from '../../runtime/index.js';

/** A watch source that counts its listeners. */
function source() {
  const listeners = new Set<(name: string) => void>();
  return { listeners, get: () => undefined, addListener: (fn: (name: string) => void) => { listeners.add(fn); return () => listeners.delete(fn); } };
}

describe('GuestEngagement', () => {
  it('lets go of every source it listened to when it stops (100 re-engagements leave no listener behind)', async () => {
    const requested = { ...source(), spec: () => undefined };
    const guest = { featureGates: source(), clusterVersions: source(), clusterOperators: source(), whenSynced: new Promise<void>(() => undefined) };
    const events: EventRecorder = { event: () => undefined, flush: async () => undefined };
    for (let i = 0; i < 100; i++) {
      const e = new GuestEngagement({
        guest: guest as unknown as GuestConnection, hcpKey: 'clusters-a/a', catalog: {} as ReleaseCatalog, requested, clusterOperatorName: 'config-operator',
        events, logger: silentLogger, recheckAfterMs: 60_000, onReconciled: () => undefined, onStopped: () => undefined,
      });
      await e.stop();
    }
    expect(requested.listeners.size).toBe(0);
    for (const r of [guest.featureGates, guest.clusterVersions, guest.clusterOperators]) expect(r.listeners.size).toBe(0);
  });
});
