// createFeatureGateAccess against a real control plane (no operator running: the test writes status).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { createFeatureGateAccess, type FeatureGateChange } from '../../sdk/index.js';
import {
  bundledCRDPaths, setClusterVersion, setFeatureGateStatus, startControlPlane, type ControlPlane,
} from '../../sdk/testing/index.js';
import { FeatureGateResource, ResourceClient } from '../../runtime/index.js';
import { eventually, sleep } from '../support/timing.js';

describe('FeatureGateAccess', () => {
  let plane: ControlPlane;
  const stops: (() => Promise<void>)[] = [];
  const warnings: string[] = [];
  const access = (desiredVersion: string, onChange: (c: FeatureGateChange) => void = () => undefined, metricsRegistry?: Registry) => {
    const a = createFeatureGateAccess({
      kubeConfig: plane.kubeConfig,
      desiredVersion,
      onChange,
      ...(metricsRegistry ? { metricsRegistry } : {}),
      reflector: { backoffInitialMs: 100, backoffMaxMs: 1000 },
      waitWarnings: { firstMs: 400, maxMs: 400, warn: (m) => warnings.push(`${desiredVersion}: ${m}`) },
    });
    stops.push(() => a.stop());
    a.start();
    return a;
  };

  beforeAll(async () => { plane = await startControlPlane({ crdPaths: bundledCRDPaths() }); }, 120_000);
  afterAll(async () => {
    await Promise.all(stops.map((s) => s()));
    await plane?.stop();
  });

  it('refuses an empty desired version at construction', () => {
    expect(() => createFeatureGateAccess({ kubeConfig: plane.kubeConfig, desiredVersion: '' })).toThrow(/desiredVersion is empty/);
  });

  it('waits for missing objects, then until the version entry appears, warning what it waits for', async () => {
    const a = access('4.22.1');
    await expect(a.waitForInitial({ timeoutMs: 300 })).rejects.toThrow('timed out waiting for FeatureGate detection');
    expect(() => a.current()).toThrow('featureGates not yet observed');
    await setClusterVersion(plane.kubeConfig, { history: ['4.21.0'] });
    await setFeatureGateStatus(plane.kubeConfig, [{ version: '4.21.0', enabled: ['Old'], disabled: [] }]);
    // The timeout says what is still missing.
    await expect(a.waitForInitial({ timeoutMs: 1_000 })).rejects.toThrow(
      'timed out waiting for FeatureGate detection: missing desired version "4.22.1" in featuregates.config.openshift.io/cluster');
    await eventually(() => expect(warnings.filter((w) => w.startsWith('4.22.1: '))).toContainEqual(
      expect.stringMatching(/^4\.22\.1: still waiting for FeatureGate detection after [\d.]+s: missing desired version "4\.22\.1" in featuregates/)));
    const waiting = a.waitForInitial({ timeoutMs: 10_000 });
    await setFeatureGateStatus(plane.kubeConfig, [{ version: '4.22.1', enabled: ['A', 'B'], disabled: ['C'] }, { version: '4.21.0', enabled: ['Old'], disabled: [] }]);
    const gates = await waiting;
    const warned = warnings.filter((w) => w.startsWith('4.22.1: ')).length;
    await sleep(1_000);
    expect(warnings.filter((w) => w.startsWith('4.22.1: ')).length).toBe(warned); // observed: no more warnings
    expect(gates.enabledNames).toEqual(['A', 'B']);
    expect(a.isReady()).toBe(true);
    expect(a.current().enabled('C')).toBe(false);
  }, 30_000);

  it('ends the wait on abort with the abort reason', async () => {
    const a = access('9.9.9');
    const ac = new AbortController();
    const p = a.waitForInitial({ signal: ac.signal });
    setTimeout(() => ac.abort(new Error('shutting down')), 100);
    await expect(p).rejects.toThrow('shutting down');
  });

  it('follows ClusterVersion in marker mode: desired version, else history[0]', async () => {
    const seen: string[][] = [];
    const a = access('0.0.1-snapshot', ({ current }) => { seen.push([...current.enabledNames]); });
    expect((await a.waitForInitial({ timeoutMs: 10_000 })).enabledNames).toEqual(['Old']); // desired = history[0] = 4.21.0
    await setClusterVersion(plane.kubeConfig, { desired: '4.22.1', history: ['4.21.0'] });
    await eventually(() => expect(seen).toEqual([['Old'], ['A', 'B']]));
  }, 30_000);

  it('calls onChange once at first, then only when its own entry changes', async () => {
    const changes: FeatureGateChange[] = [];
    const a = access('4.22.1', (c) => { changes.push(c); expect(a.current()).toBe(c.current); });
    await a.waitForInitial({ timeoutMs: 10_000 });
    expect(changes).toHaveLength(1);
    expect(changes[0]!.previous).toBeUndefined();
    const fgs = new ResourceClient(plane.kubeConfig, FeatureGateResource);
    // another version's entry, conditions, a ClusterVersion heartbeat, a reordering: no call
    await setFeatureGateStatus(plane.kubeConfig, [{ version: '4.22.1', enabled: ['A', 'B'], disabled: ['C'] }, { version: '4.21.0', enabled: ['Old', 'New'], disabled: [] }]);
    const fg = await fgs.get('cluster');
    await fgs.replaceStatus({ ...fg, status: { ...fg.status!, conditions: [{ type: 'DeterminationDegraded', status: 'False', reason: 'AsExpected', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }] } });
    await setClusterVersion(plane.kubeConfig, { desired: '4.22.1', history: ['4.21.0'], extraStatus: { versionHash: 'beat' } });
    await setFeatureGateStatus(plane.kubeConfig, [{ version: '4.22.1', enabled: ['B', 'A'], disabled: ['C'] }, { version: '4.21.0', enabled: ['Old', 'New'], disabled: [] }]);
    await sleep(1000);
    expect(changes).toHaveLength(1);
    await setFeatureGateStatus(plane.kubeConfig, [{ version: '4.22.1', enabled: ['A'], disabled: ['B', 'C'] }, { version: '4.21.0', enabled: ['Old', 'New'], disabled: [] }]);
    await eventually(() => expect(changes).toHaveLength(2));
    expect(changes[1]!.previous?.enabledNames).toEqual(['A', 'B']);
    expect(changes[1]!.current.enabledNames).toEqual(['A']);
  }, 30_000);

  it('100 accessors all observe a change, and in steady state send no requests besides their watches', async () => {
    await setClusterVersion(plane.kubeConfig, { history: ['4.22.1'] });
    await setFeatureGateStatus(plane.kubeConfig, [{ version: '4.22.1', enabled: ['A'], disabled: ['B', 'C'] }]);
    const metrics = new Registry();
    const observed = new Set<number>();
    const accessors = Array.from({ length: 100 }, (_, i) => access('4.22.1', ({ previous, current }) => {
      if (previous && current.enabledNames.includes('Hundred')) observed.add(i);
    }, metrics));
    await Promise.all(accessors.map((a) => a.waitForInitial({ timeoutMs: 30_000 })));
    const counts = async () => {
      const m = await metrics.getSingleMetric('rest_client_requests_total')!.get();
      const by: Record<string, number> = {};
      for (const v of m.values) by[String(v.labels.method)] = (by[String(v.labels.method)] ?? 0) + v.value;
      return by;
    };
    // every accessor opens two watches (FeatureGate, ClusterVersion) after its first list
    await eventually(async () => expect((await counts()).WATCH).toBe(200), 20_000);
    const before = await counts();
    await sleep(5000);
    const after = await counts();
    expect(after).toEqual(before); // nothing but the already open watches
    expect(before).toEqual({ LIST: 200, WATCH: 200 });
    await setFeatureGateStatus(plane.kubeConfig, [{ version: '4.22.1', enabled: ['A', 'Hundred'], disabled: ['B', 'C'] }]);
    await eventually(() => expect(observed.size).toBe(100), 20_000);
    const final = await counts();
    expect(Object.keys(final).sort()).toEqual(['LIST', 'WATCH']);
  }, 90_000);

  it('survives a kube-apiserver restart without a spurious change', async () => {
    const changes: FeatureGateChange[] = [];
    const a = access('4.22.1', (c) => changes.push(c));
    await a.waitForInitial({ timeoutMs: 10_000 });
    await plane.restartAPIServer();
    await sleep(3000);
    expect(changes).toHaveLength(1);
    await setFeatureGateStatus(plane.kubeConfig, [{ version: '4.22.1', enabled: ['After'], disabled: [] }]);
    await eventually(() => expect(changes.map((c) => c.current.enabledNames[0])).toEqual(['A', 'After']), 30_000);
  }, 90_000);
});
