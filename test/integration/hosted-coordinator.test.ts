// The hosted coordinator in-process, on a real management API server with HyperShift's HCP CRD: which
// guest sessions it runs as HCPs, Namespaces' labels and its permissions change, and what that costs. Its
// HCP reflector reports each object of its first listing one by one; the coordinator must start the
// sessions of all of them with one walk of its HCPs, not with one walk per HCP (at a fleet's 500 HCPs that
// was 250 000 shard hashes per replica at every start). A replica that may not list HCPs joins and holds
// no shard until it may. The guests do not answer (a closed port): sessions start and wait.
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { join } from 'node:path';
import {
  ConfigMapResource,
  HostedControlPlaneResource,
  KubeTransport,
  LeaseResource,
  NamespaceResource,
  Reflector,
  ResourceClient,
  createLogger,
  readKubeconfigFile,
  readKubeconfigText,
  retryOnConflict,
  type ClusterAccess,
} from '../../runtime/index.js';
import {
  UNREACHABLE_GUEST_KUBECONFIG,
  hypershiftCRDPaths,
  publishHostedControlPlane,
  serviceAccountKubeConfig,
  startControlPlane,
  type ControlPlane,
} from '../../sdk/testing/index.js';
import { memberLeaseName } from '../../hosted/shards.js';
import { GuestProvider } from '../../hosted/guest-provider.js';
import { shardName } from '../../api-types/index.js';
import { MANAGEMENT_WRITES, startHosted, type HostedOptions, type RunningCoordinator } from '../../hosted/index.js';
import { eventually, sleep } from '../support/timing.js';
import { peakConcurrency, startThrottleProxy, type ProxiedRequest } from '../support/throttle-proxy.js';
import { PAYLOAD_ROOT } from '../support/payloads.js';

const HCPS = 60;
const NAMESPACES = 3;
interface HcpEvent { reason: string; message: string; count?: number; involvedObject: { name: string } }

const keys = Array.from({ length: HCPS }, (_, i) => `clusters-${i % NAMESPACES}/hcp-${i}`).sort();

