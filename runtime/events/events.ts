// An event recorder like client-go's: core/v1 Events, correlated (spam filter, aggregation, count
// patches: event-correlator.ts) and sent in the background — event() never waits for the API and never
// throws, so it is never on the path of a handler or a reconcile. Up to 1000 events wait; beyond that new
// ones are dropped (counted in the log), as client-go's broadcaster does.
// Kubernetes only accepts an Event about a cluster-scoped object (FeatureGate, ClusterVersion) in the
// "default" namespace, so — as library-go does — such events are recorded about this process's own Pod
// in its namespace, with the cluster-scoped object as the Event's `related` object.
import type { ClusterAccess } from '../rest/kube-config.js';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Registry } from 'prom-client';
import { boundedText } from '../../api-types/untrusted-text.js';
import type { CoreEvent } from '../../api-types/wire.js';
import { MAX_OBJECT_NAME_CHARS } from '../../api-types/object-identity.js';
import { apiErrorMessage, isNotFound } from '../rest/api-errors.js';
import { EventCorrelator, type CorrelatorOptions } from './event-correlator.js';
import { ResourceClient } from '../rest/resource-client.js';
import { EventResource } from '../rest/resources.js';
import { silentLogger, type Logger } from '../log/logger.js';

export interface InvolvedObject {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
}

export interface EventRecorder {
  /** Queues an event; returns at once. A failure to record is logged, never thrown. */
  event(object: InvolvedObject, type: 'Normal' | 'Warning', reason: string, message: string): void;
  /** Resolves when every queued event has been sent (or failed). */
  flush(): Promise<void>;
}

/** The recorder createEventRecorder makes: an EventRecorder that can also be closed. */
export interface ClosableEventRecorder extends EventRecorder {
  /**
   * Takes no more events and sends none that has not started: those still queued or waiting for their turn at the
   * pacer are dropped (one log line says how many); resolves when the send in flight is done. For a stop that must
   * not wait for a shared pace (a hosted session: hundreds stop at once on a SIGTERM or a shard hand-back).
   */
  close(): Promise<void>;
}

export interface EventRecorderOptions {
  namespace: string;
  component: string;
  /** What namespaced object events about cluster-scoped objects are recorded against. Default: this Pod. */
  regarding?: InvolvedObject;
  logger?: Logger;
  metrics?: Registry;
  correlator?: CorrelatorOptions;
  /** Called right before each write; throws to refuse it (the leader fence: a stepped-down leader records nothing). */
  fence?: () => void;
  /** Wall clock (for the correlator's windows and the Event timestamps). */
  now?: () => Date;
  /** Shared with the process's other writers to the same API server: each send waits its turn (hosted sessions). */
  pacer?: EventPacer;
}

/** What paces a recorder's sends: runs a send in its turn; `signal` gives the turn up (the send then never runs). */
export interface EventPacer {
  run<T>(write: () => Promise<T>, signal?: AbortSignal): Promise<T>;
}

const MAX_PENDING = 1000;
/** An Event's message is cut to this many characters (and cleaned of control characters). */
export const MAX_EVENT_MESSAGE_CHARS = 1024;

