// The operator's reconcilers over in-memory caches (no API server): what they write, when they retry,
// and what they refuse.
import { describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import type { ClusterOperator, FeatureGate } from '../../api-types/index.js';
import { Registry, loadRegistry, type EventRecorder } from '../../runtime/index.js';
import { serializedSizeBytes } from '../../api-types/index.js';
import { featureGateStatusController, featureGateStatusReconciler } from '../../controllers/feature-gate-status.js';
import { clusterOperatorStatusController, clusterOperatorStatusReconciler } from '../../controllers/cluster-operator-status.js';
import { OperatorConditions } from '../../controllers/operator-conditions.js';
import { clusterVersion, featureGate, historyEntry } from '../support/objects.js';
import { PAYLOAD_ROOT } from '../support/payloads.js';
import { runOnFakeClock } from '../support/controller-run.js';

class Cache<T> {
  constructor(readonly objects: Record<string, T>) {}
  get(name: string): T | undefined { return this.objects[name]; }
  addListener(): () => void { return () => undefined; }
}

const registry = loadRegistry(join(PAYLOAD_ROOT, 'releases', 'release-4.22'), { operatorVersion: '4.22.1' });
const recorded: string[] = [];
const events: EventRecorder = { event: (_o, _t, reason) => { recorded.push(reason); }, flush: async () => undefined };

const deps = (
  fg: FeatureGate,
  replaceStatus: (o: FeatureGate) => Promise<FeatureGate>,
  extra: { sizeLimitBytes?: number; resyncMs?: number } = {},
) => {
  const conditions = new OperatorConditions();
  return {
    conditions,
    deps: {
      release: () => ({ version: '4.22.1', registry }),
      conditions,
      events,
      featureGates: new Cache({ cluster: { ...fg, metadata: { ...fg.metadata, resourceVersion: '7' } } }),
      clusterVersions: new Cache({ version: clusterVersion('version', [historyEntry('4.22.1')]) }),
      client: { replaceStatus },
      ...extra,
    },
  };
};

describe('FeatureGate status reconciler', () => {
  it('writes the current version once, with the cached resourceVersion, and records an event without waiting for it', async () => {
    const written: FeatureGate[] = [];
    const { deps: d } = deps(featureGate('cluster'), async (o) => { written.push(o); return o; });
    const r = await featureGateStatusReconciler(d)('cluster');
    expect(r).toEqual({}); // the resync is the controller's (below)
    expect(written).toHaveLength(1);
    expect(written[0]?.metadata.resourceVersion).toBe('7');
    expect(written[0]?.status?.featureGates.map((e) => e.version)).toEqual(['4.22.1']);
    expect(recorded).toContain('FeatureGateUpdate');
  });

  // Seen in hosted.test.ts under load: an upgrade made two status writes, the second (a 409) from a cache that had not
  // yet heard the first — a second ClusterVersion event woke the controller between its write and the write's echo.
  it('writes nothing from a cache still behind its own last write: the echo wakes it; another writer\'s change does not wait', async () => {
    const written: FeatureGate[] = [];
    const { deps: d } = deps(featureGate('cluster'), async (o) => { written.push(o); return { ...o, metadata: { ...o.metadata, resourceVersion: '8' } }; });
    const reconcile = featureGateStatusReconciler(d);
    await reconcile('cluster');
    await reconcile('cluster'); // woken again before the echo: the cache still holds resourceVersion 7
    expect(written).toHaveLength(1);
    const cache = d.featureGates as unknown as { objects: Record<string, FeatureGate> };
    cache.objects.cluster = { ...featureGate('cluster'), metadata: { name: 'cluster', resourceVersion: '9' } }; // someone else wrote (status gone)
    await reconcile('cluster');
    expect(written).toHaveLength(2);
    expect(written[1]?.metadata.resourceVersion).toBe('9');
  });

  // A hosted replica holds thousands of these; each minute's look left objects that lived a minute (promoted, then
  // collected by major GCs over the whole heap). Its inputs are watched and relisted, so a guest looks every 10 minutes.
  it('looks again after its resync period: a minute by default, what it is given otherwise', async () => {
    const written: FeatureGate[] = [];
    const after = async (spec: ReturnType<typeof featureGateStatusController>, ms: number) => {
      const { controller, clock, times } = await runOnFakeClock(spec);
      await clock.advance(ms - 1);
      expect(times).toEqual([0]);
      await clock.advance(1);
      expect(times).toEqual([0, ms]);
      await controller.stop();
    };
    const { deps: d } = deps(featureGate('cluster'), async (o) => { written.push(o); return o; }, { resyncMs: 600_000 });
    await after(featureGateStatusController(d), 600_000); // after a write
    const settled: FeatureGate = { ...featureGate('cluster'), status: written[0]!.status! };
    const refuse = async (): Promise<FeatureGate> => { throw new Error('nothing to write'); };
    await after(featureGateStatusController(deps(settled, refuse, { resyncMs: 600_000 }).deps), 600_000);
    await after(featureGateStatusController(deps(settled, refuse).deps), 60_000);
  });

  it('reads its release at every sync: none (a hosted guest not accepted yet) writes and says nothing; a new one is resolved anew', async () => {
    const written: FeatureGate[] = [];
    let release: { version: string; registry: typeof registry } | undefined;
    const { deps: d, conditions } = deps(featureGate('cluster'), async (o) => { written.push(o); return o; });
    const reconcile = featureGateStatusReconciler({ ...d, release: () => release,
      clusterVersions: new Cache({ version: clusterVersion('version', [historyEntry('4.22.2'), historyEntry('4.22.1', 'Completed', 1)]) }) });
    expect(await reconcile('cluster')).toEqual({});
    expect([written.length, conditions.all().length]).toEqual([0, 0]);
    release = { version: '4.22.1', registry };
    await reconcile('cluster');
    release = { version: '4.22.2', registry: loadRegistry(join(PAYLOAD_ROOT, 'releases', 'release-4.22'), { operatorVersion: '4.22.2' }) };
    const cached = (d.featureGates as unknown as Cache<FeatureGate>).objects.cluster!;
    cached.metadata.resourceVersion = '8'; // the cache has moved past the first write (whose status it does not hold here)
    await reconcile('cluster');
    // (Each write is the current entry of the release it read.)
    expect(written.map((w) => w.status?.featureGates.map((e) => e.version))).toEqual([['4.22.1'], ['4.22.2']]);
  });

  it('a 409 is a rate-limited requeue, not an immediate one and not Degraded', async () => {
    const { deps: d, conditions } = deps(featureGate('cluster'), async () => { throw Object.assign(new Error('conflict'), { code: 409 }); });
    const { controller, clock, times } = await runOnFakeClock(featureGateStatusController(d));
    expect(times).toEqual([0]);
    await clock.advance(4);
    expect(times).toEqual([0]); // not at once: the rate limiter's first step is 5 ms
    await clock.advance(1);
    expect(times).toEqual([0, 5]);
    expect(conditions.all().find((c) => c.type === 'FeatureGateControllerDegraded')?.status).toBe('False');
    await controller.stop();
  });

  it('guards the size of the whole object that would be sent, not only its status', async () => {
    const big = featureGate('cluster');
    big.metadata.annotations = { filler: 'x'.repeat(5000) };
    const sent: FeatureGate[] = [];
    const { deps: d, conditions } = deps(big, async (o) => { sent.push(o); return o; }, { sizeLimitBytes: 4000 });
    await expect(featureGateStatusReconciler(d)('cluster')).rejects.toThrow(/FeatureGate\/cluster would be \d+ bytes .* over the 4000-byte request limit; not written/);
    expect(sent).toEqual([]);
    await (await runOnFakeClock(featureGateStatusController(d))).controller.stop();
    expect(conditions.all().find((c) => c.type === 'FeatureGateControllerDegraded')).toMatchObject({ status: 'True', reason: 'SyncError' });
  });

  it('a feature set the payload does not know degrades with upstream\'s message', async () => {
    const { deps: d, conditions } = deps(featureGate('cluster', { featureSet: 'NoSuchSet' as never }), async (o) => o);
    await expect(featureGateStatusReconciler(d)('cluster')).rejects.toThrow(/^unable to determine FeatureGateDetails from FeatureSets: /);
    await (await runOnFakeClock(featureGateStatusController(d))).controller.stop();
    expect(conditions.all().find((c) => c.type === 'FeatureGateControllerDegraded')?.message).toMatch(/^unable to determine FeatureGateDetails from FeatureSets: /);
  });

  it('resolves the spec again when it changes, and measures the status size once per distinct status', async () => {
    const objects: Record<string, FeatureGate> = {};
    const written: FeatureGate[] = [];
    const metrics = new Registry();
    const { deps: d } = deps(featureGate('cluster'), async (o) => { written.push(o); return o; });
    objects.cluster = d.featureGates.get('cluster')!;
    const reconcile = featureGateStatusReconciler({ ...d, metrics, featureGates: new Cache(objects) });
    const sizeMetric = async () => Number(/^featuregates_status_size_bytes (\d+)$/m.exec(await metrics.metrics())?.[1]);
    await reconcile('cluster');
    expect(await sizeMetric()).toBe(serializedSizeBytes(written[0]!.status!.featureGates));
    const defaultEnabled = written[0]!.status!.featureGates[0]!.enabled.length;
    // The cache now holds what was written, then the spec changes to another feature set.
    objects.cluster = { ...written[0]!, metadata: { ...written[0]!.metadata, resourceVersion: '8' }, spec: { featureSet: 'TechPreviewNoUpgrade' } };
    await reconcile('cluster');
    expect(written).toHaveLength(2);
    expect(written[1]!.status!.featureGates[0]!.enabled.length).toBeGreaterThan(defaultEnabled);
    expect(await sizeMetric()).toBe(serializedSizeBytes(written[1]!.status!.featureGates));
    // Nothing changed: no write, and the size stays that of the status as it is.
    objects.cluster = { ...written[1]!, metadata: { ...written[1]!.metadata, resourceVersion: '9' } };
    await reconcile('cluster');
    expect(written).toHaveLength(2);
    expect(await sizeMetric()).toBe(serializedSizeBytes(written[1]!.status!.featureGates));
  });

  it('declares its watches: FeatureGate and ClusterVersion, both mapped to the singleton', () => {
    const { deps: d } = deps(featureGate('cluster'), async (o) => o);
    const spec = featureGateStatusController(d);
    expect(spec.watches.map((w) => w.keys?.('anything'))).toEqual([['cluster'], ['cluster']]);
    expect(spec.initialKeys).toEqual(['cluster']);
  });
});

describe('ClusterOperator status reconciler', () => {
  const co = (status?: ClusterOperator['status']): ClusterOperator => ({
    apiVersion: 'config.openshift.io/v1', kind: 'ClusterOperator', metadata: { name: 'config-operator', resourceVersion: '3' }, spec: {}, ...(status ? { status } : {}),
  });

  it('publishes upstream\'s wire shape: condition order, EvaluationConditionsDetected, extension null', async () => {
    const conditions = new OperatorConditions(() => new Date('2026-01-01T00:00:00Z'));
    conditions.set({ type: 'OperatorAvailable', status: 'True', reason: 'AsExpected', message: '' });
    const written: ClusterOperator[] = [];
    const reconcile = clusterOperatorStatusReconciler({
      name: 'config-operator', operatorVersion: () => '4.22.1', namespace: 'openshift-config-operator', conditions,
      clusterOperators: new Cache({ 'config-operator': co() }), featureGates: new Cache<FeatureGate>({}),
      client: { create: async (o) => o, replaceStatus: async (o) => { written.push(o); return o; } },
      now: () => new Date('2026-01-01T00:00:00Z'),
    });
    await reconcile();
    const status = written[0]?.status;
    expect(status?.conditions?.map((c) => c.type)).toEqual(['Degraded', 'Progressing', 'Available', 'Upgradeable', 'EvaluationConditionsDetected']);
    expect(status?.conditions?.at(-1)).toMatchObject({ status: 'Unknown', reason: 'NoData' });
    expect(status?.extension).toBeNull();
  });

  it('with its status as desired, looks again after its resync period: a minute by default, what it is given otherwise', async () => {
    const conditions = new OperatorConditions(() => new Date('2026-01-01T00:00:00Z'));
    const written: ClusterOperator[] = [];
    const make = (current: ClusterOperator, resyncMs?: number) => clusterOperatorStatusController({
      name: 'config-operator', operatorVersion: () => '4.22.1', namespace: 'openshift-config-operator', conditions,
      clusterOperators: new Cache({ 'config-operator': current }), featureGates: new Cache<FeatureGate>({}),
      client: { create: async (o) => o, replaceStatus: async (o) => { written.push(o); return o; } },
      now: () => new Date('2026-01-01T00:00:00Z'), ...(resyncMs ? { resyncMs } : {}),
    });
    await make(co()).reconcile('config-operator', new AbortController().signal);
    const settled = written[0]!;
    for (const [resyncMs, ms] of [[undefined, 60_000], [600_000, 600_000]] as const) {
      const { controller, clock, times } = await runOnFakeClock(make(settled, resyncMs));
      await clock.advance(ms - 1);
      expect(times).toEqual([0]);
      await clock.advance(1);
      expect(times).toEqual([0, ms]);
      await controller.stop();
    }
    expect(written).toHaveLength(1);
  });

  it('is triggered by a FeatureGate change only when it changes whether status holds the operator version', () => {
    const gates: Record<string, FeatureGate> = {};
    const spec = clusterOperatorStatusController({
      name: 'config-operator', operatorVersion: () => '4.22.1', namespace: 'ns', conditions: new OperatorConditions(),
      clusterOperators: new Cache({ 'config-operator': co() }), featureGates: new Cache(gates),
      client: { create: async (o) => o, replaceStatus: async (o) => o },
    });
    const onFeatureGate = spec.watches[1]!.keys!;
    const withVersions = (...versions: string[]): FeatureGate => ({ ...featureGate('cluster'), status: { featureGates: versions.map((version) => ({ version, enabled: [], disabled: [] })) } });
    expect(onFeatureGate('cluster')).toEqual(['config-operator']); // the first event: no state known yet
    expect(onFeatureGate('cluster')).toEqual([]); // still no FeatureGate
    gates.cluster = withVersions('4.22.0');
    expect(onFeatureGate('cluster')).toEqual([]); // another version only: nothing to publish
    gates.cluster = withVersions('4.22.1', '4.22.0');
    expect(onFeatureGate('cluster')).toEqual(['config-operator']); // this version arrived
    gates.cluster = withVersions('4.22.1');
    expect(onFeatureGate('cluster')).toEqual([]); // a pruned history: this version still there
    delete gates.cluster;
    expect(onFeatureGate('cluster')).toEqual(['config-operator']); // deleted
    expect(spec.watches[0]!.keys!('config-operator')).toEqual(['config-operator']);
    expect(spec.watches[2]!.keys!('anything')).toEqual(['config-operator']);
  });

  it('writes nothing while it has no version (a hosted guest not accepted yet), and publishes the version it reads', async () => {
    const bound: { version?: string } = {};
    const written: ClusterOperator[] = [];
    const gates = { cluster: { ...featureGate('cluster'), status: { featureGates: [{ version: '4.22.1', enabled: [], disabled: [] }] } } as FeatureGate };
    const reconcile = clusterOperatorStatusReconciler({
      name: 'config-operator', operatorVersion: () => bound.version, namespace: 'ns', conditions: new OperatorConditions(),
      clusterOperators: new Cache({ 'config-operator': co() }), featureGates: new Cache(gates),
      client: { create: async (o) => o, replaceStatus: async (o) => { written.push(o); return o; } },
    });
    expect(await reconcile()).toEqual({});
    expect(written).toHaveLength(0);
    bound.version = '4.22.1';
    await reconcile();
    expect(written[0]?.status?.versions).toEqual([{ name: 'operator', version: '4.22.1' }, { name: 'feature-gates', version: '4.22.1' }]);
  });

  it('a stale cache (409 or 404 on write) is a rate-limited requeue', async () => {
    const reconcile = clusterOperatorStatusReconciler({
      name: 'config-operator', operatorVersion: () => '4.22.1', namespace: 'ns', conditions: new OperatorConditions(),
      clusterOperators: new Cache({ 'config-operator': co() }), featureGates: new Cache<FeatureGate>({}),
      client: { create: async (o) => o, replaceStatus: async () => { throw Object.assign(new Error('gone'), { code: 404 }); } },
    });
    expect(await reconcile()).toEqual({ requeue: true });
    // A 409 too: through the controller, a retry with backoff (5 ms, its first step).
    const conflict = clusterOperatorStatusController({
      name: 'config-operator', operatorVersion: () => '4.22.1', namespace: 'ns', conditions: new OperatorConditions(),
      clusterOperators: new Cache({ 'config-operator': co() }), featureGates: new Cache<FeatureGate>({}),
      client: { create: async (o) => o, replaceStatus: async () => { throw Object.assign(new Error('conflict'), { code: 409 }); } },
    });
    const { controller, clock, times } = await runOnFakeClock(conflict);
    await clock.advance(5);
    expect(times).toEqual([0, 5]);
    await controller.stop();
  });
});
