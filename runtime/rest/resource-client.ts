// A typed client for one resource — cluster-scoped (config.openshift.io/v1 FeatureGate, ClusterVersion,
// ClusterOperator), or namespaced in one namespace or across all (HostedControlPlane, Secret, ConfigMap,
// Lease): decode on read, PUT with resourceVersion, every call counted and bounded by one request deadline
// (retries included) and by the client's abort signal. Writes carry an optional fence (the leader elector's
// "still leader" check) that the transport judges immediately before each attempt leaves.
import type { ClusterAccess } from './kube-config.js';
import type { Registry } from 'prom-client';
import { ResponseTooLargeError, isConflict, isNotFound, statusCode } from './api-errors.js';
import { KubeTransport, type KubeRequest, type WatchHandle, type WatchRequest } from './kube-transport.js';
import { MAX_LIST_BYTES } from './response-body.js';

/** Objects per page of a list (client-go's pager asks for 500). */
export const LIST_PAGE_SIZE = 500;

export interface ResourceDescriptor<T> {
  /** "" for the core group (/api/v1). */
  group: string;
  version: string;
  plural: string;
  /** The kind its objects name (a listed or watched object of another kind is not an answer). */
  kind: string;
  /** Whether its objects live in a namespace. */
  namespaced: boolean;
  /** Turns untrusted JSON into T or throws an error naming the field path. */
  decode: (raw: unknown) => T;
}

export interface ListResult<T> {
  items: T[];
  resourceVersion: string;
}

export interface ResourceClientOptions {
  /** Per-request timeout (default 10 s). */
  timeoutMs?: number;
  /** Judged immediately before every attempt of every write leaves; throws to refuse it (e.g. not the leader). */
  fence?: () => void;
  /** Ends every call of this client in flight, and refuses new ones, once aborted (a stopping controller or guest). */
  signal?: AbortSignal;
  /** The most a list reads, all its pages together (default MAX_LIST_BYTES; a client of one named object can say MAX_OBJECT_BYTES). */
  maxListBytes?: number;
  /** Objects per page of a list (default LIST_PAGE_SIZE). */
  pageSize?: number;
  /** Namespaced resources: the namespace of every call (absent: all namespaces for list and watch). */
  namespace?: string;
}

/** A watch of a resource's collection: what the caller asks; the path and the metric label are the resource's. */
export type CollectionWatch = Omit<WatchRequest, 'path' | 'resource'>;

/**
 * What a Reflector needs of a resource's API (client-go's ListerWatcher): what it lists and watches, a list and a
 * watch. ResourceClient is one; a test can hand the reflector another.
 */
export interface ListerWatcher<T> {
  readonly resource: ResourceDescriptor<T>;
  /** The namespace listed and watched (undefined: all namespaces, or cluster-scoped). */
  readonly namespace: string | undefined;
  list(fieldSelector?: string, labelSelector?: string, signal?: AbortSignal): Promise<ListResult<T>>;
  watch(w: CollectionWatch): Promise<WatchHandle>;
}

export class ResourceClient<T extends { metadata: { name?: string; resourceVersion?: string } }> implements ListerWatcher<T> {
  readonly transport: KubeTransport;
  readonly kubeConfig: ClusterAccess;

  constructor(kc: ClusterAccess, readonly resource: ResourceDescriptor<T>, private readonly metrics?: Registry,
    private readonly options: ResourceClientOptions = {}) {
    this.transport = KubeTransport.for(kc);
    this.kubeConfig = kc;
  }

  /** The namespace of every call (namespaced resources; undefined: all namespaces, or cluster-scoped). */
  get namespace(): string | undefined {
    return this.options.namespace;
  }

  /** The URL path of the collection. */
  get path(): string {
    const { group, version, plural } = this.resource;
    const ns = this.options.namespace ? `/namespaces/${encodeURIComponent(this.options.namespace)}` : '';
    return `${group ? `/apis/${group}` : '/api'}/${version}${ns}/${plural}`;
  }

