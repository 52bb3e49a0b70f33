// The SDK's pure parts: FeatureGates, static accessors, exitOnChange, operand rendering and the parser.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  FeatureGates, exitOnChange, featureGateAccessFromObject, parseFeatureGates, renderKubeAPIServerArgs, renderKubeletFeatureGates,
  staticFeatureGateAccess, testingFeatureGateAccess,
} from '../../sdk/index.js';

describe('FeatureGates', () => {
  const g = new FeatureGates(['B', 'A'], ['C', 'A']);

  it('answers enabled/has/known and lists names byte-sorted; enabled wins over disabled', () => {
    expect(g.enabled('A')).toBe(true);
    expect(g.enabled('C')).toBe(false);
    expect(g.has('Z')).toBe(false);
    expect(g.known()).toEqual(['A', 'B', 'C']);
    expect(g.enabledNames).toEqual(['A', 'B']);
    expect(Object.isFrozen(g) && Object.isFrozen(g.enabledNames)).toBe(true);
  });

  it('throws for an unknown name with the upstream message', () => {
    expect(() => g.enabled('Nope')).toThrow('feature "Nope" is not registered in FeatureGates [A B C]');
  });

  it('treats reordering as no change', () => {
    expect(new FeatureGates(['X', 'Y'], ['Z']).equals(new FeatureGates(['Y', 'X'], ['Z']))).toBe(true);
    expect(new FeatureGates(['X'], ['Z']).equals(new FeatureGates(['Z'], ['X']))).toBe(false);
  });
});

describe('static accessors', () => {
  it('staticFeatureGateAccess is ready at once', async () => {
    const a = staticFeatureGateAccess({ enabled: ['A'], disabled: ['B'] });
    expect(a.isReady()).toBe(true);
    expect((await a.waitForInitial()).enabled('A')).toBe(true);
  });

  it('featureGateAccessFromObject picks the exact version or fails with the upstream message', () => {
    const fg = {
      apiVersion: 'config.openshift.io/v1' as const, kind: 'FeatureGate' as const, metadata: { name: 'cluster' }, spec: {},
      status: { featureGates: [{ version: '4.22.1', enabled: [{ name: 'A' }], disabled: [] }, { version: '4.22.1', enabled: [], disabled: [{ name: 'A' }] }] },
    };
    expect(featureGateAccessFromObject(fg, '4.22.1').current().enabled('A')).toBe(true);
    expect(() => featureGateAccessFromObject(fg, '4.22')).toThrow('unable to determine features: missing desired version "4.22" in featuregates.config.openshift.io/cluster');
  });

  it('testingFeatureGateAccess: the test controls readiness and the read error', async () => {
    const a = testingFeatureGateAccess({ enabled: ['A'], disabled: [] });
    expect(() => a.current()).toThrow('featureGates not yet observed');
    await expect(a.waitForInitial({ timeoutMs: 10 })).rejects.toThrow('timed out waiting for FeatureGate detection');
    const waiting = a.waitForInitial();
    a.setReady();
    expect((await waiting).enabled('A')).toBe(true);
    a.setReadError(new Error('boom'));
    expect(() => a.current()).toThrow('boom');
    const ac = new AbortController();
    const b = testingFeatureGateAccess({ enabled: [], disabled: [] });
    const p = b.waitForInitial({ signal: ac.signal });
    ac.abort(new Error('cancelled'));
    await expect(p).rejects.toThrow('cancelled');
  });
});

describe('exitOnChange', () => {
  it('ignores the first observation, then runs hooks in order and exits 0 once', async () => {
    const calls: string[] = [];
    const h = exitOnChange({ beforeExit: [() => { calls.push('a'); }, async () => { calls.push('b'); throw new Error('x'); }, () => { calls.push('c'); }],
      exit: (code) => calls.push(`exit ${code}`), log: () => undefined, jitterMs: 20 });
    const g1 = new FeatureGates(['A'], ['B']);
    const g2 = new FeatureGates(['A', 'B'], []);
    await h({ previous: undefined, current: g1 });
    expect(calls).toEqual([]);
    await h({ previous: g1, current: g2 });
    await h({ previous: g2, current: g1 });
    expect(calls).toEqual(['a', 'b', 'c', 'exit 0']);
  });
});

describe('operand rendering', () => {
  const gates = new FeatureGates(['B', 'a', 'C'], ['D', 'E']);

  it('renders repeated --feature-gates arguments in byte order of names', () => {
    expect(renderKubeAPIServerArgs(gates)).toEqual([
      '--feature-gates=B=true', '--feature-gates=C=true', '--feature-gates=D=false', '--feature-gates=E=false', '--feature-gates=a=true']);
    expect(renderKubeletFeatureGates(gates, { deny: ['C'], allow: ['C', 'D', 'a'] })).toEqual({ D: false, a: true });
  });

  it('drops gates unknown to the operand with one warning naming each', () => {
    const warnings: string[] = [];
    const args = renderKubeAPIServerArgs(gates, { known: ['B', 'D'], warn: (m) => warnings.push(m) });
    expect(args).toEqual(['--feature-gates=B=true', '--feature-gates=D=false']);
    expect(warnings).toEqual(['Ignoring unknown FeatureGate "C"', 'Ignoring unknown FeatureGate "E"', 'Ignoring unknown FeatureGate "a"']);
  });

  it('parses the --feature-gates syntax with component-base rules', () => {
    expect([...parseFeatureGates(['A=true, B = f,,C=1', '--feature-gates=A=False'])]).toEqual([['A', false], ['B', false], ['C', true]]);
    expect(() => parseFeatureGates(['A'])).toThrow('missing bool value for A');
    expect(() => parseFeatureGates(['A=yes'])).toThrow('invalid value of A=yes, err: strconv.ParseBool: parsing "yes": invalid syntax');
  });

  it('round-trips through the parser (property)', () => {
    const name = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,10}(\.[a-z]{1,3})?$/);
    fc.assert(fc.property(fc.uniqueArray(name, { maxLength: 40 }), fc.array(fc.boolean(), { maxLength: 40 }), (names, states) => {
      const on = names.filter((_, i) => states[i]);
      const off = names.filter((_, i) => !states[i]);
      const g = new FeatureGates(on, off);
      const parsed = parseFeatureGates(renderKubeAPIServerArgs(g));
      expect(new Map([...parsed].sort())).toEqual(new Map(names.map((n) => [n, on.includes(n)] as [string, boolean]).sort()));
      expect(Object.entries(renderKubeletFeatureGates(g))).toEqual([...parsed]);
      // joined into one flag value it parses the same
      expect(parseFeatureGates([renderKubeAPIServerArgs(g).map((a) => a.slice('--feature-gates='.length)).join(',')])).toEqual(parsed);
    }), { numRuns: 1000 });
  });
});
