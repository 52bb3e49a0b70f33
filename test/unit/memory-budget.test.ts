// A hosted replica's memory budget (api-types/memory-budget.ts): who is shed, in which order, when another shed
// follows, and when a shed guest comes back.
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import {
  MAX_SHED_HOLD_MS, READMIT_BELOW, SHED_HOLD_MS, STEP_MIN_BYTES, budgetStep, emptyBudgetState, shedHoldMs, shedOrder, type BudgetState,
  type GuestCost,
} from '../../api-types/index.js';

const MIB = 1024 * 1024;
const BUDGET = 600 * MIB;
const guest = (key: string, bytesRead: number, failing = false): GuestCost => ({ key, bytesRead, failing });

describe('memory budget', () => {
  test('order: failing guests that read (most first), then every guest by what it read, then by key', () => {
    const order = shedOrder([guest('a/honest', 9 * MIB), guest('b/down', 0, true), guest('c/hostile', 3 * MIB, true),
      guest('d/hostile', 5 * MIB, true), guest('e/quiet', 0), guest('f/reader', 9 * MIB)]);
    expect(order.map((g) => g.key)).toEqual(['d/hostile', 'c/hostile', 'a/honest', 'f/reader', 'b/down', 'e/quiet']);
  });

  test('over the budget: every hostile guest is shed at once, the honest kept, with a reason that says why and until when', () => {
    const engaged = [guest('ns/good', 1 * MIB), guest('ns/bad1', 30 * MIB, true), guest('ns/bad2', 12 * MIB, true), guest('ns/down', 0, true)];
    const step = budgetStep(BUDGET, emptyBudgetState(BUDGET), 620 * MIB, engaged, new Set(engaged.map((g) => g.key)), 1_000);
    expect(step.shed.map((s) => s.key)).toEqual(['ns/bad1', 'ns/bad2']);
    expect(step.shed[0]!.until).toBe(1_000 + SHED_HOLD_MS);
    expect(step.shed[0]!.message).toMatch(/^shed: the replica's memory \(620 MiB\) is over its budget \(600 MiB\); this guest was failing while it made the replica read \(30 MiB lately\); engaged again when the replica is below 510 MiB, not before 1970-01-01T00:05:01.000Z$/);
    expect(step.readmit).toEqual([]);
    expect([...step.state.shed.keys()]).toEqual(['ns/bad1', 'ns/bad2']);
  });

  test('no hostile guest: the readers shed, as many as the excess is of the whole; under the budget nothing is', () => {
    const engaged = Array.from({ length: 100 }, (_, i) => guest(`ns/g${String(i).padStart(3, '0')}`, i * 1024));
    const keys = new Set(engaged.map((g) => g.key));
    expect(budgetStep(BUDGET, emptyBudgetState(BUDGET), BUDGET, engaged, keys, 0).shed).toEqual([]);
    const step = budgetStep(BUDGET, emptyBudgetState(BUDGET), 660 * MIB, engaged, keys, 0);
    expect(step.shed.map((s) => s.key)).toEqual(['ns/g099', 'ns/g098', 'ns/g097', 'ns/g096', 'ns/g095', 'ns/g094', 'ns/g093', 'ns/g092', 'ns/g091', 'ns/g090']);
    expect(step.shed[0]!.message).toContain('among the guests that made the replica read most');
    // Guests that read nothing lately (unreachable ones) are shed by name, and their records say so.
    const idle = [guest('ns/b', 0), guest('ns/a', 0)];
    const byName = budgetStep(BUDGET, emptyBudgetState(BUDGET), 660 * MIB, idle, new Set(['ns/a', 'ns/b']), 0);
    expect(byName.shed.map((s) => s.key)).toEqual(['ns/a']);
    expect(byName.shed[0]!.message).toContain('this guest was next by name: no guest made the replica read lately');
  });

  test('memory that stays up after a shed sheds nothing more; memory that still grows past a step does', () => {
    const engaged = [guest('ns/a', 3 * MIB), guest('ns/b', 2 * MIB), guest('ns/c', 1 * MIB)];
    const keys = new Set(['ns/a', 'ns/b', 'ns/c', 'ns/x']);
    const first = budgetStep(BUDGET, emptyBudgetState(BUDGET), 610 * MIB, [...engaged, guest('ns/x', 5 * MIB)], keys, 0);
    expect(first.shed.map((s) => s.key)).toEqual(['ns/x']);
    const floor = 610 * MIB + Math.max(STEP_MIN_BYTES, BUDGET * 0.02);
    expect(first.state.floor).toBe(floor);
    const stays = budgetStep(BUDGET, first.state, 612 * MIB, engaged, keys, 5_000);
    expect(stays.shed).toEqual([]);
    const grows = budgetStep(BUDGET, stays.state, floor + 1, engaged, keys, 10_000);
    expect(grows.shed.map((s) => s.key)).toEqual(['ns/a']);
  });

  test('a shed guest comes back one at a time, below the re-admission level and after its hold; shed again it waits twice as long', () => {
    const keys = new Set(['ns/a', 'ns/b']);
    let state: BudgetState = budgetStep(BUDGET, emptyBudgetState(BUDGET), 700 * MIB, [guest('ns/a', 9, true), guest('ns/b', 8, true)], keys, 0).state;
    expect([...state.shed.keys()]).toEqual(['ns/a', 'ns/b']);
    const low = BUDGET * READMIT_BELOW - 1;
    expect(budgetStep(BUDGET, state, low, [], keys, SHED_HOLD_MS - 1).readmit).toEqual([]); // hold not passed
    expect(budgetStep(BUDGET, state, BUDGET * READMIT_BELOW + 1, [], keys, SHED_HOLD_MS).readmit).toEqual([]); // not low enough
    const one = budgetStep(BUDGET, state, low, [], keys, SHED_HOLD_MS);
    expect(one.readmit).toEqual(['ns/a']);
    const two = budgetStep(BUDGET, one.state, low, [guest('ns/a', 0)], keys, SHED_HOLD_MS + 5_000);
    expect(two.readmit).toEqual(['ns/b']);
    state = budgetStep(BUDGET, two.state, 700 * MIB, [guest('ns/a', 9, true), guest('ns/b', 1)], keys, 1_000_000).state;
    expect(state.shed.get('ns/a')!.until).toBe(1_000_000 + 2 * SHED_HOLD_MS);
    expect(shedHoldMs(1)).toBe(SHED_HOLD_MS);
    expect(shedHoldMs(30)).toBe(MAX_SHED_HOLD_MS);
  });

  test('a shed guest whose HCP left the replica is forgotten, its offences too', () => {
    const state = budgetStep(BUDGET, emptyBudgetState(BUDGET), 700 * MIB, [guest('ns/a', 9, true)], new Set(['ns/a']), 0).state;
    const after = budgetStep(BUDGET, state, 700 * MIB, [], new Set(), 1);
    expect(after.state.shed.size).toBe(0);
    expect(after.state.offences.size).toBe(0);
  });

  test('property: never sheds under the budget, never sheds a guest not engaged, never re-admits above the level; the honest go last', () => {
    const cost = fc.record({ key: fc.stringMatching(/^[a-e]\/[a-e]$/), failing: fc.boolean(), bytesRead: fc.nat({ max: 64 * MIB }) });
    const samples = fc.array(fc.integer({ min: 100 * MIB, max: 900 * MIB }), { minLength: 1, maxLength: 20 });
    fc.assert(fc.property(fc.uniqueArray(cost, { selector: (g) => g.key, maxLength: 12 }), samples,
      (engaged, samples) => {
        const keys = new Set(engaged.map((g) => g.key));
        let state = emptyBudgetState(BUDGET);
        let shedNow = new Set<string>();
        samples.forEach((rss, i) => {
          const now = i * SHED_HOLD_MS;
          const live = engaged.filter((g) => !shedNow.has(g.key));
          const step = budgetStep(BUDGET, state, rss, live, keys, now);
          if (rss <= BUDGET) expect(step.shed).toEqual([]);
          if (rss >= BUDGET * READMIT_BELOW) expect(step.readmit).toEqual([]);
          for (const s of step.shed) expect(live.map((g) => g.key)).toContain(s.key);
          const hostileLeft = live.filter((g) => g.failing && g.bytesRead > 0 && !step.shed.some((s) => s.key === g.key));
          if (step.shed.length && hostileLeft.length) throw new Error(`a hostile guest (${hostileLeft[0]!.key}) was kept while another was shed`);
          expect(step.readmit.length).toBeLessThanOrEqual(1);
          state = step.state;
          shedNow = new Set(state.shed.keys());
        });
      }));
  });
});
