// The kubelet's configuration rules (api-types/kubelet-config.ts) on the refusals ../shared/reference/kubelet-config-rules.md
// records from the real kubelets v1.36.3 and v1.37.2, on both routes the kubelet takes its gates by, and as properties.
// The binaries judge a corpus in test/integration/kubelet-config-oracle.test.ts.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  DecodeError,
  GateRulesError,
  checkKubeletConfiguration,
  configurationOfRunningKubelet,
  decodeKubeletConfiguration,
  fieldsTheRulesRead,
  goDurationMs,
  groupNodeConfigurations,
  kubeletConfigRules,
  supportedKubernetesMinors,
  type KubeletGateRoute,
} from '../../api-types/index.js';

const gates = (o: Record<string, boolean>) => new Map(Object.entries(o));
const config = (o: Record<string, unknown>) => decodeKubeletConfiguration({ apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', ...o });
const check = (kubernetesVersion: string, g: Record<string, boolean>, route: KubeletGateRoute, c?: Record<string, unknown>) =>
  checkKubeletConfiguration({ kubernetesVersion, gates: gates(g), route, ...(c ? { configuration: config(c) } : {}) });

describe('the kubelet\'s configuration rules', () => {
  it('are generated for every minor the gate rules support', () => {
    for (const minor of supportedKubernetesMinors()) expect(kubeletConfigRules(minor).kubernetesVersion.startsWith(`${minor}.`)).toBe(true);
    expect(() => kubeletConfigRules('1.32')).toThrow(GateRulesError);
    const gatesNamed = new Set(kubeletConfigRules('1.37').requires.map((r) => r.gate));
    for (const g of ['KubeletCrashLoopBackOffMax', 'KubeletEnsureSecretPulledImages', 'NodeSwap', 'DefaultPodSysctls', 'CustomCPUCFSQuotaPeriod']) expect(gatesNamed.has(g)).toBe(true);
  });

  it('KubeletCrashLoopBackOffMax=false by flag, default configuration: the defaulted field is refused (1.36 and 1.37)', () => {
    for (const v of ['1.36', '1.37']) {
      const p = check(v, { KubeletCrashLoopBackOffMax: false }, 'flag');
      expect(p.map((x) => [x.kind, x.gate, x.field])).toEqual([['config', 'KubeletCrashLoopBackOffMax', 'crashLoopBackOff.maxContainerRestartPeriod']]);
      expect(p[0]!.message).toBe('invalid configuration: FeatureGate KubeletCrashLoopBackOffMax not enabled, CrashLoopBackOff.MaxContainerRestartPeriod must not be set');
      expect(p[0]!.fix).toContain('run the kubelet with a configuration file (--config');
    }
  });

  it('AllBeta=false by flag at 1.37 also leaves imagePullCredentialsVerificationPolicy set', () => {
    expect(check('1.37', { AllBeta: false }, 'flag').map((p) => p.gate).sort()).toEqual(['KubeletCrashLoopBackOffMax', 'KubeletEnsureSecretPulledImages']);
  });

  it('the same gates in the file\'s featureGates: defaulting sees them, nothing is refused', () => {
    expect(check('1.36', { KubeletCrashLoopBackOffMax: false }, 'file')).toEqual([]);
    expect(check('1.37', { AllBeta: false }, 'file')).toEqual([]);
    expect(check('1.37', {}, 'flag', { featureGates: { KubeletCrashLoopBackOffMax: false } })).toEqual([]); // a file's own gates, no flag
  });

  it('--feature-gates beside a file: defaulting lets the file\'s gates win, validation the flag\'s', () => {
    // the file turns the gate off (no default set), the flag turns it on for validation: the field is missing
    const p = check('1.36', { KubeletCrashLoopBackOffMax: true }, 'flag', { featureGates: { KubeletCrashLoopBackOffMax: false } });
    expect(p.map((x) => x.message)).toEqual(['invalid configuration: FeatureGate KubeletCrashLoopBackOffMax is enabled, CrashLoopBackOff.MaxContainerRestartPeriod must be set']);
    expect(check('1.36', { NodeSwap: true }, 'flag', { featureGates: { KubeletCrashLoopBackOffMax: false } })).toEqual([]); // the file's gates are kept
  });

  it('fields a configuration sets that need a gate', () => {
    expect(check('1.36', { NodeSwap: false }, 'file', { memorySwap: { swapBehavior: 'LimitedSwap' } }).map((p) => p.message))
      .toEqual(['invalid configuration: memorySwap.swapBehavior cannot be set when NodeSwap feature flag is disabled']);
    expect(check('1.36', {}, 'file', { memorySwap: {} })).toEqual([]);
    expect(check('1.37', { DefaultPodSysctls: false }, 'file', { defaultPodSysctls: { 'net.ipv4.ip_forward': '1' } }).map((p) => p.field)).toEqual(['defaultPodSysctls']);
    // a map with an entry is not empty whatever its values (Go's len): the oracle found "0" taken for a zero duration
    expect(check('1.37', { DefaultPodSysctls: false }, 'file', { defaultPodSysctls: { 'net.ipv4.ip_unprivileged_port_start': '0' } }).map((p) => p.field)).toEqual(['defaultPodSysctls']);
    expect(check('1.37', { DefaultPodSysctls: false }, 'file', { defaultPodSysctls: {} })).toEqual([]);
    expect(check('1.36', { CustomCPUCFSQuotaPeriod: false }, 'file', { cpuCFSQuotaPeriod: '50ms' })[0]!.message)
      .toBe('invalid configuration: cpuCFSQuotaPeriod (--cpu-cfs-quota-period) 50ms requires feature gate CustomCPUCFSQuotaPeriod');
    expect(check('1.36', {}, 'file', { cpuCFSQuotaPeriod: '100ms' })).toEqual([]); // the default, written out
    expect(check('1.36', { GracefulNodeShutdown: true }, 'file', { shutdownGracePeriod: '30s' })).toEqual([]);
  });

  it('an explicitly set field a gate must not see is refused on every route', () => {
    for (const route of ['flag', 'file'] as const) {
      expect(check('1.37', { KubeletEnsureSecretPulledImages: false }, route, { imagePullCredentialsVerificationPolicy: 'AlwaysVerify' }).map((p) => p.gate))
        .toEqual(['KubeletEnsureSecretPulledImages']);
    }
  });

  it('a field the kubelet defaults whatever the gates is never missing (memoryThrottlingFactor at 1.36)', () => {
    expect(check('1.36', { MemoryQoS: true }, 'file')).toEqual([]);
  });

  it('decodes untrusted configurations with the field path in its errors', () => {
    expect(() => decodeKubeletConfiguration({ apiVersion: 'v1' })).toThrow(new DecodeError('apiVersion', 'expected "kubelet.config.k8s.io/v1beta1", got "v1"'));
    expect(() => decodeKubeletConfiguration({ featureGates: { A: 'yes' } })).toThrow('featureGates.A: expected boolean, got string');
    expect(() => decodeKubeletConfiguration([])).toThrow('<root>: expected object, got array');
    // a node's /configz answer
    expect([...decodeKubeletConfiguration({ kubeletconfig: { featureGates: { NodeSwap: true } } }).featureGates]).toEqual([['NodeSwap', true]]);
    expect(() => decodeKubeletConfiguration({ kubeletconfig: 3 })).toThrow('kubeletconfig: expected object, got number');
  });

  it('a running kubelet\'s /configz: its gated defaults and featureGates are taken out, what it sets itself stays', () => {
    const configz = decodeKubeletConfiguration({ kubeletconfig: {
      port: 10250, crashLoopBackOff: { maxContainerRestartPeriod: '5m0s' }, imagePullCredentialsVerificationPolicy: 'AlwaysVerify',
      featureGates: { KubeletCrashLoopBackOffMax: true },
    } });
    const c = configurationOfRunningKubelet(configz, '1.36');
    expect(c.fields).toEqual({ port: 10250, crashLoopBackOff: {}, imagePullCredentialsVerificationPolicy: 'AlwaysVerify' });
    expect(c.featureGates.size).toBe(0);
    // a value other than the default was set by someone: kept
    const own = configurationOfRunningKubelet(decodeKubeletConfiguration({ kubeletconfig: { crashLoopBackOff: { maxContainerRestartPeriod: '1m0s' } } }), '1.36');
    expect(own.fields).toEqual({ crashLoopBackOff: { maxContainerRestartPeriod: '1m0s' } });
  });

  it('groups nodes by what the rules read of their configurations (ports and paths apart)', () => {
    const fields = fieldsTheRulesRead(kubeletConfigRules('1.36'));
    expect(fields).toContain('imagePullCredentialsVerificationPolicy');
    expect(fields).not.toContain('port');
    const node = (name: string, o: Record<string, unknown>) => ({ node: name, configuration: decodeKubeletConfiguration(o) });
    const groups = groupNodeConfigurations([node('c', { port: 1, memorySwap: { swapBehavior: 'LimitedSwap' } }), node('b', { port: 2 }), node('a', { port: 3 })], fields);
    expect(groups.map((g) => [g.nodes, g.configuration.fields])).toEqual([[['a', 'b'], {}], [['c'], { memorySwap: { swapBehavior: 'LimitedSwap' } }]]);
  });

  it('reads Go durations', () => {
    expect([goDurationMs('100ms'), goDurationMs('5m0s'), goDurationMs('1h30m'), goDurationMs('0s'), goDurationMs('1.5s'), goDurationMs('soon')])
      .toEqual([100, 300_000, 5_400_000, 0, 1500, undefined]);
  });

  it('property: with every gate at its default and no configuration, no kubelet of any minor refuses on any route', () => {
    fc.assert(fc.property(fc.constantFrom(...supportedKubernetesMinors()), fc.constantFrom<KubeletGateRoute>('flag', 'file'),
      (v, route) => check(v, {}, route).length === 0));
  });

  it('property: the file route never refuses a default configuration, whatever single gate is set', () => {
    const names = [...new Set(supportedKubernetesMinors().flatMap((v) => kubeletConfigRules(v).requires.map((r) => r.gate)))];
    fc.assert(fc.property(fc.constantFrom(...supportedKubernetesMinors()), fc.constantFrom(...names), fc.boolean(),
      (v, gate, value) => check(v, { [gate]: value }, 'file').every((p) => p.kind === 'config' && p.gate === gate && !/must not be set/.test(p.message))));
  });
});
