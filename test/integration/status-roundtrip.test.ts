// Large statuses written through /status read back unchanged, on our CRDs and openshift/api's.
import { describe, expect, it } from '@jest/globals';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { CRD_SETS, kubeConfig } from '../support/cluster.js';
import { clusterVersion, details, featureGate, historyEntry, uniqueName } from '../support/objects.js';

const CV = { group: 'config.openshift.io', version: 'v1', plural: 'clusterversions' };
const FG = { group: 'config.openshift.io', version: 'v1', plural: 'featuregates' };

describe.each(CRD_SETS)('status round trip on the %s CRDs', (set) => {
  const api = kubeConfig(set).makeApiClient(CustomObjectsApi);

  it('keeps a ClusterVersion with a 100-entry history unchanged', async () => {
    const name = uniqueName('cv');
    const history = Array.from({ length: 100 }, (_, i) =>
      historyEntry(`4.${22 - Math.floor(i / 10)}.${9 - (i % 10)}`, i === 0 ? 'Partial' : 'Completed', 100 - i));
    const cv = clusterVersion(name, history);
    const created = await api.createClusterCustomObject({ ...CV, body: { ...cv, status: undefined } });
    const written = await api.replaceClusterCustomObjectStatus({
      ...CV, name, body: { ...cv, metadata: { name, resourceVersion: created.metadata.resourceVersion } },
    });
    expect(written.status).toEqual(cv.status);
    const read = await api.getClusterCustomObject({ ...CV, name });
    expect(read.status).toEqual(cv.status);
    expect(read.status.history).toHaveLength(100);
    expect(read.status.history[0].completionTime).toBeNull();
  });

  it('keeps a FeatureGate with a multi-version status unchanged', async () => {
    const name = uniqueName('fg');
    const gates = Array.from({ length: 120 }, (_, i) => `Gate${String(i).padStart(3, '0')}`);
    const entries = Array.from({ length: 30 }, (_, v) =>
      details(`4.${20 + (v % 5)}.${v}`, gates.slice(0, 40 + v), gates.slice(40 + v)));
    const fg = { ...featureGate(name, { featureSet: 'TechPreviewNoUpgrade' }), status: { featureGates: entries } };
    const created = await api.createClusterCustomObject({ ...FG, body: featureGate(name, fg.spec) });
    await api.replaceClusterCustomObjectStatus({
      ...FG,
      name,
      body: { ...fg, metadata: { name, resourceVersion: created.metadata.resourceVersion } },
    });
    const read = await api.getClusterCustomObject({ ...FG, name });
    expect(read.status.featureGates).toEqual(entries);
    expect(read.spec).toEqual(fg.spec);
  });

  it('ignores status sent to the main resource (status subresource)', async () => {
    const name = uniqueName('fg');
    const created = await api.createClusterCustomObject({
      ...FG, body: { ...featureGate(name), status: { featureGates: [details('9.9.9', ['A'], [])] } },
    });
    expect(created.status?.featureGates ?? []).toEqual([]);
  });
});
