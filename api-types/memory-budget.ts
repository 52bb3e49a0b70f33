// A hosted replica's memory as a budget, pure: given the replica's resident memory and what each engaged guest made
// it read lately, which guests to shed (disengage, with a reason the guest's record carries) and which shed guests to
// engage again. The kernel's OOM killer takes every tenant of the replica's shards down until a take-over; shedding
// takes down the guests that cost the most, in a stated order:
//  1. failing guests that made the replica read (a hostile guest: its answers are refused, its streams cut at their
//     bounds, its reads retried — each a buffer of up to a few MiB), the one that read most first;
//  2. then any guest by what it read, most first (the over-budget ones).
// Freed memory is not always given back to the system (the allocator keeps pages it may reuse), so resident memory
// can stay above the budget after a shed: another shed follows only when it still grows (past the level of the last
// shed plus a step), never because it did not fall. A shed guest is engaged again once the replica is well below its
// budget and the guest's hold has passed: SHED_HOLD_MS, doubled each time the same guest is shed again (at most
// MAX_SHED_HOLD_MS), one guest per sample so that re-engaging cannot itself overshoot.

/** What one engaged guest costs, as the replica's sample sees it. */
export interface GuestCost {
  /** The HCP key (`namespace/name`). */
  key: string;
  /** Its last sync failed (its record carries an error). */
  failing: boolean;
  /** Response bytes its connection read lately (the caller's measure: hosted/memory-budget.ts decays older reads). */
  bytesRead: number;
}

export interface ShedGuest {
  key: string;
  /** When it was shed (ms, the caller's clock). */
  at: number;
  /** Not engaged again before this. */
  until: number;
  /** What its record says. */
  message: string;
}

export interface BudgetState {
  /** Shed only while resident memory is above this: the budget, or the level of the last shed plus a step. */
  floor: number;
  /** The guests shed now, by key. */
  readonly shed: ReadonlyMap<string, ShedGuest>;
  /** How often each guest of the replica was shed (its next hold doubles), by key. */
  readonly offences: ReadonlyMap<string, number>;
}

export interface BudgetStep {
  state: BudgetState;
  /** Guests to shed now, in order. */
  shed: ShedGuest[];
  /** Shed guests to engage again now. */
  readmit: string[];
}

/** How long a shed guest stays shed the first time. */
export const SHED_HOLD_MS = 5 * 60_000;
export const MAX_SHED_HOLD_MS = 60 * 60_000;
/** A shed guest is engaged again only while resident memory is below this share of the budget. */
export const READMIT_BELOW = 0.85;
/** Another shed needs resident memory this share of the budget above the level of the last one (at least STEP_MIN_BYTES). */
export const SHED_STEP = 0.02;
export const STEP_MIN_BYTES = 4 * 1024 * 1024;

export function emptyBudgetState(budgetBytes: number): BudgetState {
  return { floor: budgetBytes, shed: new Map(), offences: new Map() };
}

const MIB = 1024 * 1024;
const mib = (bytes: number) => `${Math.round(bytes / MIB)} MiB`;

/** Shedding order: failing guests that read first, then every guest by bytes read (most first), then by key. */
export function shedOrder(guests: readonly GuestCost[]): GuestCost[] {
  const hostile = (g: GuestCost) => (g.failing && g.bytesRead > 0 ? 0 : 1);
  return [...guests].sort((a, b) => hostile(a) - hostile(b) || b.bytesRead - a.bytesRead || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** The hold of a guest shed for the `times`-th time. */
export function shedHoldMs(times: number): number {
  return Math.min(MAX_SHED_HOLD_MS, SHED_HOLD_MS * 2 ** Math.max(0, times - 1));
}

/**
 * One sample: `inUseBytes` the replica's resident memory, `engaged` the guests engaged now (with their cost since the
 * last sample), `eligible` every guest the replica would engage were none shed (a shed guest that left it is forgotten).
 */
export function budgetStep(budgetBytes: number, prior: BudgetState, inUseBytes: number, engaged: readonly GuestCost[],
  eligible: ReadonlySet<string>, now: number): BudgetStep {
  const shed = new Map([...prior.shed].filter(([key]) => eligible.has(key)));
  const offences = new Map([...prior.offences].filter(([key]) => eligible.has(key)));
  let floor = inUseBytes <= budgetBytes ? budgetBytes : Math.max(prior.floor, budgetBytes);
  const out: ShedGuest[] = [];
  const readmit: string[] = [];
  if (inUseBytes > floor && engaged.length > 0) {
    const order = shedOrder(engaged);
    const hostile = order.filter((g) => g.failing && g.bytesRead > 0);
    // The hostile all at once; otherwise the share of guests the excess is of the whole (at least one).
    const count = hostile.length || Math.max(1, Math.ceil(engaged.length * (inUseBytes - budgetBytes) / inUseBytes));
    for (const g of order.slice(0, count)) {
      const times = (offences.get(g.key) ?? 0) + 1;
      offences.set(g.key, times);
      const until = now + shedHoldMs(times);
      const why = g.failing && g.bytesRead > 0 ? 'failing while it made the replica read'
        : g.bytesRead > 0 ? 'among the guests that made the replica read most'
          : 'next by name: no guest made the replica read lately, each still holds its connection and caches';
      const message = `shed: the replica's memory (${mib(inUseBytes)}) is over its budget (${mib(budgetBytes)}); this guest was ${why} ` +
        `(${mib(g.bytesRead)} lately); engaged again when the replica is below ${mib(budgetBytes * READMIT_BELOW)}, ` +
        `not before ${new Date(until).toISOString()}`;
      const s = { key: g.key, at: now, until, message };
      shed.set(g.key, s);
      out.push(s);
    }
    floor = inUseBytes + Math.max(STEP_MIN_BYTES, budgetBytes * SHED_STEP);
  } else if (inUseBytes < budgetBytes * READMIT_BELOW) {
    const due = [...shed.values()].filter((s) => s.until <= now).sort((a, b) => a.until - b.until || (a.key < b.key ? -1 : 1))[0];
    if (due) {
      shed.delete(due.key);
      readmit.push(due.key);
    }
  }
  return { state: { floor, shed, offences }, shed: out, readmit };
}
