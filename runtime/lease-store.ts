// The Lease a leader elector holds (coordination.k8s.io/v1), read and written through the transport with
// a per-request timeout. Writes carry the read resourceVersion, so a 409 means someone else wrote first.
import type { ClusterAccess } from './kube-config.js';
import type { Registry } from 'prom-client';
import { isNotFound } from './api-errors.js';
import { KubeTransport } from './kube-transport.js';

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec?: LeaseSpec;
}

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
  const t = KubeTransport.for(kc);
  const collection = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
  const path = `${collection}/${encodeURIComponent(name)}`;
  const common = { resource: 'leases', ...(metrics ? { metrics } : {}) };
  return {
    async get(timeoutMs) {
      try {
        return await t.request({ ...common, method: 'GET', path, timeoutMs }) as Lease;
      } catch (e) {
        if (isNotFound(e)) return undefined;
        throw e;
      }
    },
    async create(lease, timeoutMs) {
      return await t.request({ ...common, method: 'POST', path: collection, body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...lease }, timeoutMs }) as Lease;
    },
    async update(lease, timeoutMs) {
      return await t.request({ ...common, method: 'PUT', path, body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...lease }, timeoutMs }) as Lease;
    },
  };
}
