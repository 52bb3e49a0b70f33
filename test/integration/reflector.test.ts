// The reflector against the real API server: list + watch into a store, deletes, bounded watches
// (server timeout and client inactivity timer both lead to a fresh watch without losing events), and the
// WatchList mode (listing by a watch with sendInitialEvents).
import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { FeatureGateResource, KubeTransport, Reflector, ResourceClient, SecretResource } from '../../runtime/index.js';
import { kubeConfig } from '../support/cluster.js';
import { eventually, sleep } from '../support/timing.js';
import { featureGate, uniqueName } from '../support/objects.js';

describe('Reflector', () => {
  const kc = kubeConfig('ours');
  const client = new ResourceClient(kc, FeatureGateResource);

  it('lists, follows adds, updates and deletes of one named object, and signals synced', async () => {
    const name = uniqueName('reflect');
    const r = new Reflector(client, { name });
    const changes: string[] = [];
    r.addListener((n) => changes.push(`${n}:${r.get(n)?.spec.featureSet ?? 'gone'}`));
    r.start();
    await r.synced;
    expect(r.hasSynced()).toBe(true);
    expect(r.list()).toEqual([]);
    const created = await client.create(featureGate(name, { featureSet: '' }));
    await eventually(() => expect(r.get(name)?.metadata.resourceVersion).toBe(created.metadata.resourceVersion));
    await client.replace({ ...created, spec: { featureSet: 'TechPreviewNoUpgrade' } });
    await eventually(() => expect(r.get(name)?.spec.featureSet).toBe('TechPreviewNoUpgrade'));
    await client.create(featureGate(uniqueName('other'))); // not selected by the field selector
    await client.delete(name);
    await eventually(() => expect(r.get(name)).toBeUndefined());
    expect(changes).toEqual([`${name}:`, `${name}:TechPreviewNoUpgrade`, `${name}:gone`]);
    expect(r.list()).toEqual([]);
    await r.stop();
  });

  it('replaces watches that end (server timeout, client inactivity) and misses nothing in between', async () => {
    const metrics = new Registry();
    const name = uniqueName('bounded');
    const r = new Reflector(client, {
      name,
      metrics,
      watchTimeoutSeconds: [1, 1],
      inactivityMs: 700,
      backoffInitialMs: 50,
      backoffMaxMs: 200,
    });
    r.start();
    await r.synced;
    await sleep(4000); // several watches time out or go idle and are replaced
    const fg = await client.create(featureGate(name, { featureSet: 'DevPreviewNoUpgrade' }));
    await eventually(() => expect(r.get(name)?.metadata.resourceVersion).toBe(fg.metadata.resourceVersion));
    const text = await metrics.metrics();
    const watches = Number(/rest_client_requests_total\{method="WATCH",resource="featuregates",code="200"\} (\d+)/.exec(text)?.[1]);
    expect(watches).toBeGreaterThanOrEqual(3);
    await r.stop();
  });

  it('retries a failing list with backoff instead of stopping (a resource that is not served)', async () => {
    const metrics = new Registry();
    const bogus = new ResourceClient(kc, { ...FeatureGateResource, plural: 'nosuchthings' }, metrics);
    const r = new Reflector(bogus, { metrics, backoffInitialMs: 50, backoffMaxMs: 100 });
    r.start();
    await sleep(800);
    expect(r.hasSynced()).toBe(false);
    const text = await metrics.metrics();
    const lists = Number(/rest_client_requests_total\{method="LIST",resource="nosuchthings",code="404"\} (\d+)/.exec(text)?.[1]);
    expect(lists).toBeGreaterThanOrEqual(4);
    expect(lists).toBeLessThan(20);
    await r.stop();
  });

  it('says when a failing list recovers, also when the listing is empty (its listeners hear nothing then)', async () => {
    const group = `${uniqueName('recover')}.fgc.test`;
    const widgets = new ResourceClient(kc, { ...FeatureGateResource, group, version: 'v1', plural: 'widgets', kind: 'Widget' });
    const failing: string[] = [];
    let recovered = 0;
    const r = new Reflector(widgets, {
      backoffInitialMs: 50,
      backoffMaxMs: 200,
      onFailing: (e) => failing.push(e),
      onRecovered: () => recovered++,
    });
    const heard: string[] = [];
    r.addListener((n) => heard.push(n));
    r.start();
    await eventually(() => expect(failing).toHaveLength(1)); // 404: the resource is not served yet
    expect(recovered).toBe(0);
    const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    const transport = KubeTransport.for(kc);
    await transport.request({ method: 'POST', path: crds, body: {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `widgets.${group}` },
      spec: { group, scope: 'Cluster', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    } });
    try {
      await r.synced;
      await eventually(() => expect(recovered).toBe(1));
      expect(r.lastError()).toBeUndefined();
      expect(failing).toHaveLength(1); // told once when it started failing, however many attempts failed
      expect(heard).toEqual([]);
    } finally {
      await r.stop();
      await transport.request({ method: 'DELETE', path: `${crds}/widgets.${group}` });
    }
  });

  it('watchList: lists one name in every namespace by watching (no LIST), follows changes, and keeps following across watch restarts', async () => {
    const metrics = new Registry();
    const name = uniqueName('kc');
    const t = KubeTransport.for(kc);
    const namespaces = [uniqueName('wl-a'), uniqueName('wl-b')];
    for (const ns of namespaces) {
      await t.request({ method: 'POST', path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } });
      await t.request({ method: 'POST', path: `/api/v1/namespaces/${ns}/secrets`, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name }, data: { k: 'YQ==' } } });
    }
    await t.request({ method: 'POST', path: `/api/v1/namespaces/${namespaces[0]}/secrets`, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: `${name}-other` } } });
    const secrets = new ResourceClient(kc, SecretResource, metrics);
    const r = new Reflector(secrets, {
      name,
      watchList: true,
      metrics,
      watchTimeoutSeconds: [1, 1],
      backoffInitialMs: 50,
      backoffMaxMs: 200,
    });
    r.start();
    await r.synced;
    expect(r.list().map((x) => `${x.metadata.namespace}/${x.metadata.name}`).sort()).toEqual(namespaces.map((ns) => `${ns}/${name}`).sort());
    await t.request({ method: 'DELETE', path: `/api/v1/namespaces/${namespaces[1]}/secrets/${name}` });
    await eventually(() => expect(r.get(`${namespaces[1]}/${name}`)).toBeUndefined());
    await sleep(2500); // the 1 s watches end and are replaced from their resourceVersion
    await t.request({ method: 'PUT', path: `/api/v1/namespaces/${namespaces[0]}/secrets/${name}`, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: namespaces[0] }, data: { k: 'Yg==' } } });
    await eventually(() => expect(r.get(`${namespaces[0]}/${name}`)?.data?.k).toBe('Yg=='));
    const text = await metrics.metrics();
    expect(text).not.toMatch(/rest_client_requests_total\{method="LIST",resource="secrets"/);
    expect(Number(/rest_client_requests_total\{method="WATCH",resource="secrets",code="200"\} (\d+)/.exec(text)?.[1])).toBeGreaterThanOrEqual(3);
    await r.stop();
  });

  it('a changesOnly listener is not told about objects a relist finds unchanged; a plain one is', async () => {
    const name = uniqueName('relisted');
    await client.create(featureGate(name));
    const r = new Reflector(client, { name, watchTimeoutSeconds: [1, 1], relistIntervalMs: 300 });
    const all: string[] = [];
    const changes: string[] = [];
    r.addListener((n) => all.push(n));
    r.addListener((n) => changes.push(n), { changesOnly: true });
    r.start();
    await r.synced;
    await eventually(() => expect(all.length).toBeGreaterThanOrEqual(3), 10_000); // the first list and two relists
    expect(changes).toEqual([name]);
    await client.delete(name);
    await eventually(() => expect(changes).toEqual([name, name]));
    await r.stop();
  });
});