  /** Watches the collection; resolves once the server accepted the watch. */
  watch(w: CollectionWatch): Promise<WatchHandle> {
    return this.transport.watch({ ...w, path: this.path, resource: this.resource.plural });
  }

  private call(r: Omit<KubeRequest, 'resource' | 'metrics'>): Promise<unknown> {
    const { fence, signal, timeoutMs } = this.options;
    return this.transport.request({
      ...(signal ? { signal } : {}),
      ...r, resource: this.resource.plural,
      ...(this.metrics ? { metrics: this.metrics } : {}),
      ...(r.timeoutMs === undefined && timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(r.method !== 'GET' && fence ? { fence } : {}),
    });
  }

  /**
   * Every object, page by page (`limit`, then the server's `continue` token, as client-go's pager), all pages
   * bounded together by maxListBytes — a server that never stops handing out tokens ends the list with an
   * error, not a growing heap. An expired token (410) lists once more in one piece, as the pager does.
   * `signal` ends this list early (as well as the client's own).
   */
  async list(fieldSelector?: string, labelSelector?: string, signal?: AbortSignal): Promise<ListResult<T>> {
    const own = this.options.signal;
    const either = signal && own ? AbortSignal.any([signal, own]) : signal ?? own;
    const budget = this.options.maxListBytes ?? MAX_LIST_BYTES;
    let left = budget;
    let token: string | undefined;
    const tooLarge = () => new ResponseTooLargeError('GET', this.path, budget, token === undefined ? 'list' : 'list (all pages together)');
    const page = async (limit: number | undefined, from: string | undefined) => {
      if (left <= 0) throw tooLarge();
      try {
        return await this.call({ method: 'GET', metricMethod: 'LIST', path: this.path, query: { fieldSelector, labelSelector, limit, continue: from },
          maxBodyBytes: left, onBodyBytes: (n) => { left -= n; }, ...(either ? { signal: either } : {}) }) as
          { items?: unknown[]; metadata?: { resourceVersion?: unknown; continue?: unknown } } | undefined;
      } catch (e) {
        throw e instanceof ResponseTooLargeError ? tooLarge() : e;
      }
    };
    const items: T[] = [];
    let resourceVersion = '';
    do {
      let raw;
      try {
        raw = await page(this.options.pageSize ?? LIST_PAGE_SIZE, token);
      } catch (e) {
        if (token === undefined || statusCode(e) !== 410) throw e;
        items.length = 0;
        left = budget;
        raw = await page(undefined, undefined);
      }
      for (const i of raw?.items ?? []) items.push(this.resource.decode(i));
      resourceVersion = String(raw?.metadata?.resourceVersion ?? resourceVersion);
      token = typeof raw?.metadata?.continue === 'string' && raw.metadata.continue !== '' ? raw.metadata.continue : undefined;
    } while (token !== undefined);
    return { items, resourceVersion };
  }

  /**
   * One page of the collection (`limit` objects from the server's continue token `from`), bounded like a list, and the
   * token of the next page (absent: the last). An expired token (410) gives the first page again, as a list starts
   * over. For a reader that walks a large collection a page per period (the operator's kubelet sweep).
   */
  async listPage(limit: number, from?: string): Promise<{ items: T[]; next?: string }> {
    const read = (token: string | undefined) =>
      this.call({
        method: 'GET',
        metricMethod: 'LIST',
        path: this.path,
        query: { limit, continue: token },
        maxBodyBytes: this.options.maxListBytes ?? MAX_LIST_BYTES,
      }) as Promise<{ items?: unknown[]; metadata?: { continue?: unknown } } | undefined>;
    let raw;
    try {
      raw = await read(from);
    } catch (e) {
      if (from === undefined || statusCode(e) !== 410) throw e;
      raw = await read(undefined);
    }
    const next = typeof raw?.metadata?.continue === 'string' && raw.metadata.continue !== '' ? raw.metadata.continue : undefined;
    return { items: (raw?.items ?? []).map((i) => this.resource.decode(i)), ...(next ? { next } : {}) };
  }

  async get(name: string): Promise<T> {
    return this.resource.decode(await this.call({ method: 'GET', path: `${this.path}/${encodeURIComponent(name)}` }));
  }

  /** The named object, or undefined when it does not exist (any other failure is thrown). */
  async find(name: string): Promise<T | undefined> {
    try {
      return await this.get(name);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  /** The named object, created from make() if missing (a concurrent create is read back). */
  async getOrCreate(name: string, make: () => T): Promise<T> {
    const found = await this.find(name);
    if (found) return found;
    try {
      return await this.create(make());
    } catch (err) {
      if (!isConflict(err)) throw err;
      return this.get(name);
    }
  }

  /**
   * The read-then-write of one object: `change` is given what is stored (undefined: nothing) and returns what to
   * write, or undefined to leave it as it is; a missing object is created, a stored one replaced with the
   * resourceVersion it was read at (409 when someone wrote in between: the caller requeues or retries).
   */
  async upsert(name: string, change: (stored: T | undefined) => T | undefined): Promise<{ stored: T | undefined; written: T | undefined }> {
    const stored = await this.find(name);
    const next = change(stored);
    if (next === undefined) return { stored, written: undefined };
    return { stored, written: stored ? await this.replace(next) : await this.create(next) };
  }

  async create(obj: T): Promise<T> {
    return this.resource.decode(await this.call({ method: 'POST', path: this.path, body: obj }));
  }

  /** PUT the main resource; metadata.resourceVersion makes it optimistic (409 on a stale copy). */
  async replace(obj: T): Promise<T> {
    return this.resource.decode(await this.call({ method: 'PUT', path: `${this.path}/${encodeURIComponent(obj.metadata.name ?? '')}`, body: obj }));
  }

  /** PUT the /status subresource with the object's resourceVersion (409 on a stale copy). */
  async replaceStatus(obj: T): Promise<T> {
    return this.resource.decode(await this.call({ method: 'PUT', path: `${this.path}/${encodeURIComponent(obj.metadata.name ?? '')}/status`, body: obj }));
  }

  /**
   * Server-side apply of `obj` (the fields it names) as `fieldManager`; `force` takes fields over from other
   * managers, as controllers that own a field do.
   */
  async apply(obj: T & { apiVersion: string; kind: string }, fieldManager: string, force = false): Promise<T> {
    return this.resource.decode(await this.call({
      method: 'PATCH', path: `${this.path}/${encodeURIComponent(obj.metadata.name ?? '')}`, body: obj, contentType: 'application/apply-patch+yaml',
      query: { fieldManager, ...(force ? { force: true } : {}) },
    }));
  }

  /** A JSON merge patch of the named object (RFC 7386: the fields given replace, null removes). */
  async mergePatch(name: string, patch: Record<string, unknown>): Promise<T> {
    return this.resource.decode(await this.call({
      method: 'PATCH', path: `${this.path}/${encodeURIComponent(name)}`, body: patch, contentType: 'application/merge-patch+json',
    }));
  }

  async delete(name: string): Promise<void> {
    await this.call({ method: 'DELETE', path: `${this.path}/${encodeURIComponent(name)}` });
  }
}

export interface RetryOnConflictOptions {
  /** Tries in all (default 20). */
  attempts?: number;
  /** A pause before each retry, in ms (default none). */
  pauseMs?: () => number;
  /** Called on each conflict that is retried. */
  onConflict?: () => void;
}

/** Runs a read-modify-write again while it fails with 409 Conflict (someone wrote in between). */
export async function retryOnConflict<R>(fn: () => Promise<R>, options: RetryOnConflictOptions = {}): Promise<R> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (e) {
      if (!isConflict(e) || i >= (options.attempts ?? 20)) throw e;
      options.onConflict?.();
      const pause = options.pauseMs?.() ?? 0;
      if (pause > 0) await new Promise((r) => setTimeout(r, pause));
    }
  }
}
