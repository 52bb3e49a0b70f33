// A typed client for one cluster-scoped custom resource (config.openshift.io/v1 FeatureGate,
// ClusterVersion, ClusterOperator): decode on read, PUT with resourceVersion, every call counted.
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import { countedRequest } from './metrics.js';
import { isConflict, isNotFound } from './api-errors.js';

export interface ResourceDescriptor<T> {
  group: string;
  version: string;
  plural: string;
  /** Turns untrusted JSON into T or throws an error naming the field path. */
  decode: (raw: unknown) => T;
}

export interface ListResult<T> {
  items: T[];
  resourceVersion: string;
}

export class ResourceClient<T extends { metadata: { name?: string; resourceVersion?: string } }> {
  private readonly api: CustomObjectsApi;
  readonly kubeConfig: KubeConfig;

  constructor(kc: KubeConfig, readonly resource: ResourceDescriptor<T>, private readonly metrics?: Registry) {
    this.api = kc.makeApiClient(CustomObjectsApi);
    this.kubeConfig = kc;
  }

  private get gvr() {
    return { group: this.resource.group, version: this.resource.version, plural: this.resource.plural };
  }

  /** The URL path of the collection, for watches. */
  get path(): string {
    return `/apis/${this.resource.group}/${this.resource.version}/${this.resource.plural}`;
  }

  private count<R>(method: string, call: () => Promise<R>): Promise<R> {
    return countedRequest(this.metrics, method, this.resource.plural, call);
  }

  async list(fieldSelector?: string): Promise<ListResult<T>> {
    const raw = await this.count('LIST', () => this.api.listClusterCustomObject({ ...this.gvr, ...(fieldSelector ? { fieldSelector } : {}) }));
    const items = (raw.items ?? []) as unknown[];
    return { items: items.map((i) => this.resource.decode(i)), resourceVersion: String(raw.metadata?.resourceVersion ?? '') };
  }

  async get(name: string): Promise<T> {
    return this.resource.decode(await this.count('GET', () => this.api.getClusterCustomObject({ ...this.gvr, name })));
  }

  /** The named object, created from make() if missing (a concurrent create is read back). */
  async getOrCreate(name: string, make: () => T): Promise<T> {
    try {
      return await this.get(name);
    } catch (e) {
      if (!isNotFound(e)) throw e;
      try {
        return await this.create(make());
      } catch (err) {
        if (!isConflict(err)) throw err;
        return this.get(name);
      }
    }
  }

  async create(obj: T): Promise<T> {
    return this.resource.decode(await this.count('POST', () => this.api.createClusterCustomObject({ ...this.gvr, body: obj })));
  }

  /** PUT the main resource; metadata.resourceVersion makes it optimistic (409 on a stale copy). */
  async replace(obj: T): Promise<T> {
    const name = obj.metadata.name ?? '';
    return this.resource.decode(await this.count('PUT', () => this.api.replaceClusterCustomObject({ ...this.gvr, name, body: obj })));
  }

  /** PUT the /status subresource with the object's resourceVersion (409 on a stale copy). */
  async replaceStatus(obj: T): Promise<T> {
    const name = obj.metadata.name ?? '';
    return this.resource.decode(await this.count('PUT', () => this.api.replaceClusterCustomObjectStatus({ ...this.gvr, name, body: obj })));
  }

  async delete(name: string): Promise<void> {
    await this.count('DELETE', () => this.api.deleteClusterCustomObject({ ...this.gvr, name }));
  }
}

/** Runs a read-modify-write again while it fails with 409 Conflict (someone wrote in between). */
export async function retryOnConflict<R>(fn: () => Promise<R>, attempts = 20): Promise<R> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (e) {
      if (!isConflict(e) || i >= attempts) throw e;
    }
  }
}
