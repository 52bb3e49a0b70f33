// Hollow guests (like Kubernetes' kubemark hollow nodes): one process serving many guest API endpoints, each
// answering exactly the part of the API that `featuregates hosted` uses of a guest, the way kube-apiserver does
// where the coordinator can tell — for the fleet benchmark at management-cluster scale, where a real
// kube-apiserver per guest does not fit on one machine. Functional tests keep the real API server; the
// conformance test (test/integration/hollow-guest-conformance.test.ts) sends the same requests to both.
//
// Per guest, a port of its own, TLS with HTTP/2 (and HTTP/1.1), a bearer token:
//  - config.openshift.io/v1 featuregates, clusterversions, clusteroperators (cluster-scoped): list (fieldSelector
//    metadata.name=…) with the collection's resourceVersion; get; create (409 AlreadyExists); update of the object
//    or its /status with optimistic concurrency (409 Conflict on a stale resourceVersion; an object update keeps
//    the status, a status update keeps the spec; generation moves with the spec);
//  - watch from a resourceVersion (events after it, then as they happen), or with sendInitialEvents (the
//    objects, then the initial-events-end bookmark), bookmarks every BOOKMARK_MS, the end at timeoutSeconds; a
//    resourceVersion older than the last EVENT_WINDOW events: an ERROR event with a 410 Expired Status;
//  - GET /version (v1.36.3, emulation 1.36), /metrics with `kubernetes_feature_enabled` lines; /flagz 404.
import { randomUUID } from 'node:crypto';
import { createSecureServer, type Http2SecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { selfSignedCert } from '../../runtime/serving/self-signed-cert.js';

const GROUP_PATH = '/apis/config.openshift.io/v1/';
const KINDS: Readonly<Record<string, string>> = { featuregates: 'FeatureGate', clusterversions: 'ClusterVersion', clusteroperators: 'ClusterOperator' };
/** How many events a guest keeps for watches that resume (kube-apiserver's watch cache keeps more; the rule is the same). */
export const EVENT_WINDOW = 100;
const BOOKMARK_MS = 60_000;

type Obj = {
  apiVersion?: string;
  kind?: string;
  metadata: Record<string, unknown> & { name?: string; resourceVersion?: string; generation?: number };
  spec?: unknown;
  status?: unknown;
};
type Event = { rv: number; type: 'ADDED' | 'MODIFIED' | 'DELETED'; resource: string; object: Obj };
interface Watcher { resource: string; name: string | undefined; res: Http2ServerResponse; end(): void }

export interface HollowGuest {
  readonly index: number;
  readonly url: string;
  kubeconfig(): string;
  /** The stored object, as the API would return it. */
  get(resource: 'featuregates' | 'clusterversions' | 'clusteroperators', name: string): Obj | undefined;
  /** Writes an object as a client would (create or replace, no concurrency check): for setting a guest up. */
  put(resource: 'featuregates' | 'clusterversions' | 'clusteroperators', object: Obj): Obj;
  /** Requests with a method other than GET it answered 2xx, by path. */
  readonly writes: Map<string, number>;
  /** Open watches. */
  watchers(): number;
}

export interface HollowFleet {
  readonly guests: HollowGuest[];
  close(): Promise<void>;
}

/** The Status kube-apiserver answers an error with. */
function status(res: Http2ServerResponse, code: number, reason: string, message: string, details?: Record<string, unknown>): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code }));
}

