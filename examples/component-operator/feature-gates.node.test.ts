// A component's test with node:test on the SDK's local control plane (kube-apiserver + etcd, the
// FeatureGate and ClusterVersion CRDs): the accessor reads this component's version and follows its change.
// Compile with tsc and run `node --test`; feature-gates.jest.test.ts is the same test in Jest.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createFeatureGateAccess, type FeatureGateChange } from 'featuregate-coordinator/sdk';
import {
  bundledCRDPaths, setClusterVersion, setFeatureGateStatus, startControlPlane, type ControlPlane,
} from 'featuregate-coordinator/sdk/testing';

let plane: ControlPlane;
before(async () => { plane = await startControlPlane({ crdPaths: bundledCRDPaths() }); });
after(async () => { await plane?.stop(); });

test('reads the gates of its own version and sees them change', async () => {
  await setClusterVersion(plane.kubeConfig, { history: ['4.22.1', '4.21.3'] });
  await setFeatureGateStatus(plane.kubeConfig, [
    { version: '4.22.1', enabled: ['NewThing'], disabled: ['OldThing'] },
    { version: '4.21.3', enabled: ['OldThing'], disabled: [] },
  ]);
  const changes: FeatureGateChange[] = [];
  const access = createFeatureGateAccess({
    kubeConfig: plane.kubeConfig, desiredVersion: '4.22.1', component: 'example-test',
    onChange: (change) => { changes.push(change); },   // the default, exitOnChange(), would end the test run
  });
  access.start();
  try {
    const gates = await access.waitForInitial({ timeoutMs: 30_000 });
    assert.equal(gates.enabled('NewThing'), true);
    assert.equal(gates.enabled('OldThing'), false);

    await setFeatureGateStatus(plane.kubeConfig, [{ version: '4.22.1', enabled: ['NewThing', 'OldThing'], disabled: [] }]);
    for (let i = 0; i < 300 && changes.length < 2; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(changes.length, 2, 'the first observation, then the change');
    assert.deepEqual(changes[1]?.current.enabledNames, ['NewThing', 'OldThing']);
  } finally {
    await access.stop();
  }
});
