// The replica's memory budget at work (the judgement is api-types/memory-budget.ts): every SAMPLE_MS the replica's
// memory in use (its container's working set under a memory limit, else its RSS) and what each engaged guest's
// connection read lately (decayed, BYTES_HALF_LIFE_MS); the guests it says to shed
// are disengaged with its reason in their record (ReplicaSessions.shed), those it says to take back are engaged
// again. The budget is --memory-budget, by default BUDGET_OF_LIMIT of the container's memory limit (cgroup v1 or v2,
// as Node reads it: process.constrainedMemory()); without a limit there is no budget unless one is given.
import { totalmem } from 'node:os';
import { budgetStep, emptyBudgetState, type BudgetState, type GuestCost, type ShedGuest } from '../api-types/index.js';
import { containerWorkingSet, counter, gauge, silentLogger, type Logger, type Registry, type Runnable } from '../runtime/index.js';

/** How often the replica's memory is sampled. */
export const SAMPLE_MS = 5_000;
/**
 * What a guest read counts for less as it ages: half after this long. A hostile guest's reads come at its backoff
 * (up to minutes apart), so one sample's reads would miss it; an honest guest's lists, years ago, should not count.
 */
export const BYTES_HALF_LIFE_MS = 10 * 60_000;
/** The default budget's share of the container's memory limit: the rest is room for the shed to take effect. */
export const BUDGET_OF_LIMIT = 0.85;

/** What the budget reads and moves: the replica's guest sessions (replica-sessions.ts). */
export interface BudgetedGuests {
  /** Each engaged guest: whether it is failing, and the response bytes its connection has read so far. */
  costs(): { key: string; failing: boolean; bytesRead: number }[];
  /** Every guest the replica would engage were none shed. */
  eligible(): Set<string>;
  shed(s: ShedGuest): void;
  readmit(key: string): void;
}

export interface MemoryBudgetOptions {
  budgetBytes: number;
  guests: BudgetedGuests;
  registry?: Registry;
  logger?: Logger;
  /** The replica's memory in use (default memoryInUse(): the container's working set, else the process's RSS). */
  inUse?: () => number;
  /** Wall-clock milliseconds (default Date.now): holds are told as times in the records. */
  now?: () => number;
  sampleMs?: number;
}

/**
 * The budget --memory-budget asks for: `auto` (or nothing) is BUDGET_OF_LIMIT of the container's memory limit, none
 * without one; `0` none; a size as given. Throws when a size is below 64 MiB (a replica's floor) or is not a size.
 */
export function memoryBudgetBytes(flag: string | undefined, parse: (q: string) => number,
  limit: number = process.constrainedMemory()): number | undefined {
  if (flag === undefined || flag === 'auto') return limit > 0 && limit < totalmem() ? Math.floor(limit * BUDGET_OF_LIMIT) : undefined;
  const bytes = parse(flag);
  if (bytes === 0) return undefined;
  if (bytes < 64 * 1024 * 1024) throw new Error(`${JSON.stringify(flag)} is below 64Mi, less than a replica needs before it engages any guest`);
  return bytes;
}

/**
 * What the budget weighs: the container's working set where the process runs under a memory limit (what the kubelet
 * and the OOM killer count: runtime's containerWorkingSet), else the process's RSS.
 */
export function memoryInUse(): { measure: 'container working set' | 'process RSS'; read: () => number } {
  const workingSet = containerWorkingSet();
  return workingSet ? { measure: 'container working set', read: workingSet } : { measure: 'process RSS', read: process.memoryUsage.rss };
}

export class MemoryBudget implements Runnable {
  private state: BudgetState;
  /** Per guest: its connection's count at the last sample, and what it read lately (decayed). */
  private readonly read = new Map<string, { total: number; lately: number }>();
  private lastSample: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly log: Logger;
  private readonly shedNow;
  private readonly readInUse: () => number;
  /** What the budget weighs: the container's working set, the process's RSS, or a measure the caller gave. */
  readonly measure: string;
  private readonly sheds;

  constructor(private readonly o: MemoryBudgetOptions) {
    this.state = emptyBudgetState(o.budgetBytes);
    const m = o.inUse ? { measure: 'given', read: o.inUse } : memoryInUse();
    this.readInUse = m.read;
    this.measure = m.measure;
    this.log = o.logger ?? silentLogger;
    const budget = o.registry && gauge(o.registry, 'featuregates_hosted_memory_budget_bytes', 'The memory in use a replica keeps under by shedding guests (--memory-budget)', []);
    budget?.set({}, o.budgetBytes);
    this.shedNow = o.registry && gauge(o.registry, 'featuregates_hosted_guests_shed', 'Guests this replica disengaged to stay within its memory budget, now', []);
    this.shedNow?.set({}, 0);
    this.sheds = o.registry && counter(o.registry, 'featuregates_hosted_guest_sheds_total', 'Guests disengaged to stay within the memory budget, since start', []);
    this.sheds?.inc({}, 0);
  }

  start(): void {
    this.timer = setInterval(() => this.sample(), this.o.sampleMs ?? SAMPLE_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One sample (the timer's; tests call it). */
  sample(): void {
    const inUse = this.readInUse();
    const now = this.o.now?.() ?? Date.now();
    const decay = this.lastSample === undefined ? 1 : 0.5 ** (Math.max(0, now - this.lastSample) / BYTES_HALF_LIFE_MS);
    this.lastSample = now;
    const engaged: GuestCost[] = this.o.guests.costs().map((c) => {
      const before = this.read.get(c.key) ?? { total: 0, lately: 0 };
      const delta = c.bytesRead >= before.total ? c.bytesRead - before.total : c.bytesRead; // a new connection starts from 0
      const lately = before.lately * decay + delta;
      this.read.set(c.key, { total: c.bytesRead, lately });
      return { key: c.key, failing: c.failing, bytesRead: lately };
    });
    const live = new Set(engaged.map((g) => g.key));
    for (const key of this.read.keys()) if (!live.has(key)) this.read.delete(key);
    const step = budgetStep(this.o.budgetBytes, this.state, inUse, engaged, this.o.guests.eligible(), now);
    this.state = step.state;
    if (step.shed.length) {
      this.log.warn('memory over budget: shedding guests', { inUseBytes: inUse, budgetBytes: this.o.budgetBytes, guests: step.shed.map((s) => s.key) });
    }
    for (const s of step.shed) this.o.guests.shed(s);
    for (const key of step.readmit) {
      this.log.info('memory under budget again: engaging a shed guest', { hcp: key, inUseBytes: inUse });
      this.o.guests.readmit(key);
    }
    this.sheds?.inc({}, step.shed.length);
    this.shedNow?.set({}, this.state.shed.size);
  }
}
