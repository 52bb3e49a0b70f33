// Properties of resolution + desired status over generated registries, specs, stored statuses and
// histories (fast-check; 12 000 generated cases in all).
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  buildRegistry, desiredFeatureGates, featureGatesEqual, resolveFeatureGateDetails, type FeatureGateDetails,
  type FeatureGateSpec,
} from '../../api-types/index.js';

const gateName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,8}(\.[a-z0-9]{1,4})?$/);
const version: fc.Arbitrary<string> = fc.constantFrom('4.20.0', '4.20.1', '4.21.0', '4.21.3', '4.22.0', '4.22.1', '5.0.0', '');

const registryArb = fc.uniqueArray(gateName, { minLength: 1, maxLength: 30 }).chain((gates) =>
  fc.record({
    gates: fc.constant(gates),
    def: fc.subarray(gates),
    tech: fc.subarray(gates),
  }));

const detailsArb = fc.record({
  version,
  enabled: fc.array(gateName.map((name) => ({ name })), { maxLength: 6 }),
  disabled: fc.array(gateName.map((name) => ({ name })), { maxLength: 6 }),
});

const existingArb = fc.option(fc.uniqueArray(detailsArb, { selector: (d) => d.version, maxLength: 8 }), { nil: null });
const historyArb = fc.array(version.map((v) => ({ version: v })), { maxLength: 10 });

function build(r: { gates: string[]; def: string[]; tech: string[] }) {
  const manifest = (set: string, enabled: string[]) => ({
    source: `${set}.yaml`,
    object: {
      kind: 'FeatureGate', spec: set ? { featureSet: set } : {},
      status: { featureGates: [{ version: '', enabled: enabled.map((name) => ({ name })), disabled: r.gates.filter((g) => !enabled.includes(g)).map((name) => ({ name })) }] },
    },
  });
  return buildRegistry([manifest('', r.def), manifest('TechPreviewNoUpgrade', r.tech)], { operatorVersion: '4.22.0' });
}

const specArb = (gates: string[]) => fc.oneof(
  fc.constant<FeatureGateSpec>({}),
  fc.constant<FeatureGateSpec>({ featureSet: 'TechPreviewNoUpgrade' }),
  fc.tuple(fc.subarray(gates), fc.subarray(gates)).map(([on, off]): FeatureGateSpec => ({
    featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: on, disabled: off.filter((g) => !on.includes(g)) },
  })),
);

const scenario = registryArb.chain((r) => fc.record({
  r: fc.constant(r), spec: specArb(r.gates), current: version, existing: existingArb, history: historyArb,
}));

interface Scenario {
  r: { gates: string[]; def: string[]; tech: string[] };
  spec: FeatureGateSpec;
  current: string;
  existing: FeatureGateDetails[] | null;
  history: { version: string }[];
}

function run(s: Scenario) {
  const reg = build(s.r);
  const current = resolveFeatureGateDetails(s.spec, reg, s.current);
  return { reg, current, out: desiredFeatureGates({ current, existing: s.existing, history: s.history }) };
}

const RUNS = 2000;

describe('desired status properties', () => {
  it('puts the current entry first', () => {
    fc.assert(fc.property(scenario, (s) => {
      const { out, current } = run(s);
      expect(out[0]).toBe(current);
    }), { numRuns: RUNS });
  });

  it('keeps versions unique and only current or history versions', () => {
    fc.assert(fc.property(scenario, (s) => {
      const { out } = run(s);
      const versions = out.map((e) => e.version);
      expect(new Set(versions).size).toBe(versions.length);
      const allowed = new Set([s.current, ...s.history.map((x) => x.version)]);
      for (const v of versions) expect(allowed.has(v)).toBe(true);
    }), { numRuns: RUNS });
  });

  it('lists every known gate exactly once in the current entry, byte-sorted', () => {
    fc.assert(fc.property(scenario, (s) => {
      const { current } = run(s);
      const names = [...current.enabled, ...current.disabled].map((g) => g.name);
      expect(new Set(names).size).toBe(names.length);
      const expected = new Set(s.r.gates);
      if (s.spec.featureSet === 'CustomNoUpgrade') for (const n of [...(s.spec.customNoUpgrade?.enabled ?? []), ...(s.spec.customNoUpgrade?.disabled ?? [])]) expected.add(n);
      expect(new Set(names)).toEqual(expected);
      for (const list of [current.enabled, current.disabled]) {
        const ns = list.map((g) => g.name);
        expect(ns).toEqual([...ns].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      }
    }), { numRuns: RUNS });
  });

  it('is idempotent: a second sync on its own output writes nothing', () => {
    fc.assert(fc.property(scenario, (s) => {
      const { out, current } = run(s);
      const again = desiredFeatureGates({ current, existing: out, history: s.history });
      expect(featureGatesEqual(again, out)).toBe(true);
    }), { numRuns: RUNS });
  });

  it('carries surviving old entries byte-identical and in stored order', () => {
    fc.assert(fc.property(scenario, (s) => {
      const { out } = run(s);
      const olds = out.slice(1);
      const stored = (s.existing ?? []).filter((e) => olds.includes(e));
      expect(olds).toEqual(stored);
      for (const e of olds) {
        const src = (s.existing ?? []).find((x) => x.version === e.version);
        expect(JSON.stringify(e)).toBe(JSON.stringify(src));
      }
    }), { numRuns: RUNS });
  });

  it('keeps every stored entry whose version is in history (and not current)', () => {
    fc.assert(fc.property(scenario, (s) => {
      const { out } = run(s);
      const hist = new Set(s.history.map((x) => x.version));
      for (const e of s.existing ?? []) {
        if (e.version !== s.current && hist.has(e.version)) expect(out).toContain(e);
      }
    }), { numRuns: RUNS });
  });
});
