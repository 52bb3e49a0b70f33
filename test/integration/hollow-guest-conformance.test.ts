// The hollow guests of the fleet benchmark (test/support/hollow-guests.ts) answer as a real kube-apiserver
// v1.36.3 with openshift/api's CRDs does, wherever `featuregates hosted` can tell: the same requests, through the
// project's own transport, to both — creates and AlreadyExists, lists by name with their resourceVersion,
// updates and 409 on a stale resourceVersion, status and spec kept apart, generation, watches resumed from a
// resourceVersion, watch-list with its initial-events-end bookmark, /version, kubernetes_feature_enabled in
// /metrics, 401 without the token; and 410 Expired for a resourceVersion too old (hollow only: see below).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FEATURE_GATE_NAME, type FeatureGate } from '../../api-types/index.js';
import {
  ApiError,
  ClusterOperatorResource,
  FeatureGateResource,
  KubeTransport,
  ResourceClient,
  readKubeconfigFile,
  readUntrustedKubeconfigText,
  withTransportConfig,
  type ClusterAccess,
} from '../../runtime/index.js';
import {
  ensureNamespace,
  hypershiftCRDPaths,
  publishHostedControlPlane,
  setClusterVersion,
  setHostedFeatureGate,
  startControlPlane,
  upstreamCRDPaths,
  type ControlPlane,
} from '../../sdk/testing/index.js';
import { hostedReplicas } from '../support/hosted-replicas.js';
import { eventually } from '../support/timing.js';
import { PAYLOAD_ROOT } from '../support/payloads.js';
import { join } from 'node:path';
import { EVENT_WINDOW, startHollowGuests, type HollowFleet } from '../support/hollow-guests.js';
import { readFileSync } from 'node:fs';

/** What a client can tell of an answer: the status code and reason of an error, or a shape of the object. */
async function outcome(p: Promise<unknown>): Promise<unknown> {
  try {
    const o = await p as FeatureGate | undefined;
    return { ok: true, generation: o?.metadata?.generation, spec: o?.spec, status: o?.status ?? null };
  } catch (e) {
    if (e instanceof ApiError) return { code: e.code, reason: e.reason };
    throw e;
  }
}

/** Collects a watch's events until `until` says it has enough (or the stream ends). */
function watchEvents(
  kc: ClusterAccess,
  query: Record<string, string | number | boolean>,
  until: (events: { type: string; object: Record<string, unknown> }[]) => boolean,
) {
  const events: { type: string; object: Record<string, unknown> }[] = [];
  return new Promise<typeof events>((resolve, reject) => {
    let handle: { abort(): void } | undefined;
    let done = false;
    const finish = () => {
      if (!done) {
        done = true;
        handle?.abort();
        resolve(events);
      }
    };
    KubeTransport.for(kc)
      .watch({
        path: '/apis/config.openshift.io/v1/featuregates',
        query: { fieldSelector: `metadata.name=${FEATURE_GATE_NAME}`, ...query },
        onEvent: (type, object) => {
          events.push({ type, object: object as Record<string, unknown> });
          if (until(events)) finish();
        },
        onEnd: () => finish(),
      })
      .then((h) => {
        handle = h;
        if (done) h.abort();
      }, reject);
  });
}