function json(res: Http2ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function readBody(req: Http2ServerRequest): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

/** `metadata.name=x` of a fieldSelector (the only selector the coordinator sends); undefined: all. */
function nameSelected(fieldSelector: string | null): string | undefined {
  const m = /^metadata\.name=(.*)$/.exec(fieldSelector ?? '');
  return m ? m[1] : undefined;
}

class Guest implements HollowGuest {
  readonly writes = new Map<string, number>();
  private rv = 1;
  private readonly store = new Map<string, Map<string, Obj>>(Object.keys(KINDS).map((r) => [r, new Map()]));
  private events: Event[] = [];
  private readonly open = new Set<Watcher>();
  url = '';

  constructor(
    readonly index: number,
    private readonly token: string,
    private readonly ca: string,
    private readonly gates: ReadonlyMap<string, boolean>,
  ) {}

  kubeconfig(): string {
    return [
      'apiVersion: v1',
      'kind: Config',
      'current-context: c',
      `clusters: [{name: c, cluster: {server: "${this.url}", certificate-authority-data: ${Buffer.from(this.ca).toString('base64')}}}]`,
      `users: [{name: u, user: {token: ${this.token}}}]`,
      'contexts: [{name: c, context: {cluster: c, user: u}}]',
      '',
    ].join('\n');
  }

  get(resource: string, name: string): Obj | undefined {
    return this.store.get(resource)?.get(name);
  }

  put(resource: string, object: Obj): Obj {
    const current = this.get(resource, object.metadata.name ?? '');
    return this.commit(
      resource,
      { ...object, metadata: { ...(current?.metadata ?? {}), ...object.metadata } },
      current ? 'MODIFIED' : 'ADDED',
    );
  }

  watchers(): number {
    return this.open.size;
  }

  closeWatches(): void {
    for (const w of [...this.open]) w.end();
  }

  private commit(resource: string, object: Obj, type: Event['type']): Obj {
    const rv = ++this.rv;
    const current = this.get(resource, object.metadata.name!);
    const stored: Obj = {
      ...object,
      apiVersion: 'config.openshift.io/v1',
      kind: KINDS[resource]!,
      metadata: {
        ...object.metadata,
        resourceVersion: String(rv),
        uid: current?.metadata.uid ?? object.metadata.uid ?? randomUUID(),
        creationTimestamp: current?.metadata.creationTimestamp ?? new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        generation: object.metadata.generation ?? 1,
      },
    };
    this.store.get(resource)!.set(stored.metadata.name!, stored);
    this.events.push({ rv, type, resource, object: stored });
    if (this.events.length > EVENT_WINDOW) this.events = this.events.slice(-EVENT_WINDOW);
    for (const w of this.open)
      if (w.resource === resource && (w.name === undefined || w.name === stored.metadata.name))
        w.res.write(`${JSON.stringify({ type, object: stored })}\n`);
    return stored;
  }

  async handle(req: Http2ServerRequest, res: Http2ServerResponse): Promise<void> {
    const url = new URL(req.url, 'https://guest');
    if (req.headers.authorization !== `Bearer ${this.token}`) return status(res, 401, 'Unauthorized', 'Unauthorized');
    if (req.method === 'GET' && url.pathname === '/version') {
      return json(res, 200, {
        major: '1',
        minor: '36',
        emulationMajor: '1',
        emulationMinor: '36',
        minCompatibilityMajor: '1',
        minCompatibilityMinor: '35',
        gitVersion: 'v1.36.3',
        gitCommit: 'hollow',
        gitTreeState: 'clean',
        buildDate: '2026-01-01T00:00:00Z',
        goVersion: 'go1.26',
        compiler: 'gc',
        platform: 'linux/amd64',
      });
    }
    if (req.method === 'GET' && url.pathname === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
      const lines = [
        '# HELP kubernetes_feature_enabled [BETA] This metric records the data about the stage and enablement of a k8s feature.',
        '# TYPE kubernetes_feature_enabled gauge',
        ...[...this.gates].map(([name, on]) => `kubernetes_feature_enabled{name="${name}",stage=""} ${on ? 1 : 0}`),
      ];
      return void res.end(`${lines.join('\n')}\n`);
    }
    const m = url.pathname.startsWith(GROUP_PATH)
      ? /^([a-z]+)(?:\/([^/]+))?(?:\/(status))?$/.exec(url.pathname.slice(GROUP_PATH.length))
      : null;
    const resource = m?.[1];
    if (!m || !resource || !KINDS[resource]) return status(res, 404, 'NotFound', 'the server could not find the requested resource');
    const name = m[2];
    const sub = m[3];
    const kind = KINDS[resource]!;
    const gr = `${resource}.config.openshift.io`;
    if (req.method === 'GET' && !name) {
      const selected = nameSelected(url.searchParams.get('fieldSelector'));
      const watch = url.searchParams.get('watch');
      if (watch === '1' || watch === 'true') return this.watch(resource, selected, url, res);
      const items = [...this.store.get(resource)!.values()].filter((o) => selected === undefined || o.metadata.name === selected);
      return json(res, 200, {
        apiVersion: 'config.openshift.io/v1',
        kind: `${kind}List`,
        metadata: { resourceVersion: String(this.rv) },
        items,
      });
    }
    if (req.method === 'GET' && name && !sub) {
      const o = this.get(resource, name);
      return o
        ? json(res, 200, o)
        : status(res, 404, 'NotFound', `${gr} "${name}" not found`, { name, group: 'config.openshift.io', kind: resource });
    }
    const body = JSON.parse(await readBody(req)) as Obj;
    if (req.method === 'POST' && !name) {
      const n = body.metadata?.name ?? '';
      if (this.get(resource, n))
        return status(res, 409, 'AlreadyExists', `${gr} "${n}" already exists`, { name: n, group: 'config.openshift.io', kind: resource });
      const { resourceVersion: _drop, ...meta } = body.metadata;
      this.count(url.pathname);
      return json(res, 201, this.commit(resource, { ...body, status: body.status ?? {}, metadata: { ...meta, generation: 1 } }, 'ADDED'));
    }
    if (req.method === 'PUT' && name) {
      const current = this.get(resource, name);
      if (!current)
        return status(res, 404, 'NotFound', `${gr} "${name}" not found`, { name, group: 'config.openshift.io', kind: resource });
      if (body.metadata?.resourceVersion !== undefined && body.metadata.resourceVersion !== current.metadata.resourceVersion) {
        return status(
          res,
          409,
          'Conflict',
          `Operation cannot be fulfilled on ${gr} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
          { name, group: 'config.openshift.io', kind: resource },
        );
      }
      this.count(url.pathname);
      const next: Obj =
        sub === 'status'
          ? { ...current, status: body.status }
          : {
              ...body,
              status: current.status,
              metadata: {
                ...body.metadata,
                generation:
                  JSON.stringify(body.spec) === JSON.stringify(current.spec)
                    ? current.metadata.generation
                    : (current.metadata.generation ?? 1) + 1,
              },
            };
      return json(res, 200, this.commit(resource, next, 'MODIFIED'));
    }
    return status(res, 405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`);
  }

  private count(path: string): void {
    this.writes.set(path, (this.writes.get(path) ?? 0) + 1);
  }

  private watch(resource: string, name: string | undefined, url: URL, res: Http2ServerResponse): void {
    const send = (e: unknown) => res.write(`${JSON.stringify(e)}\n`);
    const kind = KINDS[resource]!;
    const bookmark = (annotations?: Record<string, string>) =>
      send({
        type: 'BOOKMARK',
        object: {
          apiVersion: 'config.openshift.io/v1',
          kind,
          metadata: { resourceVersion: String(this.rv), ...(annotations ? { annotations } : {}) },
        },
      });
    res.writeHead(200, { 'content-type': 'application/json' });
    // Accepted at once, events or not, as kube-apiserver does: over HTTP/2 writeHead sends the headers; a client that
    // fell back to HTTP/1.1 gets an http.ServerResponse here, which holds them until the first write unless flushed.
    (res as unknown as { flushHeaders?: () => void }).flushHeaders?.();
    const matches = (e: Event) => e.resource === resource && (name === undefined || e.object.metadata.name === name);
    if (url.searchParams.get('sendInitialEvents') === 'true') {
      for (const o of this.store.get(resource)!.values())
        if (name === undefined || o.metadata.name === name) send({ type: 'ADDED', object: o });
      bookmark({ 'k8s.io/initial-events-end': 'true' });
    } else {
      const from = Number(url.searchParams.get('resourceVersion') ?? '0');
      const oldest = this.events[0]?.rv ?? this.rv + 1;
      if (from > 0 && from < oldest - 1) {
        send({
          type: 'ERROR',
          object: {
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Failure',
            message: `too old resource version: ${from} (${oldest - 1})`,
            reason: 'Expired',
            code: 410,
          },
        });
        return void res.end();
      }
      for (const e of this.events) if (e.rv > from && matches(e)) send({ type: e.type, object: e.object });
    }
    const timeout = Number(url.searchParams.get('timeoutSeconds') ?? '1800') * 1000;
    const bookmarks = url.searchParams.get('allowWatchBookmarks') === 'true' ? setInterval(() => bookmark(), BOOKMARK_MS) : undefined;
    const w: Watcher = {
      resource,
      name,
      res,
      end: () => {
        clearTimeout(ending);
        clearInterval(bookmarks);
        this.open.delete(w);
        if (!res.writableEnded) res.end();
      },
    };
    const ending = setTimeout(() => w.end(), timeout);
    this.open.add(w);
    res.on('close', () => w.end());
  }
}

/**
 * `n` hollow guests, each on a port of its own. `gates`: what each one's kube-apiserver reports in
 * kubernetes_feature_enabled (default: none). Objects are created by the caller (put) or by the coordinator.
 */
export async function startHollowGuests(n: number, o: { gates?: ReadonlyMap<string, boolean> } = {}): Promise<HollowFleet> {
  const cert = selfSignedCert('hollow-guest', ['127.0.0.1']);
  const servers: Http2SecureServer[] = [];
  const guests: Guest[] = [];
  const sessions = new Set<{ destroy(): void }>();
  for (let i = 0; i < n; i++) {
    const g = new Guest(i, `hollow-${i}-${randomUUID()}`, cert.cert, o.gates ?? new Map());
    const server = createSecureServer({ cert: cert.cert, key: cert.key, allowHTTP1: true }, (req, res) => {
      g.handle(req, res).catch((e: Error) => { if (!res.headersSent) status(res, 500, 'InternalError', e.message); else res.end(); });
    });
    server.on('session', (s) => { sessions.add(s); s.once('close', () => sessions.delete(s)); });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    g.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    servers.push(server);
    guests.push(g);
  }
  return {
    guests,
    async close() {
      for (const g of guests) g.closeWatches();
      for (const s of sessions) s.destroy();
      await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
}
