// An event recorder: core/v1 Events created in the recorder's namespace. Kubernetes only accepts an Event
// about a cluster-scoped object (FeatureGate, ClusterVersion) in the "default" namespace, so — as
// library-go does — such events are recorded about this process's own Pod in its namespace, with the
// cluster-scoped object as the Event's `related` object.
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Registry } from 'prom-client';
import { apiErrorMessage } from './api-errors.js';
import { silentLogger, type Logger } from './logger.js';
import { countedRequest } from './metrics.js';

export interface InvolvedObject {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
}

export interface EventRecorder {
  /** Fire and forget: a failure to record is logged, never thrown. Resolves when the write ended. */
  event(object: InvolvedObject, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void>;
}

export interface EventRecorderOptions {
  namespace: string;
  component: string;
  /** What namespaced object events about cluster-scoped objects are recorded against. Default: this Pod. */
  regarding?: InvolvedObject;
  logger?: Logger;
  metrics?: Registry;
}

export function createEventRecorder(kc: KubeConfig, options: EventRecorderOptions): EventRecorder {
  const api = kc.makeApiClient(CoreV1Api);
  const log = options.logger ?? silentLogger;
  const self: InvolvedObject = options.regarding
    ?? { apiVersion: 'v1', kind: 'Pod', name: process.env.POD_NAME ?? hostname(), namespace: options.namespace };
  return {
    async event(object, type, reason, message) {
      const now = new Date();
      try {
        await countedRequest(options.metrics, 'POST', 'events', () => api.createNamespacedEvent({
          namespace: options.namespace,
          body: {
            metadata: { name: `${object.name}.${randomBytes(8).toString('hex')}`, namespace: options.namespace },
            involvedObject: object.namespace === options.namespace ? { ...object } : { ...self },
            ...(object.namespace === options.namespace ? {} : { related: { ...object } }),
            type, reason, message: message.slice(0, 1024),
            source: { component: options.component },
            reportingComponent: options.component,
            reportingInstance: process.env.HOSTNAME ?? 'local',
            firstTimestamp: now, lastTimestamp: now, count: 1,
          },
        }));
      } catch (e) {
        log.warn('could not record event', { reason, error: apiErrorMessage(e) });
      }
    },
  };
}

/** Records nothing. */
export const noEvents: EventRecorder = { event: async () => undefined };