describe('hosted coordinator: sessions of the HCPs of held shards', () => {
  let mgmt: ControlPlane;
  let kc: ClusterAccess;
  let coordinator: RunningCoordinator | undefined;

  beforeAll(async () => {
    mgmt = await startControlPlane({ crdPaths: hypershiftCRDPaths() });
    kc = readKubeconfigFile(mgmt.kubeconfigPath)!;
    for (const key of keys) {
      const [namespace, name] = key.split('/') as [string, string];
      await publishHostedControlPlane(kc, { namespace, name, kubeconfig: UNREACHABLE_GUEST_KUBECONFIG });
    }
  }, 120_000);

  // Each test runs one coordinator; a failed test's is stopped too, so it holds no shard the next one wants.
  afterEach(async () => {
    await coordinator?.stop();
    coordinator = undefined;
  });
  afterAll(async () => {
    await mgmt?.stop();
  });

  /** A coordinator holding the one shard (Leases in `default` unless said otherwise), no endpoints served. */
  const start = (identity: string, o: Partial<HostedOptions> = {}) => startHosted({
    kubeConfig: kc, payloadCatalog: join(PAYLOAD_ROOT, 'releases'), namespace: 'default', identity, shards: 1,
    metricsBindAddress: '0', healthProbeBindAddress: '0', ...o,
  });
  /** The Warnings of one reason on HCPs of a namespace, and their count (an aggregated Event counts `count` times). */
  const warnings = async (namespace: string, reason: string) =>
    ((await KubeTransport.for(kc).request({ method: 'GET', path: `/api/v1/namespaces/${namespace}/events` })) as { items: HcpEvent[] }).items
      .filter((e) => e.reason === reason);
  const counted = (events: HcpEvent[]) => events.reduce((n, e) => n + (e.count ?? 1), 0);

  /** Every walk of the HCPs starts with their reflector's list(): counts those calls. */
  const countHcpWalks = () => {
    const list = jest.spyOn(Reflector.prototype, 'list');
    const hcpWalks = () => list.mock.contexts
      .filter((r) => (r as unknown as { client: ResourceClient<never> }).client.resource.plural === 'hostedcontrolplanes').length;
    return { hcpWalks, restore: () => list.mockRestore() };
  };

  it('starts a session per HCP after one walk of the first listing, then follows adds and deletes', async () => {
    const { hcpWalks, restore } = countHcpWalks();
    try {
      coordinator = await start('only');
      await coordinator.ready;
      await eventually(() => expect(coordinator!.sessions()).toEqual(keys));
      // The ready log line lists once; the first listing and the shard's acquisition each walk once at most.
      expect(hcpWalks()).toBeLessThanOrEqual(4);

      const hcps = new ResourceClient(kc, HostedControlPlaneResource, undefined, { namespace: 'clusters-0' });
      await hcps.delete('hcp-0');
      await eventually(() => expect(coordinator!.sessions()).toEqual(keys.filter((k) => k !== 'clusters-0/hcp-0')));
      await publishHostedControlPlane(kc, { namespace: 'clusters-0', name: 'hcp-new', kubeconfig: UNREACHABLE_GUEST_KUBECONFIG });
      await eventually(() => expect(coordinator!.sessions()).toEqual([...keys.filter((k) => k !== 'clusters-0/hcp-0'), 'clusters-0/hcp-new'].sort()));
    } finally {
      restore();
    }
  }, 120_000);

  it('an unreachable guest is one Warning while it lasts, not one per resync', async () => {
    const t = KubeTransport.for(kc);
    await t.request({ method: 'DELETE', path: '/api/v1/namespaces/clusters-1/events' });
    coordinator = await start('resyncing', { guest: { resyncMs: 250 } });
    await coordinator.ready;
    const unreachable = async () => (await warnings('clusters-1', 'FeatureGatesGuestUnreachable')).filter((e) => e.involvedObject.name === 'hcp-1');
    await eventually(async () => expect((await unreachable()).length).toBeGreaterThan(0));
    await sleep(4_000); // 16 resyncs, each finding the guest as unreachable as before
    const events = await unreachable();
    expect(events.map((e) => e.message).join('\n')).toContain('ECONNREFUSED');
    expect(counted(events)).toBe(1);
  }, 120_000);

  // What the sessions of a replica write to the management cluster (Events, the feature-gate ConfigMaps) goes through
  // one pacer: 60 guests that fail at once are 60 Warnings, never 60 writes in flight (the 2,010-HCP benchmark's wave:
  // ~670 Events per replica at once held the management API server's answers to the replica's Lease renewals past
  // their deadline, and every replica exited).
  it('the sessions\' management writes are paced together: 60 Warnings at once, never more than MANAGEMENT_WRITES.maxInFlight in flight', async () => {
    const t = KubeTransport.for(kc);
    for (let n = 0; n < NAMESPACES; n++) await t.request({ method: 'DELETE', path: `/api/v1/namespaces/clusters-${n}/events` });
    const proxy = await startThrottleProxy(mgmt.server);
    try {
      coordinator = await start('paced', { kubeConfig: readKubeconfigText(proxy.kubeconfig(mgmt.adminToken), 'proxy')! });
      await coordinator.ready;
      const warned = async () => new Set((await Promise.all([...Array(NAMESPACES).keys()].map((n) => warnings(`clusters-${n}`, 'FeatureGatesGuestUnreachable'))))
        .flat().map((e) => e.involvedObject.name)).size;
      await eventually(async () => expect(await warned()).toBe(HCPS), 30_000);
      const writes = (r: ProxiedRequest) => r.method !== 'GET' && /\/(events|configmaps)(\/|$)/.test(r.path);
      expect(proxy.requests.filter(writes).length).toBeGreaterThanOrEqual(HCPS);
      expect(peakConcurrency(proxy.requests, writes)).toBeLessThanOrEqual(MANAGEMENT_WRITES.maxInFlight);
    } finally {
      await coordinator?.stop();
      coordinator = undefined;
      await proxy.close();
    }
  }, 120_000);

  // A guest that does not answer is followed by its reflector (which says when it answers) and by its HCP and
  // Secret (which poke its session): a resync has nothing to look at. At a fleet's 480 unreachable guests the
  // minute's resync of each was most of an idle replica's CPU (the major GCs of what each reconcile left behind).
  it('an unreachable guest\'s session is not reconciled by the resync', async () => {
    coordinator = await start('resync-idle', { guest: { resyncMs: 250 } });
    await coordinator.ready;
    const failing = async () => (await coordinator!.metrics.getSingleMetric('featuregates_hosted_guest_failing')!.get()).values
      .filter((v) => v.labels.reason === 'GuestUnreachable' && v.value === 1).length;
    await eventually(async () => expect(await failing()).toBe(HCPS));
    await sleep(1_000); // the start's last looks (a first connection attempt's failure, a wait for the Secret's listing) are over
    // GuestConnectionController's reconcile is the guest provider's.
    const connect = jest.spyOn(GuestProvider.prototype, 'reconcile');
    try {
      await sleep(3_000); // 12 resync periods
      expect(connect).not.toHaveBeenCalled();
    } finally {
      connect.mockRestore();
    }
  }, 120_000);

  const label = (name: string, labels: Record<string, string>) => retryOnConflict(async () => {
    const client = new ResourceClient(kc, NamespaceResource);
    const ns = await client.get(name);
    await client.replace({ ...ns, metadata: { ...ns.metadata, labels } });
  });

  it('with a namespace selector: only selected namespaces\' HCPs, following the Namespaces\' labels', async () => {
    await label('clusters-1', { hosted: 'yes' });
    await label('clusters-2', { hosted: 'yes' });
    const inNamespaces = (...ns: string[]) => (k: string) => ns.some((n) => k.startsWith(`${n}/`));
    const { hcpWalks, restore } = countHcpWalks();
    try {
      coordinator = await start('selective', { namespaceSelector: 'hosted=yes' });
      await coordinator.ready;
      await eventually(() => expect(coordinator!.sessions()).toEqual(keys.filter(inNamespaces('clusters-1', 'clusters-2'))));
      // The Namespaces' first listing reports each namespace in turn; they share one walk (and the shard's
      // acquisition and the ready log line one each).
      expect(hcpWalks()).toBeLessThanOrEqual(3);
    } finally {
      restore();
    }
    await label('clusters-1', {});
    await eventually(() => expect(coordinator!.sessions()).toEqual(keys.filter(inNamespaces('clusters-2'))));
    await label('clusters-0', { hosted: 'yes' });
    await eventually(() => expect(coordinator!.sessions()).toEqual([...keys.filter(inNamespaces('clusters-0', 'clusters-2')), 'clusters-0/hcp-new']
      .filter((k) => k !== 'clusters-0/hcp-0').sort()));
  }, 120_000);

  it('a replica that may not list HCPs joins and claims nothing, and claims its shards once it may', async () => {
    const ns = 'fgc-limited';
    const t = KubeTransport.for(kc);
    const post = (path: string, body: object) => t.request({ method: 'POST', path, body });
    await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await post(`/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'coordinator' } });
    const subjects = [{ kind: 'ServiceAccount', name: 'coordinator', namespace: ns }];
    // Its own namespace's Leases and records only: no rule for HostedControlPlanes yet.
    await post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'coordinator' },
      rules: [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'create', 'update'] },
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'create', 'update'] }],
    });
    await post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'coordinator' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'coordinator' }, subjects,
    });
    const sa = await serviceAccountKubeConfig(mgmt, ns, 'coordinator');
    coordinator = await start('limited', { kubeConfig: sa, namespace: ns, leaderElection: { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 } });
    let ready = false;
    void coordinator.ready.then(() => { ready = true; });
    const leases = new ResourceClient(kc, LeaseResource, undefined, { namespace: ns });
    await eventually(async () => expect((await leases.get(memberLeaseName('limited'))).spec?.holderIdentity).toBe('limited'));
    await sleep(3_000); // six retry periods: it would have claimed the only shard by now
    expect(coordinator.heldShards()).toEqual([]);
    expect(coordinator.sessions()).toEqual([]);
    expect(ready).toBe(false);
    expect((await leases.list()).items.map((l) => l.metadata.name)).not.toContain(shardName(0));

    await post('/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'fgc-limited-hcps' },
      rules: [{ apiGroups: ['hypershift.openshift.io'], resources: ['hostedcontrolplanes'], verbs: ['get', 'list', 'watch'] }],
    });
    await post('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'fgc-limited-hcps' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'fgc-limited-hcps' }, subjects,
    });
    await coordinator.ready;
    await eventually(() => expect(coordinator!.heldShards()).toEqual([0]));
    const all = (await new ResourceClient(kc, HostedControlPlaneResource).list()).items.map((h) => `${h.metadata.namespace}/${h.metadata.name}`).sort();
    await eventually(() => expect(coordinator!.sessions()).toEqual(all));
    expect(all.length).toBe(HCPS);
  }, 120_000);

  it('an HCP created before its kubeconfig is published is one Warning, and its session goes on when the status names the Secret', async () => {
    coordinator = await start('early');
    await coordinator.ready;
    // As HyperShift does it: the HCP first, its status.kubeConfig once the guest's API server is up.
    await publishHostedControlPlane(kc, { namespace: 'clusters-late', name: 'late', kubeconfig: UNREACHABLE_GUEST_KUBECONFIG, publishKubeConfig: false });
    await eventually(async () => expect(counted(await warnings('clusters-late', 'FeatureGatesMissingKubeconfig'))).toBeGreaterThan(0));
    await sleep(3_000); // retried by the work queue (5 ms, doubling) this would be ~10 more
    expect(counted(await warnings('clusters-late', 'FeatureGatesMissingKubeconfig'))).toBe(1);

    const hcps = new ResourceClient(kc, HostedControlPlaneResource, undefined, { namespace: 'clusters-late' });
    await retryOnConflict(async () => {
      const hcp = await hcps.get('late');
      await hcps.replaceStatus({ ...hcp, status: { ...hcp.status, kubeConfig: { name: 'admin-kubeconfig', key: 'kubeconfig' } } });
    });
    // The HCP's event wakes its session (the minute's resync is not due): it reads the Secret and tries the guest.
    await eventually(async () => expect(counted(await warnings('clusters-late', 'FeatureGatesGuestUnreachable'))).toBe(1), 15_000);
  }, 120_000);

  // Stopping (a SIGTERM, a shard handed back) while sessions' ConfigMap writes waited their turn at the management pace:
  // each waiting reconcile failed with "session … stopped", was logged as a Reconciler error and retried every few ms
  // until its controller let go of the session (the hosted-profile benchmark's stop: 135 such lines).
  it('stop() while ConfigMap writes wait their turn: nothing logged as an error, nothing retried', async () => {
    for (let i = 0; i < 60; i += 20) {
      await Promise.all([...Array(20).keys()].map((j) => publishHostedControlPlane(kc, {
        namespace: 'clusters-versioned', name: `v-${i + j}`, kubeconfig: UNREACHABLE_GUEST_KUBECONFIG, releaseVersion: '4.22.0',
      })));
    }
    const lines: string[] = [];
    coordinator = await start('stopping', { logger: createLogger({ level: 'info', format: 'json', write: (l) => { lines.push(l); } }) });
    await coordinator.ready;
    // Stopped as soon as the first of the 60 ConfigMaps is written: the others wait their turn (burst 50, 4 in flight).
    const configMaps = new ResourceClient(kc, ConfigMapResource, undefined, { namespace: 'clusters-versioned' });
    await eventually(async () => expect((await configMaps.list()).items.length).toBeGreaterThan(0), 30_000, 5);
    await coordinator.stop();
    expect((await configMaps.list()).items.length).toBeLessThan(60);
    coordinator = undefined;
    const errors = lines.filter((l) => l.includes('"level":"error"'));
    expect(errors).toEqual([]);
  }, 120_000);
});
