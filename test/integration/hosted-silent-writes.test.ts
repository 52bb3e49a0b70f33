// Guests whose writes are never answered (a tenant's admission webhook that points at nothing: every write waits
// out the client's timeout), more of them than a replica has workers per controller kind, beside one honest guest —
// a real kube-apiserver on the management plane's etcd. The coordinator runs in-process with a 60 s guest request
// timeout, so no silent write ends while the test looks: a worker held until its write timed out would hold the
// honest guest's status until then. Checked: every silent guest's FeatureGate status write is tried (more than the
// workers: a reconcile still waiting after GUEST_SLOW_AFTER_MS gives its worker back); the honest guest's status is
// written while all of them still wait; stop() ends them all at once.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FEATURE_GATE_NAME } from '../../api-types/index.js';
import { FeatureGateResource, ResourceClient, readKubeconfigFile, type ClusterAccess } from '../../runtime/index.js';
import {
  hypershiftCRDPaths, publishHostedControlPlane, setClusterVersion, startControlPlane, upstreamCRDPaths, type ControlPlane,
} from '../../sdk/testing/index.js';
import { startHosted, type RunningCoordinator } from '../../hosted/index.js';
import { GUEST_WORKERS } from '../../hosted/guest-controllers.js';
import { startHostileGuest, type HostileGuest } from '../support/hostile-guests.js';
import { PAYLOAD_ROOT } from '../support/payloads.js';
import { eventually } from '../support/timing.js';

const SILENT = GUEST_WORKERS + 8;

describe('hosted: guests that never answer a write cannot hold every worker', () => {
  let mgmt: ControlPlane;
  let guest: ControlPlane;
  let mkc: ClusterAccess;
  let silent: HostileGuest;
  let coordinator: RunningCoordinator | undefined;

  beforeAll(async () => {
    mgmt = await startControlPlane({ crdPaths: hypershiftCRDPaths() });
    guest = await startControlPlane({ etcdURL: mgmt.etcdURL, etcdPrefix: '/silent-writes-honest', crdPaths: upstreamCRDPaths() });
    mkc = readKubeconfigFile(mgmt.kubeconfigPath)!;
    silent = await startHostileGuest('silent-writes');
    for (let i = 0; i < SILENT; i++) {
      await publishHostedControlPlane(mkc, { namespace: `silent-${i}`, name: 'hcp', kubeconfig: silent.kubeconfig(), releaseVersion: '4.22.3' });
    }
  }, 180_000);

  afterAll(async () => {
    await coordinator?.stop();
    await silent?.close();
    await guest?.stop();
    await mgmt?.stop();
  });

  it('the honest guest\'s status is written while every silent guest\'s write still waits', async () => {
    coordinator = await startHosted({
      kubeConfig: mkc, payloadCatalog: join(PAYLOAD_ROOT, 'releases'), namespace: 'default', identity: 'only', shards: 1,
      metricsBindAddress: '0', healthProbeBindAddress: '0', guest: { requestTimeoutMs: 60_000 },
    });
    await coordinator.ready;
    const featureGateWrites = () => silent.requests.filter((r) => r.method !== 'GET' && r.path.includes('/featuregates/')).length;
    await eventually(() => expect(featureGateWrites()).toBeGreaterThanOrEqual(SILENT), 60_000);

    const kc = readKubeconfigFile(guest.kubeconfigPath)!;
    await setClusterVersion(kc, { history: ['4.22.3'] });
    await publishHostedControlPlane(mkc, { namespace: 'honest', name: 'hcp', kubeconfig: readFileSync(guest.kubeconfigPath, 'utf8'), releaseVersion: '4.22.3' });
    const fgs = new ResourceClient(kc, FeatureGateResource);
    await eventually(async () => expect((await fgs.get(FEATURE_GATE_NAME)).status?.featureGates?.map((g) => g.version)).toEqual(['4.22.3']), 45_000);
    expect(silent.writes.givenUp).toBe(0); // no worker came free by a silent write's timeout
    expect(silent.writes.waiting).toBeGreaterThanOrEqual(SILENT);

    await coordinator.stop();
    coordinator = undefined;
    await eventually(() => expect(silent.writes.waiting).toBe(0), 10_000);
  }, 180_000);
});
