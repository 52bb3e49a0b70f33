// The one-way feature-set ratchet (x-kubernetes-validations), on our CRD and on openshift/api's.
import { describe, expect, it } from '@jest/globals';
import { ApiException, CustomObjectsApi } from '@kubernetes/client-node';
import { CRD_SETS, kubeConfig } from '../support/cluster.js';
import { featureGate, uniqueName } from '../support/objects.js';

const G = { group: 'config.openshift.io', version: 'v1', plural: 'featuregates' };

async function errorOf(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiException) {
      const body = typeof e.body === 'string' ? JSON.parse(e.body) : e.body;
      return { code: e.code, message: String(body.message) };
    }
    throw e;
  }
  throw new Error('expected the API server to reject the write, but it was accepted');
}

describe.each(CRD_SETS)('FeatureGate ratchet on the %s CRD', (set) => {
  const api = kubeConfig(set).makeApiClient(CustomObjectsApi);

  async function createWith(spec: object): Promise<{ name: string; resourceVersion: string }> {
    const name = uniqueName('ratchet');
    const created = await api.createClusterCustomObject({ ...G, body: featureGate(name, spec) });
    return { name, resourceVersion: created.metadata.resourceVersion };
  }

  function replace(name: string, resourceVersion: string, spec: object) {
    return api.replaceClusterCustomObject({ ...G, name, body: { ...featureGate(name, spec), metadata: { name, resourceVersion } } });
  }

  const forbidden: [string, object, object, string][] = [
    ['TechPreviewNoUpgrade → Default', { featureSet: 'TechPreviewNoUpgrade' }, { featureSet: '' }, 'TechPreviewNoUpgrade may not be changed'],
    ['TechPreviewNoUpgrade → CustomNoUpgrade', { featureSet: 'TechPreviewNoUpgrade' }, { featureSet: 'CustomNoUpgrade' }, 'TechPreviewNoUpgrade may not be changed'],
    ['DevPreviewNoUpgrade → Default', { featureSet: 'DevPreviewNoUpgrade' }, { featureSet: '' }, 'DevPreviewNoUpgrade may not be changed'],
    ['CustomNoUpgrade → Default', { featureSet: 'CustomNoUpgrade' }, { featureSet: '' }, 'CustomNoUpgrade may not be changed'],
    ['OKD → Default', { featureSet: 'OKD' }, { featureSet: '' }, 'OKD cannot transition to Default'],
    ['removing spec.featureSet', { featureSet: 'TechPreviewNoUpgrade' }, {}, '.spec.featureSet cannot be removed'],
  ];

  it.each(forbidden)('rejects %s with its exact message', async (_title, from, to, message) => {
    const { name, resourceVersion } = await createWith(from);
    const err = await errorOf(replace(name, resourceVersion, to));
    expect(err.code).toBe(422);
    expect(err.message).toContain(message);
    const stored = await api.getClusterCustomObject({ ...G, name });
    expect(stored.spec).toEqual(from);
  });

  const allowed: [string, object, object][] = [
    ['Default → TechPreviewNoUpgrade', { featureSet: '' }, { featureSet: 'TechPreviewNoUpgrade' }],
    ['Default → DevPreviewNoUpgrade', {}, { featureSet: 'DevPreviewNoUpgrade' }],
    ['Default → CustomNoUpgrade', {}, { featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: ['A'] } }],
    ['Default → OKD', { featureSet: '' }, { featureSet: 'OKD' }],
    ['OKD → TechPreviewNoUpgrade', { featureSet: 'OKD' }, { featureSet: 'TechPreviewNoUpgrade' }],
    ['editing customNoUpgrade lists under CustomNoUpgrade',
      { featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: ['A'], disabled: ['B'] } },
      { featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: ['B', 'C.example.com'], disabled: ['A'] } }],
  ];

  it.each(allowed)('accepts %s', async (_title, from, to) => {
    const { name, resourceVersion } = await createWith(from);
    const updated = await replace(name, resourceVersion, to);
    expect(updated.spec).toEqual(to);
  });

  it('rejects an unknown feature set and a malformed gate name', async () => {
    const name = uniqueName('ratchet');
    const bad = await errorOf(api.createClusterCustomObject({ ...G, body: featureGate(name, { featureSet: 'LatencySensitive' }) }));
    expect(bad.code).toBe(422);
    expect(bad.message).toContain('spec.featureSet');
    const badName = await errorOf(api.createClusterCustomObject({
      ...G, body: featureGate(name, { featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: ['no spaces allowed'] } }),
    }));
    expect(badName.code).toBe(422);
    expect(badName.message).toContain('spec.customNoUpgrade.enabled[0]');
  });
});
