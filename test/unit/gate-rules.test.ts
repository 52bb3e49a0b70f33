// Kubernetes' rules for `--feature-gates` (api-types/gate-rules.ts) on the examples of ../shared/reference/gate-rules.md
// — the exact messages the real kube-apiserver v1.36.3 gave — and as properties over every supported minor. The
// binaries themselves judge a larger corpus in test/integration/gate-rules-oracle.test.ts.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  GateRulesError,
  checkFeatureGates,
  gateSpecAt,
  kubernetesGateRules,
  kubernetesOfOpenShift,
  parseGateFlag,
  preflight,
  supportedKubernetesMinors,
} from '../../api-types/index.js';

const check = (gates: Record<string, boolean>, emulatedVersion?: string, kubernetesVersion = '1.36') =>
  checkFeatureGates({ kubernetesVersion, gates, ...(emulatedVersion ? { emulatedVersion } : {}) });

describe('checkFeatureGates, with the real binary\'s words', () => {
  it('supports Kubernetes 1.33 to 1.37, from each release\'s own files', () => {
    expect(supportedKubernetesMinors()).toEqual(['1.33', '1.34', '1.35', '1.36', '1.37']);
    expect(kubernetesGateRules('1.36.3').kubernetesVersion).toBe('1.36.3');
    expect(Object.keys(kubernetesGateRules('1.36').gates)).toHaveLength(230 + 10); // versioned_feature_list.yaml + client-go's
    expect(() => kubernetesGateRules('1.32')).toThrow('no feature-gate rules for Kubernetes 1.32; this build knows 1.33, 1.34, 1.35, 1.36, 1.37');
  });

  it('a locked gate set to the other value', () => {
    const r = check({ MutableCSINodeAllocatableCount: false, ServiceAccountTokenNodeBinding: false });
    expect(r.starts).toBe(false);
    expect(r.problems.map((p) => p.message)).toEqual([
      'cannot set feature gate MutableCSINodeAllocatableCount to false, feature is locked to true',
      'cannot set feature gate ServiceAccountTokenNodeBinding to false, feature is locked to true',
    ]);
    expect(check({ MutableCSINodeAllocatableCount: true }).starts).toBe(true);
  });

  it('a gate on by default whose dependency was turned off, at the emulated version', () => {
    const r = check({ UserNamespacesSupport: false }, '1.35');
    expect(r.problems).toEqual([{ gate: 'ProcMountType', kind: 'dependency',
      message: 'ProcMountType is enabled, but depends on features that are disabled: [UserNamespacesSupport]',
      fix: 'enable UserNamespacesSupport, or disable ProcMountType (on by default at 1.35)' }]);
    // At 1.36 UserNamespacesSupport is locked: the lock is the refusal, and dependencies are not looked at then.
    expect(check({ UserNamespacesSupport: false }).problems.map((p) => p.kind)).toEqual(['locked']);
  });

  it('a gate not there yet at the emulated version, whichever value', () => {
    expect(check({ CRIListStreaming: true }, '1.35').problems.map((p) => p.message)).toEqual([
      'cannot set feature gate CRIListStreaming to true, feature is PreAlpha at emulated version 1.35, min compatibility version 1.34']);
    expect(check({ CRIListStreaming: false }, '1.35').problems.map((p) => p.kind)).toEqual(['pre-alpha']);
  });

  it('an unknown name: refused by a vanilla component, ignored by OpenShift\'s', () => {
    expect(check({ NoSuchGate: true }).problems.map((p) => p.message)).toEqual(['unrecognized feature gate: NoSuchGate']);
    const os = checkFeatureGates({ kubernetesVersion: '1.36', flavor: 'openshift', gates: { NoSuchGate: true, GatewayAPI: true } });
    expect(os).toMatchObject({ starts: true, ignored: ['GatewayAPI', 'NoSuchGate'] });
  });

  it('AllAlpha / AllBeta set the gates of that stage that are not named', () => {
    const allBetaOff = check({ AllBeta: false });
    // Beta gates on by default go off; a Beta gate a GA gate depends on would be refused (Kubernetes forbids that shape).
    expect(allBetaOff.problems.every((p) => p.kind === 'dependency')).toBe(true);
    const named = check({ AllBeta: false, ...Object.fromEntries(allBetaOff.problems.flatMap((p) => /\[(.*)\]/.exec(p.message)![1]!.split(' ')).map((d) => [d, true])) });
    expect(named.starts).toBe(true);
  });

  it('the emulated version must be in the binary\'s range', () => {
    expect(() => check({}, '1.32')).toThrow(GateRulesError);
    expect(() => check({}, '1.37')).toThrow('emulated version 1.37 is not between [1.33, 1.36] (Kubernetes 1.36)');
  });
});

