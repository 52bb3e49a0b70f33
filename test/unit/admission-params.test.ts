// The admission policy's params: one key per payload version, pruned with ClusterVersion history.
import { describe, expect, it } from '@jest/globals';
import { desiredKnownGatesData, gateSpecAt, gatesThatStartParams, kubeletConfigRules, kubeletStartParams, kubernetesGateRules } from '../../api-types/index.js';

describe('desiredKnownGatesData', () => {
  it('writes this version\'s names sorted, keeps versions still in history and foreign keys, drops the rest', () => {
    expect(desiredKnownGatesData(undefined, '4.22.0', ['B', 'A', 'B'], ['4.22.0'])).toEqual({ 'gates.4.22.0': 'A,B' });
    const current = { 'gates.4.21.0': 'A', 'gates.4.20.0': 'Z', note: 'kept' };
    expect(desiredKnownGatesData(current, '4.22.0', ['A', 'C'], ['4.22.0', '4.21.0'])).toEqual({ 'gates.4.21.0': 'A', note: 'kept', 'gates.4.22.0': 'A,C' });
  });

  it('says "no change" when the data is already right (no write)', () => {
    expect(desiredKnownGatesData({ 'gates.4.22.0': 'A,B' }, '4.22.0', ['B', 'A'], ['4.22.0'])).toBeUndefined();
    // its own version is kept even before it appears in history (the operator of a new version runs first)
    expect(desiredKnownGatesData({ 'gates.4.23.0': 'A' }, '4.23.0', ['A'], ['4.22.0'])).toBeUndefined();
  });
});

describe('gatesThatStartParams', () => {
  it('carries, for the API server\'s Kubernetes version, the settings locks refuse, the gates not there yet, what is on before the lists, and the dependencies', () => {
    const p = gatesThatStartParams(kubernetesGateRules('1.36'), { enabled: ['ClusterTrustBundle'], disabled: ['WatchListClient'] });
    expect([p['start.kubernetes'], p['start.emulated'], p['start.minCompatibility']]).toEqual(['1.36.3', '1.36', '1.35']);
    const list = (k: string) => p[k]!.split(',');
    expect(list('start.refused')).toEqual(expect.arrayContaining(['ServiceAccountTokenNodeBinding=false', 'MutableCSINodeAllocatableCount=false']));
    expect(list('start.refused')).not.toContain('WatchListClient=false'); // WatchListClient is not locked
    // On before the lists: the payload's Default set where it names a gate, else Kubernetes' default.
    expect(list('start.on')).toContain('ClusterTrustBundle'); // off in Kubernetes 1.36, on in this base
    expect(list('start.on')).not.toContain('WatchListClient'); // on in Kubernetes 1.36, off in this base
    expect(list('start.dependencies')).toContain('ProcMountType:UserNamespacesSupport');
    expect(list('start.dependencies')).toContain('DRADeviceBindingConditions:DynamicResourceAllocation|DRAResourceClaimDeviceStatus');
    // At a binary's own minor every gate it has exists (PreAlpha is for emulated versions below it).
    expect(p['start.prealpha']).toBe('');
    const rules = kubernetesGateRules('1.36');
    expect(Object.keys(rules.gates).every((g) => gateSpecAt(rules, g, '1.36')!.preRelease !== 'PreAlpha')).toBe(true);
  });

  it('are written beside the known gates and replaced whole; without them none are kept', () => {
    const start = { 'start.kubernetes': '1.36.3', 'start.on': 'A' };
    const data = desiredKnownGatesData({ 'start.stale': 'x', 'gates.4.22.0': 'A' }, '4.22.0', ['A'], ['4.22.0'], start);
    expect(data).toEqual({ 'gates.4.22.0': 'A', ...start });
    expect(desiredKnownGatesData(data, '4.22.0', ['A'], ['4.22.0'], start)).toBeUndefined();
    expect(desiredKnownGatesData(data, '4.22.0', ['A'], ['4.22.0'])).toEqual({ 'gates.4.22.0': 'A' });
  });
});

describe('kubeletStartParams (issue 65)', () => {
  const cfg = (fields: Record<string, unknown>) => ({ fields, featureGates: new Map<string, boolean>() });
  it('names each single setting some nodes\' kubelets refuse with their configuration, with the field and the nodes; none for defaults', () => {
    const rules = kubernetesGateRules('1.36');
    expect(kubeletStartParams(rules, kubeletConfigRules('1.36'), [{ nodes: ['a', 'b'], configuration: cfg({}) }])).toEqual({ 'start.kubelet': '' });
    const many = Array.from({ length: 7 }, (_, i) => `w${i}`);
    const p = kubeletStartParams(rules, kubeletConfigRules('1.36'), [
      { nodes: many, configuration: cfg({ imagePullCredentialsVerificationPolicy: 'AlwaysVerify' }) },
      { nodes: ['x'], configuration: cfg({ shutdownGracePeriod: '30s', shutdownGracePeriodCriticalPods: '10s' }) },
    ])['start.kubelet']!;
    expect(p.split(',')).toEqual([
      'GracefulNodeShutdown=false|shutdownGracePeriod+shutdownGracePeriodCriticalPods|x',
      'KubeletEnsureSecretPulledImages=false|imagePullCredentialsVerificationPolicy|w0 w1 w2 w3 w4 +2',
    ]);
  });
});
