// A replica over its memory budget sheds the guests that cost it, hostile ones first, and keeps the honest ones. A
// real management plane, one honest guest (a real kube-apiserver on its etcd) and four hostile guests (two streaming
// bodies without end or newline, one answering 2 MiB errors, one sending 2.5 MiB FeatureGates of another name); the
// coordinator in-process, its resident memory as the test says (the budget's measure is an option; the kernel's
// side is the chaos `limits` scenario's). Checked: over the budget every hostile guest is shed at once and the
// honest one kept; their records (`hosted status`) and metrics say why; a shed guest is sent nothing; the honest
// guest still converges on a change; below the re-admission level and past their hold, the shed come back one a
// sample, their records their own again.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FEATURE_GATE_NAME, READMIT_BELOW, SHED_HOLD_MS } from '../../api-types/index.js';
import { FeatureGateResource, ResourceClient, readKubeconfigFile, type ClusterAccess } from '../../runtime/index.js';
import {
  hypershiftCRDPaths, publishHostedControlPlane, setClusterVersion, startControlPlane, upstreamCRDPaths, type ControlPlane,
} from '../../sdk/testing/index.js';
import { readHostedStatus, startHosted, type RunningCoordinator } from '../../hosted/index.js';
import { startHostileGuest, type HostileGuest, type HostileKind } from '../support/hostile-guests.js';
import { PAYLOAD_ROOT } from '../support/payloads.js';
import { eventually, sleep } from '../support/timing.js';

const MIB = 1024 * 1024;
const BUDGET = 400 * MIB;
const HOSTILE: [string, HostileKind][] = [['stream-a', 'no-newline'], ['stream-b', 'no-newline'], ['shout', 'huge-error'], ['forge', 'foreign-objects']];

describe('hosted: a replica over its memory budget sheds the guests that cost it', () => {
  let mgmt: ControlPlane;
  let guest: ControlPlane;
  let mkc: ClusterAccess;
  const servers = new Map<HostileKind, HostileGuest>();
  let coordinator: RunningCoordinator | undefined;
  let rss = 100 * MIB;
  let skewMs = 0;

  beforeAll(async () => {
    mgmt = await startControlPlane({ crdPaths: hypershiftCRDPaths() });
    guest = await startControlPlane({ etcdURL: mgmt.etcdURL, etcdPrefix: '/memory-budget-honest', crdPaths: upstreamCRDPaths() });
    mkc = readKubeconfigFile(mgmt.kubeconfigPath)!;
    for (const [ns, kind] of HOSTILE) {
      if (!servers.has(kind)) servers.set(kind, await startHostileGuest(kind));
      await publishHostedControlPlane(mkc, { namespace: ns, name: 'hcp', kubeconfig: servers.get(kind)!.kubeconfig(), releaseVersion: '4.22.3' });
    }
    await setClusterVersion(readKubeconfigFile(guest.kubeconfigPath)!, { history: ['4.22.3'] });
    await publishHostedControlPlane(mkc, { namespace: 'honest', name: 'hcp', kubeconfig: readFileSync(guest.kubeconfigPath, 'utf8'), releaseVersion: '4.22.3' });
  }, 180_000);

  afterAll(async () => {
    await coordinator?.stop();
    for (const s of servers.values()) await s.close();
    await guest?.stop();
    await mgmt?.stop();
  });

  it('sheds the hostile guests at once, keeps the honest one converging, says why, and takes them back', async () => {
    coordinator = await startHosted({
      kubeConfig: mkc, payloadCatalog: join(PAYLOAD_ROOT, 'releases'), namespace: 'default', identity: 'only', shards: 1,
      metricsBindAddress: '0', healthProbeBindAddress: '0', guest: { backoffMaxMs: 2_000 },
      memoryBudget: { budgetBytes: BUDGET, inUse: () => rss, now: () => Date.now() + skewMs, sampleMs: 100 },
    });
    await coordinator.ready;
    const honest = readKubeconfigFile(guest.kubeconfigPath)!;
    const fgs = new ResourceClient(honest, FeatureGateResource);
    const versions = async () => (await fgs.get(FEATURE_GATE_NAME)).status?.featureGates?.map((g) => g.version);
    await eventually(async () => expect(await versions()).toEqual(['4.22.3']), 45_000);
    const hostileKeys = HOSTILE.map(([ns]) => `${ns}/hcp`).sort();
    // Each hostile guest has failed and made the replica read (its record says so) before the budget is crossed.
    await eventually(async () => {
      const records = await readHostedStatus(mkc, 'default');
      for (const key of hostileKeys) expect(records.find((r) => r.hcp === key)?.lastError).toBeTruthy();
    }, 60_000);
    expect(await coordinator.metrics.getSingleMetricAsString('featuregates_hosted_guests_shed')).toMatch(/featuregates_hosted_guests_shed 0$/m);

    rss = BUDGET + 20 * MIB;
    await eventually(() => expect(coordinator!.sessions()).toEqual(['honest/hcp']), 10_000);
    await eventually(async () => {
      const records = await readHostedStatus(mkc, 'default');
      for (const key of hostileKeys) {
        expect(records.find((r) => r.hcp === key)?.lastError).toMatch(/^shed: the replica's memory \(420 MiB\) is over its budget \(400 MiB\); this guest was failing while it made the replica read/);
      }
      expect(records.find((r) => r.hcp === 'honest/hcp')?.lastError).toBeUndefined();
    }, 15_000);
    const metrics = await coordinator.metrics.metrics();
    expect(metrics).toMatch(/^featuregates_hosted_guests_shed 4$/m);
    expect(metrics).toMatch(/^featuregates_hosted_guest_sheds_total 4$/m);
    expect(metrics).toMatch(/^featuregates_hosted_memory_budget_bytes 419430400$/m);
    for (const [ns] of HOSTILE) expect(metrics).toContain(`featuregates_hosted_guest_failing{namespace="${ns}",name="hcp",reason="MemoryBudget"} 1`);

    // Memory that stays up sheds nothing more: the honest guest is kept, and converges on a change.
    const sent = () => [...servers.values()].reduce((n, s) => n + s.requests.length, 0);
    const before = sent();
    await setClusterVersion(honest, { history: ['4.22.4', '4.22.3'] });
    await eventually(async () => expect(await versions()).toEqual(['4.22.4', '4.22.3']), 45_000);
    expect(coordinator.sessions()).toEqual(['honest/hcp']);
    await sleep(3_000);
    expect(sent()).toBe(before); // nothing goes to a shed guest

    // Below the re-admission level but within their hold: still shed. Past it: back, one a sample.
    rss = BUDGET * READMIT_BELOW - MIB;
    await sleep(1_000);
    expect(coordinator.sessions()).toEqual(['honest/hcp']);
    skewMs = SHED_HOLD_MS;
    await eventually(() => expect(coordinator!.sessions()).toEqual([...hostileKeys, 'honest/hcp'].sort()), 15_000);
    expect(await coordinator.metrics.getSingleMetricAsString('featuregates_hosted_guests_shed')).toMatch(/featuregates_hosted_guests_shed 0$/m);
    await eventually(async () => {
      const records = await readHostedStatus(mkc, 'default');
      for (const key of hostileKeys) expect(records.find((r) => r.hcp === key)?.lastError ?? '').not.toMatch(/^shed:/);
    }, 30_000);
    await eventually(() => expect(sent()).toBeGreaterThan(before), 15_000);
  }, 240_000);
});
