// The lease thread's side (lease-thread.ts starts it): LeaderElectors on an event loop of their own, so that a renewal
// is never queued behind the work of the thread that fences its writes with it. Each elector publishes its horizon —
// until when, on the process's monotonic clock (processClock), it leads — into a shared slot that the other thread's
// fence reads without waiting for a message; the messages (acquired, renewed, lost, released, log lines) only tell
// that thread what it would otherwise have learned from the elector directly.
import { parentPort } from 'node:worker_threads';
import { StaticKubeConfig, type ClusterAccess, type StaticKubeConfigData } from '../rest/kube-config.js';
import { withTransportConfig, type accessForThread } from '../rest/kube-transport.js';
import { apiErrorMessage } from '../rest/api-errors.js';
import { processClock } from '../util/clock.js';
import type { Logger } from '../log/logger.js';
import { LeaderElector, type LeaderElectionTiming, type LeadershipLoss } from './leader-election.js';
import type { Lease } from './lease-store.js';

/** One Lease to hold, as the other thread asks for it. */
export interface ThreadLease {
  namespace: string;
  name: string;
  identity: string;
  timing: LeaderElectionTiming;
  renewIntervalMs?: number;
  requestTimeoutMs?: number;
  /** The other thread's own sight of the record, `at` on processClock. */
  observedSince?: { lease: Lease; at: number };
}

/** A cluster access as data, numbered by the other thread: the Leases of one number share one transport here. */
export type ThreadAccess = NonNullable<ReturnType<typeof accessForThread>> & { id: number };

export type ToLeaseThread =
  | { kind: 'acquire'; id: number; access: ThreadAccess; lease: ThreadLease; horizon: SharedArrayBuffer }
  /** Stop trying to acquire (the caller's signal aborted). */
  | { kind: 'abort'; id: number }
  | { kind: 'release'; id: number };

export type FromLeaseThread =
  | { kind: 'acquired'; id: number }
  | { kind: 'not-acquired'; id: number; error: string }
  | { kind: 'renewed'; id: number; delayS: number }
  | { kind: 'lost'; id: number; reason: string; cause: LeadershipLoss }
  | { kind: 'released'; id: number }
  | { kind: 'log'; id: number; level: keyof Omit<Logger, 'with'>; msg: string; fields: Record<string, unknown> };

/** The horizon as the slot holds it: microseconds on processClock, 0 for "not leading". */
export function horizonMicros(leadsUntilMs: number): bigint {
  return Number.isFinite(leadsUntilMs) && leadsUntilMs > 0 ? BigInt(Math.floor(leadsUntilMs * 1000)) : 0n;
}

const port = parentPort;
const electors = new Map<number, { elector: LeaderElector; abort: AbortController }>();
/** Each access made once (its transport, connection pool and TLS context with it), by the other thread's number for it. */
const accesses = new Map<number, ClusterAccess>();

function post(m: FromLeaseThread): void {
  port?.postMessage(m);
}

function forwardingLogger(id: number, fields: Record<string, unknown> = {}): Logger {
  const line = (level: keyof Omit<Logger, 'with'>) => (msg: string, more: Record<string, unknown> = {}) =>
    post({ kind: 'log', id, level, msg, fields: { ...fields, ...more } });
  return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error'), with: (f) => forwardingLogger(id, { ...fields, ...f }) };
}

function rebuild(access: ThreadAccess): ClusterAccess {
  let kc = accesses.get(access.id);
  if (!kc) accesses.set(access.id, (kc = build(access)));
  return kc;
}

function build(access: ThreadAccess): ClusterAccess {
  // Buffers cross the thread boundary as Uint8Arrays.
  const buf = (b: Uint8Array | undefined) => (b ? Buffer.from(b) : undefined);
  const { cluster, user }: StaticKubeConfigData = access.kube;
  const kc = new StaticKubeConfig({ ...cluster, ca: buf(cluster.ca) }, { ...user, cert: buf(user.cert), key: buf(user.key) });
  return access.userAgent ? withTransportConfig(kc, { userAgent: access.userAgent }) : kc;
}

function acquire(m: Extract<ToLeaseThread, { kind: 'acquire' }>): void {
  const slot = new BigInt64Array(m.horizon);
  const { lease } = m;
  const abort = new AbortController();
  const elector = new LeaderElector(rebuild(m.access), {
    namespace: lease.namespace, name: lease.name, identity: lease.identity, ...lease.timing, clock: processClock,
    ...(lease.renewIntervalMs !== undefined ? { renewIntervalMs: lease.renewIntervalMs } : {}),
    ...(lease.requestTimeoutMs !== undefined ? { requestTimeoutMs: lease.requestTimeoutMs } : {}),
    ...(lease.observedSince ? { observedSince: lease.observedSince } : {}),
    // The identity and Lease are the other thread's logger's fields already (lease-thread.ts).
    logger: forwardingLogger(m.id),
    onHorizon: (until, delayS) => {
      Atomics.store(slot, 0, horizonMicros(until));
      if (delayS !== undefined) post({ kind: 'renewed', id: m.id, delayS });
    },
    onStoppedLeading: (reason, cause) => {
      electors.delete(m.id);
      post({ kind: 'lost', id: m.id, reason, cause });
    },
  });
  electors.set(m.id, { elector, abort });
  elector.acquire(abort.signal).then(
    () => post({ kind: 'acquired', id: m.id }),
    (e: unknown) => {
      electors.delete(m.id);
      post({ kind: 'not-acquired', id: m.id, error: apiErrorMessage(e) });
    },
  );
}

port?.on('message', (m: ToLeaseThread) => {
  if (m.kind === 'acquire') return acquire(m);
  const e = electors.get(m.id);
  if (m.kind === 'abort') return e?.abort.abort();
  electors.delete(m.id);
  void (e ? e.elector.release() : Promise.resolve()).finally(() => post({ kind: 'released', id: m.id }));
});