/** The same conversation with a guest API server; its transcript. */
async function conversation(kc: ClusterAccess): Promise<unknown[]> {
  const fgs = new ResourceClient(kc, FeatureGateResource);
  const t: unknown[] = [];
  const fg: FeatureGate = { apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', metadata: { name: FEATURE_GATE_NAME }, spec: {} };
  const created = await fgs.create(fg);
  t.push(['create', typeof created.metadata.resourceVersion, created.metadata.generation, created.spec]);
  t.push(['create again', await outcome(fgs.create(fg))]);
  const listed = await fgs.list(`metadata.name=${FEATURE_GATE_NAME}`);
  t.push(['list', listed.items.map((i) => i.metadata.name), typeof listed.resourceVersion, Number(listed.resourceVersion) >= Number(created.metadata.resourceVersion)]);
  t.push(['list other name', (await fgs.list('metadata.name=other')).items.length]);
  const from = listed.resourceVersion;
  // Spec and status apart: a status write keeps the spec, a spec write keeps the status and moves generation.
  const withStatus = await fgs.replaceStatus({ ...created, spec: { featureSet: 'TechPreviewNoUpgrade' }, status: { featureGates: [{ version: '4.22.0', enabled: [], disabled: [] }] } });
  t.push(['status write', withStatus.spec, withStatus.metadata.generation, withStatus.status]);
  t.push(['stale spec write', await outcome(fgs.replace({ ...created, spec: { featureSet: 'CustomNoUpgrade' } }))]);
  t.push(['spec write', await outcome(fgs.replace({ ...withStatus, spec: { featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: ['A'], disabled: [] } }, status: { featureGates: [] } }))]);
  t.push(['get', await outcome(fgs.get(FEATURE_GATE_NAME))]);
  t.push(['get missing', await outcome(new ResourceClient(kc, FeatureGateResource).get('missing'))]);
  // A watch resumed from before the two writes replays them; watch-list sends the object, then its bookmark.
  const resumed = await watchEvents(kc, { resourceVersion: from, allowWatchBookmarks: true, timeoutSeconds: 5 }, (es) => es.filter((e) => e.type === 'MODIFIED').length >= 2);
  t.push(['resumed watch', resumed.filter((e) => e.type !== 'BOOKMARK').map((e) => [e.type, (e.object.spec as FeatureGate['spec']).featureSet])]);
  // A watch from the latest resourceVersion has nothing to send: it is accepted at once all the same.
  const quiet = await KubeTransport.for(kc).watch({ path: '/apis/config.openshift.io/v1/featuregates', timeoutMs: 3000,
    query: { fieldSelector: `metadata.name=${FEATURE_GATE_NAME}`, resourceVersion: (await fgs.list()).resourceVersion, timeoutSeconds: 5 },
    onEvent: () => undefined, onEnd: () => undefined }).then((h) => { h.abort(); return 'accepted'; }, (e: Error) => e.message);
  t.push(['quiet watch', quiet]);
  const listing = await watchEvents(kc, { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true, timeoutSeconds: 5 },
    (es) => es.some((e) => e.type === 'BOOKMARK'));
  t.push(['watch-list', listing.map((e) => [e.type, e.type === 'BOOKMARK'
    ? (e.object.metadata as { annotations?: Record<string, string> }).annotations?.['k8s.io/initial-events-end'] : (e.object.metadata as { name: string }).name])]);
  const version = await KubeTransport.for(kc).request({ method: 'GET', path: '/version' }) as { gitVersion: string; emulationMinor: string };
  t.push(['version', version.gitVersion.replace(/[-+].*$/, ''), version.emulationMinor]);
  let gauge = 0;
  await KubeTransport.for(kc).request({ method: 'GET', path: '/metrics', accept: 'text/plain', onLine: (l) => { if (l.startsWith('kubernetes_feature_enabled{')) gauge++; } });
  t.push(['metrics has the gate gauge', gauge > 0]);
  return t;
}