export function createEventRecorder(kc: ClusterAccess, options: EventRecorderOptions): ClosableEventRecorder {
  // The fence goes with the client: judged right before the PATCH, the POST after it and every resend leave, so
  // a recorder whose process lost its Lease sends nothing more.
  const events = new ResourceClient(kc, EventResource, options.metrics, {
    namespace: options.namespace,
    ...(options.fence ? { fence: options.fence } : {}),
  });
  const log = options.logger ?? silentLogger;
  const now = options.now ?? (() => new Date());
  const correlator = new EventCorrelator(options.correlator);
  const self: InvolvedObject = options.regarding
    ?? { apiVersion: 'v1', kind: 'Pod', name: process.env.POD_NAME ?? hostname(), namespace: options.namespace };
  const pending: (() => Promise<void>)[] = [];
  let draining: Promise<void> | undefined;
  let dropped = 0;
  /** Aborted by close(): the job waiting for its turn at the pacer gives it up. */
  const closing = new AbortController();
  let notSent = 0;

  const drain = async () => {
    // close() empties the queue, so the loop ends after the job in hand.
    for (let job = pending.shift(); job; job = pending.shift()) {
      try {
        // A job never throws (send logs its failures); the pacer only delays it, or gives up its turn on close().
        await (options.pacer ? options.pacer.run(job, closing.signal) : job());
      } catch (e) {
        if (!closing.signal.aborted) throw e;
        notSent++; // its turn had not come when the recorder closed
      }
    }
    draining = undefined;
  };

  const send = (object: InvolvedObject, type: string, reason: string, message: string, at: Date) =>
    sendEvent(
      { events, correlator, self, log, namespace: options.namespace, component: options.component },
      { object, type, reason, message, at },
    );

  return {
    event(object, type, reason, message) {
      if (closing.signal.aborted) return;
      if (pending.length >= MAX_PENDING) {
        if (dropped++ % 100 === 0) log.warn('event queue full; dropping events', { dropped });
        return;
      }
      const at = now();
      pending.push(() => send(object, type, reason, message, at));
      draining ??= drain();
    },
    async flush() {
      while (draining) await draining;
    },
    async close() {
      closing.abort();
      notSent += pending.splice(0).length;
      while (draining) await draining;
      if (notSent > 0) log.info('stopping: Events not sent (their turn had not come)', { notSent });
    },
  };
}

/**
 * One Event as the correlator says (dropped, a new Event, or a count on the last one: a PATCH, or a new Event when
 * that one is gone); about an object of another namespace, it is told on this process's own object, the other named
 * as related. A failure is logged, never thrown; a write the leader fence refuses is dropped quietly.
 */
async function sendEvent(r: {
  events: ResourceClient<CoreEvent>; correlator: EventCorrelator; self: InvolvedObject; log: Logger; namespace: string; component: string;
}, ev: { object: InvolvedObject; type: string; reason: string; message: string; at: Date }): Promise<void> {
  const { object, type, reason, message, at } = ev;
  const own = object.namespace === r.namespace;
  const involved = own ? object : r.self;
  const c = r.correlator.correlate({
    source: r.component,
    object: JSON.stringify([involved.apiVersion, involved.kind, involved.namespace, involved.name, involved.uid, own ? '' : JSON.stringify(object)]),
    type, reason, message,
  }, at.getTime());
  if (c.action === 'drop') return;
  const text = boundedText(c.message, MAX_EVENT_MESSAGE_CHARS);
  try {
    if (c.action === 'patch') {
      try {
        await r.events.mergePatch(c.name, { count: c.count, lastTimestamp: at.toISOString(), message: text });
        return;
      } catch (e) {
        if (!isNotFound(e)) throw e;
        r.correlator.forgetSent(c.key);
      }
    }
    const name = eventName(object.name, randomBytes(8).toString('hex'));
    await r.events.create({
      apiVersion: 'v1', kind: 'Event',
      metadata: { name, namespace: r.namespace },
      involvedObject: { ...involved },
      ...(own ? {} : { related: { ...object } }),
      type, reason, message: text,
      source: { component: r.component },
      reportingComponent: r.component,
      reportingInstance: process.env.HOSTNAME ?? 'local',
      firstTimestamp: at.toISOString(), lastTimestamp: at.toISOString(), count: c.action === 'patch' ? c.count : 1,
    });
    r.correlator.recordSent(c.key, name, c.action === 'patch' ? c.count : 1);
  } catch (e) {
    if ((e as Error).name === 'NotLeaderError') return; // stepping down: nothing to say
    r.log.warn('could not record event', { reason, error: apiErrorMessage(e) });
  }
}

/** Records nothing. */
export const noEvents: EventRecorder = { event: () => undefined, flush: async () => undefined };

/**
 * An Event's name: the object's name, a dot and `suffix` (client-go's `<name>.<hex>`), within the 253 characters an
 * object name may have — a long object name (an HCP's may be 253 characters) is cut, and never leaves a "." or
 * "-" before the dot, so the Event is never refused for its name.
 */
export function eventName(objectName: string, suffix: string): string {
  const room = MAX_OBJECT_NAME_CHARS - suffix.length - 1;
  const head = objectName.length > room ? objectName.slice(0, room).replace(/[.-]+$/, '') : objectName;
  return `${head || 'object'}.${suffix}`;
}