describe('properties over every supported minor', () => {
  const minors = supportedKubernetesMinors();
  const arb = fc.constantFrom(...minors).chain((m) => {
    const [, minor] = m.split('.').map(Number);
    const emulated = fc.integer({ min: Math.max(33, minor! - 3), max: minor! }).map((e) => `1.${e}`);
    return fc.tuple(fc.constant(m), emulated);
  });

  it('the defaults always start, and every gate set to its value in force starts too', () => {
    fc.assert(fc.property(arb, ([m, e]) => {
      expect(check({}, e, m).starts).toBe(true);
      const rules = kubernetesGateRules(m);
      const defaults: Record<string, boolean> = {};
      for (const g of Object.keys(rules.gates)) {
        const spec = gateSpecAt(rules, g, e)!;
        if (spec.preRelease !== 'PreAlpha') defaults[g] = spec.default;
      }
      expect(check(defaults, e, m).problems).toEqual([]);
    }), { numRuns: 30 });
  });

  it('flipping any locked gate is refused and names exactly that gate; naming it at its value never is', () => {
    fc.assert(fc.property(arb, fc.nat(), ([m, e], i) => {
      const rules = kubernetesGateRules(m);
      const locked = Object.keys(rules.gates).filter((g) => gateSpecAt(rules, g, e)!.lockToDefault);
      fc.pre(locked.length > 0);
      const g = locked[i % locked.length]!;
      const value = gateSpecAt(rules, g, e)!.default;
      expect(check({ [g]: !value }, e, m).problems.map((p) => `${p.kind}:${p.gate}`)).toEqual([`locked:${g}`]);
      expect(check({ [g]: value }, e, m).problems.filter((p) => p.gate === g && p.kind === 'locked')).toEqual([]);
    }), { numRuns: 60 });
  });

  it('any gate set: a verdict, problems only of the four kinds, and dependency problems only when nothing else is wrong', () => {
    fc.assert(fc.property(arb, fc.array(fc.tuple(fc.nat(), fc.boolean()), { maxLength: 8 }), fc.boolean(), ([m, e], picks, typo) => {
      const names = Object.keys(kubernetesGateRules(m).gates);
      const gates = Object.fromEntries(picks.map(([i, v]) => [names[i % names.length]!, v]));
      if (typo) gates.NoSuchGateAtAll = true;
      const r = check(gates, e, m);
      expect(r.starts).toBe(r.problems.length === 0);
      const kinds = new Set(r.problems.map((p) => p.kind));
      if (kinds.has('dependency')) expect([...kinds]).toEqual(['dependency']);
      if (typo) expect(r.problems.some((p) => p.kind === 'unknown' && p.gate === 'NoSuchGateAtAll')).toBe(true);
      for (const p of r.problems) expect(p.fix.length).toBeGreaterThan(0);
    }), { numRuns: 200 });
  });
});

describe('preflight\'s inputs', () => {
  it('parses the flag as component-base does, and refuses what is not NAME=bool', () => {
    expect([...parseGateFlag(' A=true, B=False ,')]).toEqual([['A', true], ['B', false]]);
    expect(() => parseGateFlag('A')).toThrow('"A" is not NAME=true|false');
    expect(() => parseGateFlag('A=yes')).toThrow('invalid value of A: "yes", expected true or false');
  });

  it('one report for the four components; OpenShift minors map to Kubernetes only where a source says so', () => {
    const r = preflight({ kubernetesVersion: '1.36', flavor: 'vanilla', gates: new Map([['MutableCSINodeAllocatableCount', false]]) });
    expect(r.components.map((c) => `${c.name}:${c.starts}`)).toEqual(['kube-apiserver:false', 'kube-controller-manager:false', 'kube-scheduler:false', 'kubelet:false']);
    expect(kubernetesOfOpenShift('4.21.3')).toBe('1.34');
    expect(kubernetesOfOpenShift('4.22.0-rc.1')).toBe('1.35');
    expect(kubernetesOfOpenShift('5.0.2')).toBe('1.36');
    // 4.23 and 5.1: their branches had no commit of their own when read: not known, never guessed; a flag's pair wins.
    expect(() => kubernetesOfOpenShift('5.1.0')).toThrow('which Kubernetes minor OpenShift 5.1 runs is not known to this build');
    expect(() => kubernetesOfOpenShift('4.23.1')).toThrow('name it with --kubernetes-version');
    expect(kubernetesOfOpenShift('4.23.1', { '4.23': '1.36' })).toBe('1.36');
    expect(kubernetesOfOpenShift('4.22.1', { '4.22': '1.36' })).toBe('1.36');
  });
});

describe('per component', () => {
  it('kube-scheduler lacks the controller-manager gates the others register (its v1.36.3 binary refuses them)', () => {
    const gates = { ControllerManagerReleaseLeaderElectionLockOnExit: true };
    for (const component of ['kube-apiserver', 'kube-controller-manager', 'kubelet'] as const) {
      expect(checkFeatureGates({ kubernetesVersion: '1.36', component, gates }).starts).toBe(true);
    }
    expect(checkFeatureGates({ kubernetesVersion: '1.36', component: 'kube-scheduler', gates }).problems).toEqual([{
      gate: 'ControllerManagerReleaseLeaderElectionLockOnExit', kind: 'unknown', message: 'unrecognized feature gate: ControllerManagerReleaseLeaderElectionLockOnExit',
      fix: 'drop ControllerManagerReleaseLeaderElectionLockOnExit from kube-scheduler\'s flags: it is a controller-manager gate that kube-scheduler does not register',
    }]);
    expect(preflight({ kubernetesVersion: '1.36', flavor: 'vanilla', gates: new Map(Object.entries(gates)) }).components.map((c) => `${c.name}:${c.starts}`))
      .toEqual(['kube-apiserver:true', 'kube-controller-manager:true', 'kube-scheduler:false', 'kubelet:true']);
  });
});
