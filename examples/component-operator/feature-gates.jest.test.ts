// The same test as feature-gates.node.test.ts, in Jest (ESM: jest.config.js beside this file, run with
// `node --experimental-vm-modules node_modules/jest/bin/jest.js`). One control plane per test file.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createFeatureGateAccess, type FeatureGateChange } from 'featuregate-coordinator/sdk';
import {
  bundledCRDPaths, setClusterVersion, setFeatureGateStatus, startControlPlane, type ControlPlane,
} from 'featuregate-coordinator/sdk/testing';

let plane: ControlPlane;
beforeAll(async () => { plane = await startControlPlane({ crdPaths: bundledCRDPaths() }); }, 120_000);
afterAll(async () => { await plane?.stop(); });

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
    expect(gates.enabled('NewThing')).toBe(true);
    expect(gates.enabled('OldThing')).toBe(false);

    await setFeatureGateStatus(plane.kubeConfig, [{ version: '4.22.1', enabled: ['NewThing', 'OldThing'], disabled: [] }]);
    for (let i = 0; i < 300 && changes.length < 2; i++) await new Promise((r) => setTimeout(r, 100));
    expect(changes).toHaveLength(2);   // the first observation, then the change
    expect(changes[1]?.current.enabledNames).toEqual(['NewThing', 'OldThing']);
  } finally {
    await access.stop();
  }
}, 60_000);
