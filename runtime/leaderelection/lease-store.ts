// The Lease a leader elector holds (coordination.k8s.io/v1), read and written through a ResourceClient with
// a per-request timeout. Writes carry the read resourceVersion, so a 409 means someone else wrote first.
import type { Registry } from 'prom-client';
import type { Lease } from '../../api-types/index.js';
import type { ClusterAccess } from '../rest/kube-config.js';
import { ResourceClient } from '../rest/resource-client.js';
import { LeaseResource } from '../rest/resources.js';

export type { Lease, LeaseSpec } from '../../api-types/index.js';

export interface LeaseStore {
  /** The Lease, or undefined when it does not exist. */
  get(timeoutMs: number): Promise<Lease | undefined>;
  create(lease: Lease, timeoutMs: number): Promise<Lease>;
  update(lease: Lease, timeoutMs: number): Promise<Lease>;
}

/** RFC 3339 with microseconds, as a Kubernetes MicroTime. */
export function microTime(d: Date = new Date()): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export function kubeLeaseStore(kc: ClusterAccess, namespace: string, name: string, metrics?: Registry): LeaseStore {
  // One client per deadline: the elector bounds each call by what is left of its renew deadline.
  const client = (timeoutMs: number) => new ResourceClient(kc, LeaseResource, metrics, { namespace, timeoutMs });
  const typed = (lease: Lease): Lease => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...lease });
  return {
    get: (timeoutMs) => client(timeoutMs).find(name),
    create: (lease, timeoutMs) => client(timeoutMs).create(typed(lease)),
    update: (lease, timeoutMs) => client(timeoutMs).replace(typed(lease)),
  };
}
