// Per-gate metrics, computed on scrape: the operator's featuregates_feature_enabled{name, version} and the
// SDK's kubernetes_feature_enabled{name, stage}.
import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { registerStatusFeatureMetrics } from '../../runtime/index.js';
import { registerFeatureGateMetrics, testingFeatureGateAccess } from '../../sdk/index.js';

describe('registerFeatureGateMetrics (SDK)', () => {
  it('exports nothing before the first observation, then one series per gate, as Kubernetes components do', async () => {
    const registry = new Registry();
    const access = testingFeatureGateAccess({ enabled: ['On'], disabled: ['Off'] });
    registerFeatureGateMetrics(registry, access);
    registerFeatureGateMetrics(registry, access); // idempotent
    expect(await registry.metrics()).not.toContain('kubernetes_feature_enabled{');
    access.setReady();
    const text = await registry.metrics();
    expect(text).toContain('kubernetes_feature_enabled{name="On",stage=""} 1');
    expect(text).toContain('kubernetes_feature_enabled{name="Off",stage=""} 0');
  });
});

describe('featuregates_feature_enabled (operator)', () => {
  it('follows the status entries at each scrape, dropping versions that left', async () => {
    const registry = new Registry();
    let entries = [
      { version: '4.22.0', enabled: [{ name: 'A' }], disabled: [{ name: 'B' }] },
      { version: '4.21.0', enabled: [], disabled: [{ name: 'A' }] },
    ];
    registerStatusFeatureMetrics(registry, () => entries);
    let text = await registry.metrics();
    expect(text).toContain('featuregates_feature_enabled{name="A",version="4.22.0"} 1');
    expect(text).toContain('featuregates_feature_enabled{name="B",version="4.22.0"} 0');
    expect(text).toContain('featuregates_feature_enabled{name="A",version="4.21.0"} 0');
    entries = entries.slice(0, 1);
    text = await registry.metrics();
    expect(text).not.toContain('version="4.21.0"');
  });
});
