// Past etcd's request limit (1.5 MiB): a status that would no longer fit is never sent — the operator reports
// Degraded with the size and the limit, and the stored status stays exactly as it was (nothing half-written).
// On a real kube-apiserver and etcd, with a synthetic payload of 2000 gates so that a handful of versions
// reach the limit (docs/benchmarks.md: at 265 gates that is ~160 versions).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ETCD_REQUEST_LIMIT_BYTES, serializedSizeBytes } from '../../api-types/index.js';
import { ClusterOperatorResource, FeatureGateResource, ResourceClient } from '../../runtime/index.js';
import { bundledCRDPaths, setClusterVersion, setFeatureGateStatus, setFeatureGateSpec, startControlPlane, type ControlPlane } from '../../sdk/testing/index.js';
import { spawnCLI } from '../support/cli.js';
import { eventually } from '../support/timing.js';
import { tempDirs } from '../support/temp.js';

const tempDir = tempDirs();
const names = Array.from({ length: 2000 }, (_, i) => `SyntheticUpstreamFeatureGate${String(i).padStart(4, '0')}`);
const enabled = names.filter((_, i) => i % 3 === 0);
const disabled = names.filter((_, i) => i % 3 !== 0);
const version = (i: number) => `4.${100 - i}.0`;
let plane: ControlPlane;

beforeAll(async () => { plane = await startControlPlane({ crdPaths: bundledCRDPaths() }); }, 90_000);
afterAll(async () => { await plane?.stop(); });

describe('status size guard', () => {
  it('refuses the write that would cross the limit, reports Degraded with the size and the limit, leaves the stored status alone', async () => {
    const payload = tempDir('fgc-size-');
    writeFileSync(join(payload, 'featureGate-Default.yaml'), JSON.stringify({ apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', metadata: { name: 'cluster' }, spec: {},
      status: { featureGates: [{ version: '', enabled: enabled.map((name) => ({ name })), disabled: disabled.map((name) => ({ name })) }] } }));
    // As many stored versions as fit with room to spare; the operator's own (new) version does not fit beside them.
    const entry = (v: string) => ({ version: v, enabled, disabled });
    const wire = (v: string) => ({ version: v, enabled: enabled.map((name) => ({ name })), disabled: disabled.map((name) => ({ name })) });
    let stored = 1;
    while (
      serializedSizeBytes({ status: { featureGates: Array.from({ length: stored + 1 }, (_, i) => wire(version(i + 1))) } }) <
      ETCD_REQUEST_LIMIT_BYTES - 40_000
    )
      stored++;
    await setFeatureGateSpec(plane.kubeConfig, {});
    await setFeatureGateStatus(plane.kubeConfig, Array.from({ length: stored }, (_, i) => entry(version(i + 1))));
    await setClusterVersion(plane.kubeConfig, { history: [{ version: version(0), state: 'Partial' }, ...Array.from({ length: stored }, (_, i) => version(i + 1))] });
    const fgs = new ResourceClient(plane.kubeConfig, FeatureGateResource);
    const before = await fgs.get('cluster');
    expect(before.status?.featureGates).toHaveLength(stored);

    const op = spawnCLI(['operator', '--kubeconfig', plane.kubeconfigPath, '--operator-version', version(0), '--authoritative-feature-gate-dir', payload,
      '--metrics-bind-address', '0', '--health-probe-bind-address', '0', '--degraded-inertia', '0s'], { POD_NAMESPACE: 'default' });
    let log = '';
    op.stderr!.on('data', (d: Buffer) => { log += d.toString(); });
    try {
      const degraded = async () => (await new ResourceClient(plane.kubeConfig, ClusterOperatorResource).get('config-operator')).status?.conditions?.find((c) => c.type === 'Degraded');
      await eventually(async () => expect(await degraded()).toMatchObject({
        status: 'True',
        message: expect.stringMatching(new RegExp(`FeatureGate/cluster would be \\d+ bytes with ${stored + 1} versions in status, over the ${ETCD_REQUEST_LIMIT_BYTES}-byte request limit; not written`)),
      }), 60_000, 300).catch((e: Error) => { throw new Error(`${e.message}\n${log.slice(-2000)}`); });
      const after = await fgs.get('cluster');
      expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
      expect(after.status).toEqual(before.status);
      expect(op.exitCode).toBeNull();
    } finally {
      await new Promise((r) => { op.once('exit', r); op.kill('SIGTERM'); });
    }
  }, 120_000);
});
