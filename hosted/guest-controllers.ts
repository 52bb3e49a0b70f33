// The replica's controllers, one per kind (multicluster-runtime's shape): every guest session engages its HCP on
// them as a cluster, named by the HCP's key, for as long as this replica holds its shard. Each is one queue of
// (HCP, key) requests, fair across HCPs by construction (work-queue.ts: one line per HCP, served in turn), with one
// timer for every delay, backoff per (HCP, key), and a fixed number of workers: however many guests wake at once
// (a fleet-wide z-version, a replica taking over its shards), no more reconciles are in flight than the workers,
// and the event loop turns between them (runtime/controller/controller.ts), so a Lease renewal never waits behind a wave.
// A guest's own watch events wake its controllers at most GUEST_WAKEUPS (a token bucket per HCP in each queue):
// a guest streaming changes cannot set the replica's pace, and its turns come one per round like any other's.
import type { Registry } from 'prom-client';
import { Controller, ItemExponentialLimiter, realClock, type Clock, type Logger } from '../runtime/index.js';
import { CLUSTER_OPERATOR_STATUS_CONTROLLER, FEATURE_GATE_CONTROLLER, RUNNING_GATES_CONTROLLER, UPGRADEABLE_CONTROLLER } from '../controllers/operator-cluster.js';
import { FEATURE_GATE_CONFIGMAP_CONTROLLER } from './feature-gate-configmap.js';
import { GUEST_SPEC_CONTROLLER } from './guest-spec.js';

export const GUEST_VERSION_CONTROLLER = 'GuestVersionController';
/** The guest connection's controller (guest-provider.ts): connects, reconnects and engages the guest. */
export const GUEST_CONNECTION_CONTROLLER = 'GuestConnectionController';

/**
 * How often a guest's own events may wake each of its controllers: a token bucket per guest (a change, then its status write's echo, fit in
 * the burst).
 */
export const GUEST_WAKEUPS = { perSecond: 2, burst: 10 };
/** Reconciles of one kind in flight at once, over every guest of the replica, besides those GUEST_SLOW_AFTER_MS let go. */
export const GUEST_WORKERS = 32;
/**
 * RunningGatesController's workers: a check reads the guest's /metrics (up to 64 MiB) and judges every gate in it. After
 * a fleet-wide change every guest's check falls due within a minute; 4 at once let them trail the status writes instead
 * of competing with them (in the 2,010-HCP wave ~670 checks at once per replica slowed every guest's status).
 */
export const RUNNING_GATES_WORKERS = 4;
/**
 * A guest reconcile still running after this long gives its worker back (runtime/controller/controller.ts): a guest whose writes
 * never answer (its tenant's admission webhook points at nothing) holds a worker 1 s, not its 10 s request timeout, so
 * more such guests than workers cannot make every honest guest wait. An honest guest's reconcile ends in tens of ms.
 * Not for RunningGatesController: its bound is on /metrics reads in flight (each up to 64 MiB), not on workers alone.
 */
export const GUEST_SLOW_AFTER_MS = 1_000;

/** The kinds a guest's engagement runs (the single-cluster operator's controllers and the guest's own two). */
export const ENGAGED_KINDS = [GUEST_SPEC_CONTROLLER, GUEST_VERSION_CONTROLLER, FEATURE_GATE_CONTROLLER, CLUSTER_OPERATOR_STATUS_CONTROLLER,
  UPGRADEABLE_CONTROLLER, RUNNING_GATES_CONTROLLER] as const;
/** The kinds a guest session runs on the management side. */
export const SESSION_KINDS = [GUEST_CONNECTION_CONTROLLER, FEATURE_GATE_CONFIGMAP_CONTROLLER] as const;
export type GuestControllerKind = typeof ENGAGED_KINDS[number] | typeof SESSION_KINDS[number];

export interface GuestControllersOptions {
  metrics?: Registry;
  logger?: Logger;
  /** The clock of the queues' delays, backoff and buckets (tests pass a fake). */
  clock?: Clock;
}

export class GuestControllers {
  /** Every replica runs them (no replica leads); a guest is engaged on them while its shard is held. */
  readonly needLeaderElection = false;
  private readonly byKind = new Map<GuestControllerKind, Controller>();

  constructor(options: GuestControllersOptions = {}) {
    const clock = options.clock ?? realClock;
    for (const name of [...SESSION_KINDS, ...ENGAGED_KINDS]) {
      const engaged = (ENGAGED_KINDS as readonly string[]).includes(name);
      // Backoff of a failing guest key: 5 ms doubling to 5 minutes (a guest is not the cluster the operator runs in).
      const checks = name === RUNNING_GATES_CONTROLLER;
      this.byKind.set(name, new Controller({
        name, concurrency: checks ? RUNNING_GATES_WORKERS : GUEST_WORKERS, ...(checks ? {} : { slowAfterMs: GUEST_SLOW_AFTER_MS }),
        needLeaderElection: false,
      }, {
        clock, rateLimiter: new ItemExponentialLimiter(5, 5 * 60_000),
        ...(options.metrics ? { metrics: options.metrics } : {}), ...(options.logger ? { logger: options.logger } : {}),
        ...(engaged ? { eventsPerCluster: GUEST_WAKEUPS } : {}),
      }));
    }
  }

  of(kind: GuestControllerKind): Controller {
    return this.byKind.get(kind)!;
  }

  start(): void {
    for (const c of this.byKind.values()) c.start();
  }

  async stop(): Promise<void> {
    await Promise.all([...this.byKind.values()].map((c) => c.stop()));
  }

  /** Guests with anything waiting, delayed, in flight or backing off in any controller (a stopped session leaves none). */
  clustersHeld(): number {
    return Math.max(...[...this.byKind.values()].map((c) => c.queue.clusters));
  }
}