describe('hollow guests answer as kube-apiserver does', () => {
  let plane: ControlPlane;
  let hollow: HollowFleet;
  beforeAll(async () => {
    plane = await startControlPlane({ crdPaths: upstreamCRDPaths() });
    hollow = await startHollowGuests(1, { gates: new Map([['APIResponseCompression', true]]) });
  }, 120_000);
  afterAll(async () => {
    await hollow?.close();
    await plane?.stop();
  });

  it('the same conversation gets the same answers', async () => {
    const real = await conversation(plane.kubeConfig);
    const hollowKc = await readUntrustedKubeconfigText(hollow.guests[0]!.kubeconfig(), 'hollow guest');
    const fake = await conversation(hollowKc);
    expect(fake).toEqual(real);
    // And what the real one said, so a change on both sides cannot pass unnoticed.
    expect(real).toContainEqual(['create again', { code: 409, reason: 'AlreadyExists' }]);
    expect(real).toContainEqual(['stale spec write', { code: 409, reason: 'Conflict' }]);
    expect(real).toContainEqual(['watch-list', [['ADDED', FEATURE_GATE_NAME], ['BOOKMARK', 'true']]]);
  }, 60_000);

  // The coordinator's transport falls back to HTTP/1.1 for a server that does not agree to HTTP/2; a quiet watch must be
  // accepted there too (a fleet run with 500 hollow guests stalled on watches that never got their headers).
  it('over HTTP/1.1 too, a watch with nothing to send is accepted at once', async () => {
    const quietWatch = async (kc: ClusterAccess) => {
      const h1 = withTransportConfig(kc, { http2: false });
      const { resourceVersion } = await new ResourceClient(h1, FeatureGateResource).list();
      return KubeTransport.for(h1).watch({ path: '/apis/config.openshift.io/v1/featuregates', timeoutMs: 3000,
        query: { fieldSelector: `metadata.name=${FEATURE_GATE_NAME}`, resourceVersion, timeoutSeconds: 5 },
        onEvent: () => undefined, onEnd: () => undefined }).then((h) => { h.abort(); return 'accepted'; }, (e: Error) => e.message);
    };
    expect(await quietWatch(plane.kubeConfig)).toBe('accepted');
    expect(await quietWatch(readUntrustedKubeconfigText(hollow.guests[0]!.kubeconfig(), 'hollow'))).toBe('accepted');
  });

  it('refuses a request without its token, as kube-apiserver does', async () => {
    const wrong = (text: string) => text.replace(/("token": "|token: )[^\s}"]+/, '$1not-the-token');
    for (const kc of [await readUntrustedKubeconfigText(wrong(hollow.guests[0]!.kubeconfig()), 'hollow'),
      await readUntrustedKubeconfigText(wrong(readFileSync(plane.kubeconfigPath, 'utf8')), 'real')]) {
      expect(await outcome(new ResourceClient(kc, FeatureGateResource).get(FEATURE_GATE_NAME))).toEqual({ code: 401, reason: 'Unauthorized' });
    }
  });

  // kube-apiserver's watch cache keeps a resource's events for at least 75 s (it grows to), so a resourceVersion it
  // calls too old cannot be reached within npm test; the hollow guest keeps its last EVENT_WINDOW events and answers
  // an older one in the shape kube-apiserver uses (an ERROR event carrying a 410 Expired Status), which the
  // Reflector takes as "list again".
  it('answers a watch from a resourceVersion older than its window with ERROR 410 Expired', async () => {
    const g = hollow.guests[0]!;
    const kc = await readUntrustedKubeconfigText(g.kubeconfig(), 'hollow');
    const first = g.put('clusteroperators', { metadata: { name: 'churn' }, spec: {} }).metadata.resourceVersion!;
    for (let i = 0; i < EVENT_WINDOW + 5; i++) g.put('clusteroperators', { metadata: { name: 'churn' }, spec: {}, status: { n: i } });
    const expired = await watchEvents(kc, { resourceVersion: first, timeoutSeconds: 5 }, (es) => es.length > 0);
    expect(expired.map((e) => [e.type, e.object.code, e.object.reason])).toEqual([['ERROR', 410, 'Expired']]);
  });

  it('a ClusterVersion set up through put() reads as one written to the real server', async () => {
    await setClusterVersion(plane.kubeConfig, { history: ['4.22.0'] });
    const real = await KubeTransport.for(plane.kubeConfig).request({ method: 'GET', path: '/apis/config.openshift.io/v1/clusterversions/version' }) as { status: unknown };
    hollow.guests[0]!.put('clusterversions', { metadata: { name: 'version' }, spec: { clusterID: 'x' }, status: real.status });
    const hk = await readUntrustedKubeconfigText(hollow.guests[0]!.kubeconfig(), 'hollow');
    const fake = await KubeTransport.for(hk).request({ method: 'GET', path: '/apis/config.openshift.io/v1/clusterversions/version' }) as { status: unknown; kind: string };
    expect([fake.kind, fake.status]).toEqual(['ClusterVersion', real.status]);
  });

  it('a featuregates hosted replica keeps a hollow guest as it keeps a real one: the same spec, status and ClusterOperator', async () => {
    const mgmt = await startControlPlane({ etcdURL: plane.etcdURL, etcdPrefix: '/hollow-mgmt', crdPaths: hypershiftCRDPaths() });
    const closers: (() => Promise<void>)[] = [];
    const replicas = hostedReplicas({ kubeconfig: () => mgmt.kubeconfigPath, catalog: join(PAYLOAD_ROOT, 'releases'), namespace: 'fgc-hollow', shards: 1 });
    try {
      const mkc = readKubeconfigFile(mgmt.kubeconfigPath)!;
      await ensureNamespace(mkc, 'fgc-hollow');
      // A fresh real guest (the conversation above changed the first plane's FeatureGate) and the hollow one, both at 4.22.3.
      const realGuest = await startControlPlane({ etcdURL: plane.etcdURL, etcdPrefix: '/hollow-real-guest', crdPaths: upstreamCRDPaths() });
      try {
        await setClusterVersion(realGuest.kubeConfig, { history: ['4.22.3'] });
        const cv = await KubeTransport.for(realGuest.kubeConfig).request({ method: 'GET', path: '/apis/config.openshift.io/v1/clusterversions/version' }) as { spec: unknown; status: unknown };
        const fleet = await startHollowGuests(1);
        closers.push(() => fleet.close());
        const g = fleet.guests[0]!;
        g.put('clusterversions', { metadata: { name: 'version' }, spec: cv.spec, status: cv.status });
        const spec = { featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: ['ExampleGate'], disabled: [] } };
        for (const [name, kubeconfig] of [['real', readFileSync(realGuest.kubeconfigPath, 'utf8')], ['hollow', g.kubeconfig()]] as const) {
          await publishHostedControlPlane(mkc, { namespace: `hc-${name}`, name, kubeconfig, releaseVersion: '4.22.3' });
          await setHostedFeatureGate(mkc, `hc-${name}`, name, spec);
        }
        replicas.start('replica-1');
        const hk = readUntrustedKubeconfigText(g.kubeconfig(), 'hollow');
        const seen = async (kc: ClusterAccess) => {
          const fg = await new ResourceClient(kc, FeatureGateResource).find(FEATURE_GATE_NAME);
          const co = await new ResourceClient(kc, ClusterOperatorResource).find('config-operator');
          return {
            spec: fg?.spec,
            status: fg?.status?.featureGates,
            co: co?.status?.conditions?.map((c) => [c.type, c.status, c.reason]).sort(),
            versions: co?.status?.versions,
          };
        };
        await replicas.dumpOnFailure(() => eventually(async () => {
          const real = await seen(realGuest.kubeConfig);
          expect(real.status?.[0]?.version).toBe('4.22.3');
          expect(real.co?.length).toBeGreaterThan(0);
          expect(await seen(hk)).toEqual(real);
        }, 60_000, 500));
        // And `hosted status` tells them alike (its records are written in batches: awaited).
        await eventually(async () => {
          const records = await replicas.records();
          const line = (key: string) => { const r = records.get(key); return [r?.lastError ?? '', r?.versions, r?.upgradeable, r?.featureSet]; };
          expect(line('hc-real/real')).toEqual(['', ['4.22.3'], 'False: FeatureGates_RestrictedFeatureGates_CustomNoUpgrade', 'CustomNoUpgrade']);
          expect(line('hc-hollow/hollow')).toEqual(line('hc-real/real'));
        }, 30_000, 1000);
      } finally {
        await realGuest.stop();
      }
    } finally {
      replicas.killAll();
      for (const close of closers) await close();
      await mgmt.stop();
    }
  }, 150_000);
});
