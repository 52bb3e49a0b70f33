// The runtime's promises under a server that does not play fair (a guest API server is its tenant's):
//  - a write's fence is judged before every attempt — the first send, every Retry-After resend — over HTTP/1.1
//    and HTTP/2, for resource writes and Events: a process that lost its Lease while the server throttled it
//    sends nothing more;
//  - a request has one deadline for its whole life, Retry-After waits included, and an abort ends it at once;
//    a controller's stop() aborts the requests of the reconcile in flight;
//  - bodies and watch events are bounded: a 64 MiB body or a newline-free watch stream ends in a clear error
//    after at most the bound is read, not after the server is done;
//  - an error message of 2 MiB reaches errors, logs and the real API server's Events cut and cleaned;
//  - lists come page by page (limit/continue) from the real API server, and a server that never stops handing
//    out continue tokens ends the list at the bound of all pages together.
import { afterEach, describe, expect, it } from '@jest/globals';
import type { ServerResponse } from 'node:http';
import {
  ApiError,
  ConfigMapResource,
  Controller,
  FeatureGateResource,
  KubeTransport,
  MAX_OBJECT_BYTES,
  MAX_TEXT_LINE_BYTES,
  NotLeaderError,
  ResourceClient,
  ResponseTooLargeError,
  apiErrorMessage,
  checkComponent,
  createEventRecorder,
  readComponentGates,
  createLogger,
  loadKubeConfig,
  readKubeconfigText,
  type ClusterAccess,
} from '../../runtime/index.js';
import { MAX_UNTRUSTED_MESSAGE_CHARS, type FeatureGate } from '../../api-types/index.js';
import { kubeconfigPath } from '../support/cluster.js';
import { ensureNamespace } from '../../sdk/testing/index.js';
import { Registry } from 'prom-client';
import { eventually, sleep } from '../support/timing.js';
import { startHostileServer, status, type HostileServer } from '../support/hostile-server.js';

const servers: HostileServer[] = [];
afterEach(async () => { for (const s of servers.splice(0)) await s.close(); });

async function hostile(tls: boolean): Promise<{ server: HostileServer; access: ClusterAccess }> {
  const server = await startHostileServer({ tls });
  servers.push(server);
  return { server, access: readKubeconfigText(server.kubeconfig(), 'hostile')! };
}

const featureGate: FeatureGate = { apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', metadata: { name: 'cluster', resourceVersion: '1' }, spec: {} };

/** A fence that holds until `lostAfterMs`, counting its calls. */
function fenceLostAfter(lostAfterMs: number): { fence: () => void; calls: () => number } {
  const start = Date.now();
  let calls = 0;
  return {
    fence: () => {
      calls++;
      if (Date.now() - start >= lostAfterMs) throw new NotLeaderError('not the leader of Lease test/test: write refused');
    },
    calls: () => calls,
  };
}

/** Streams `total` bytes of `byte` in 64 KiB chunks, honouring backpressure; resolves with what the socket took. */
function stream(res: ServerResponse, total: number, byte: number, head: Record<string, string>): Promise<number> {
  res.writeHead(200, head);
  const chunk = Buffer.alloc(64 * 1024, byte);
  let sent = 0;
  return new Promise((resolve) => {
    res.on('close', () => resolve(sent));
    const pump = () => {
      while (sent < total && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) { res.once('drain', pump); return; }
      }
      res.end();
    };
    pump();
  });
}

describe.each([false, true])('against a throttling server (TLS/HTTP2: %s)', (tls) => {
  it('a write is fenced before every attempt: the Lease lost during a Retry-After wait means no resend', async () => {
    const { server, access } = await hostile(tls);
    server.answer = (_q, res) => status(res, 429, 'too many requests', { 'Retry-After': '1' });
    const f = fenceLostAfter(500);
    const client = new ResourceClient(access, FeatureGateResource, undefined, { fence: f.fence });
    await expect(client.replaceStatus(featureGate)).rejects.toBeInstanceOf(NotLeaderError);
    expect(server.requests.filter((r) => r.method === 'PUT')).toHaveLength(1);
    expect(f.calls()).toBe(2); // the first send, and the resend it refused
    if (tls) expect(server.requests[0]?.httpVersion).toBe('2.0');
    client.transport.close();
  });

  it('an Event (PATCH or POST) is fenced the same way', async () => {
    const { server, access } = await hostile(tls);
    server.answer = (_q, res) => status(res, 429, 'too many requests', { 'Retry-After': '1' });
    const f = fenceLostAfter(500);
    const lines: string[] = [];
    const events = createEventRecorder(access, { namespace: 'ns', component: 'test', fence: f.fence, logger: createLogger({ write: (l) => lines.push(l) }) });
    events.event({ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', namespace: 'ns' }, 'Normal', 'Test', 'hello');
    await events.flush();
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(f.calls()).toBe(2);
    expect(lines.join('')).not.toContain('could not record event'); // stepping down is not a failure to report
    KubeTransport.for(access).close();
  });

  it('one deadline for the whole call: a Retry-After beyond it is not waited, and retries stop at it', async () => {
    const { server, access } = await hostile(tls);
    const transport = new KubeTransport(access);
    server.answer = (_q, res) => status(res, 429, 'come back in an hour', { 'Retry-After': '3600' });
    const e = await transport.request({ method: 'GET', path: '/version', timeoutMs: 500 }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).code).toBe(429);
    expect(server.requests).toHaveLength(1);

    server.answer = (_q, res) => status(res, 429, 'again', { 'Retry-After': '1' });
    const before = server.requests.length;
    await expect(transport.request({ method: 'GET', path: '/version', timeoutMs: 2500 })).rejects.toBeInstanceOf(ApiError);
    // 0 s, 1 s, 2 s — not the 11 attempts (10 s) a per-attempt timeout allowed.
    expect(server.requests.length - before).toBeLessThanOrEqual(3);
    transport.close();
  });

  it('an abort ends a call that has no timeout, in the middle of the server\'s wait', async () => {
    const { server, access } = await hostile(tls);
    const transport = new KubeTransport(access);
    server.answer = (_q, res) => status(res, 429, 'come back in an hour', { 'Retry-After': '3600' });
    const abort = new AbortController();
    const call = transport.request({ method: 'GET', path: '/version', timeoutMs: 0, signal: abort.signal });
    await eventually(() => expect(server.requests).toHaveLength(1));
    abort.abort(new Error('stopping'));
    await expect(call).rejects.toThrow('stopping');
    transport.close();
  });
});

describe('a controller stopping while its reconcile waits on a throttling server', () => {
  it('stop() aborts the request in flight and resolves', async () => {
    const { server, access } = await hostile(false);
    server.answer = (_q, res) => status(res, 429, 'come back in an hour', { 'Retry-After': '3600' });
    const transport = new KubeTransport(access);
    let ended: unknown;
    const c = new Controller({
      name: 'stuck', watches: [], initialKeys: ['k'],
      reconcile: async (_key, signal) => {
        try {
          await transport.request({ method: 'GET', path: '/version', timeoutMs: 0, signal });
        } catch (e) {
          ended = e;
          throw e;
        }
      },
    });
    c.start();
    await eventually(() => expect(server.requests).toHaveLength(1));
    await c.stop();
    expect(String(ended)).toContain('controller stuck stopped');
    transport.close();
  });
});

describe('bounded reads', () => {
  it('a 64 MiB body ends in ResponseTooLargeError after at most the bound (plus socket buffers) is read', async () => {
    const { server, access } = await hostile(false);
    let took: Promise<number> = Promise.resolve(0);
    server.answer = (_q, res) => { took = stream(res, 64 * 1024 * 1024, 0x20, { 'Content-Type': 'application/json' }); };
    const transport = new KubeTransport(access);
    const e = await transport.request({ method: 'GET', path: '/apis/config.openshift.io/v1/featuregates/cluster' }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ResponseTooLargeError);
    expect((e as Error).message).toContain(`larger than ${MAX_OBJECT_BYTES} bytes`);
    expect(await took).toBeLessThan(MAX_OBJECT_BYTES + 8 * 1024 * 1024);
    // What it made the transport read is counted (a hosted replica's memory budget weighs its guests by it).
    expect(transport.bytesRead).toBeGreaterThan(MAX_OBJECT_BYTES);
    expect(transport.bytesRead).toBeLessThan(MAX_OBJECT_BYTES + 8 * 1024 * 1024);
    transport.close();
  });

  it('a text body (/metrics) is bounded per line and in all, and each error names the bound it passed', async () => {
    const { server, access } = await hostile(false);
    const transport = new KubeTransport(access);
    const lines: string[] = [];
    const read = (maxBodyBytes: number) => transport.request({ method: 'GET', path: '/metrics', accept: 'text/plain', maxBodyBytes, onLine: (l) => lines.push(l) })
      .then(() => undefined, (err: unknown) => err);
    let took: Promise<number> = Promise.resolve(0);
    server.answer = (_q, res) => { took = stream(res, 64 * 1024 * 1024, 0x61, { 'Content-Type': 'text/plain' }); };
    const long = await read(64 * 1024 * 1024);
    expect(long).toBeInstanceOf(ResponseTooLargeError);
    expect((long as Error).message).toContain(`response line is larger than ${MAX_TEXT_LINE_BYTES} bytes`);
    expect(await took).toBeLessThan(MAX_TEXT_LINE_BYTES + 8 * 1024 * 1024);
    expect(lines).toEqual([]);
    server.answer = (_q, res) => { res.writeHead(200, { 'Content-Type': 'text/plain' }); res.end(`${'x 1\n'.repeat(100_000)}`); };
    const big = await read(64 * 1024);
    expect(big).toBeInstanceOf(ResponseTooLargeError);
    expect((big as Error).message).toContain(`response body is larger than ${64 * 1024} bytes`);
    transport.close();
  });

  it('a /metrics naming 200,000 gates (a hosted guest\'s, say) keeps only the gates being judged, and judges them', async () => {
    const { server, access } = await hostile(false);
    server.answer = (q, res) => {
      if (!(q.url ?? '').startsWith('/metrics')) return status(res, 404, 'not here');
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      const flood = Array.from({ length: 200_000 }, (_, i) => `kubernetes_feature_enabled{name="Forged${i}${'x'.repeat(40)}",stage="ALPHA"} 1\n`).join('');
      res.end(`${flood}kubernetes_feature_enabled{name="APIResponseCompression",stage="BETA"} 0\n`);
    };
    const desired = [{ name: 'APIResponseCompression', enabled: true }, { name: 'Forged7', enabled: true }];
    const read = await readComponentGates(access, undefined, new Set(desired.map((g) => g.name)));
    expect([...read.running]).toEqual([['APIResponseCompression', false]]); // not the 200,000 others
    const check = await checkComponent(access, 'kube-apiserver', desired, { lifecycle: () => new Map() });
    expect(check.gates.map((g) => [g.name, g.verdict])).toEqual([['APIResponseCompression', 'mismatch'], ['Forged7', 'not-in-component']]);
  });

  it('a newline-free watch stream ends the watch with ResponseTooLargeError at the bound', async () => {
    const { server, access } = await hostile(false);
    let took: Promise<number> = Promise.resolve(0);
    server.answer = (_q, res) => { took = stream(res, 256 * 1024 * 1024, 0x61, { 'Content-Type': 'application/json' }); };
    const transport = new KubeTransport(access);
    const ended = new Promise<Error | undefined>((resolve) => {
      void transport.watch({ path: '/apis/config.openshift.io/v1/featuregates', query: {}, onEvent: () => undefined, onEnd: resolve });
    });
    const err = await ended;
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect(err?.message).toContain('watch event is larger than');
    expect(await took).toBeLessThan(MAX_OBJECT_BYTES + 8 * 1024 * 1024);
    expect(transport.bytesRead).toBeGreaterThan(MAX_OBJECT_BYTES); // a watch stream's bytes count as a body's
    transport.close();
  });

  it('an exception thrown while handling a watch event ends that watch with the error, not the process', async () => {
    const { server, access } = await hostile(false);
    server.answer = (_q, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } })}\n`);
    };
    const transport = new KubeTransport(access);
    const err = await new Promise<Error | undefined>((resolve) => {
      void transport.watch({ path: '/apis/config.openshift.io/v1/featuregates', query: {}, onEnd: resolve,
        onEvent: () => { throw new RangeError('Invalid array length'); } });
    });
    expect(err?.message).toContain('handling an event failed: Invalid array length');
    transport.close();
  });

  it('a 2 MiB error message with terminal escapes is cut and cleaned in the error, the log line and a real Event', async () => {
    const { server, access } = await hostile(true);
    const huge = `\x1b[31mred\x1b[0m\n${'m'.repeat(2 * 1024 * 1024)}`;
    server.answer = (_q, res) => status(res, 500, huge);
    const transport = new KubeTransport(access);
    const e = await transport.request({ method: 'GET', path: '/version' }).catch((err: unknown) => err) as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    const text = apiErrorMessage(e);
    // The error body is read up to 64 KiB only, so a message that long no longer parses as a Status: its start is kept.
    expect(text.length).toBeLessThan(MAX_UNTRUSTED_MESSAGE_CHARS + 100);
    expect(text).toMatch(/more characters\]$/);
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/[\x00-\x1f]/);
    const lines: string[] = [];
    createLogger({ write: (l) => lines.push(l), format: 'text', color: false }).error('failed', { error: e });
    expect(lines[0]!.length).toBeLessThan(MAX_UNTRUSTED_MESSAGE_CHARS + 300);
    expect(lines[0]).not.toContain('\x1b');
    transport.close();

    // A message just under the error-body bound parses, and is cut to the stated length.
    server.answer = (_q, res) => status(res, 500, `\x1b]0;title\x07${'n'.repeat(60_000)}`);
    const t2 = new KubeTransport(access);
    const e2 = await t2.request({ method: 'GET', path: '/version' }).catch((err: unknown) => err) as ApiError;
    expect(e2.serverMessage?.length).toBeLessThanOrEqual(MAX_UNTRUSTED_MESSAGE_CHARS + 40);
    expect(e2.serverMessage).toMatch(/^ \]0;title n+… \[\d+ more characters\]$/);
    t2.close();

    // The real API server keeps what the recorder sends: the Event's message is cut too.
    const real = await loadKubeConfig(kubeconfigPath('ours'));
    const ns = 'default';
    const reason = `Bounded${Date.now()}`;
    const events = createEventRecorder(real, { namespace: ns, component: 'bounded-test' });
    events.event({ apiVersion: 'v1', kind: 'ConfigMap', name: 'bounded', namespace: ns }, 'Warning', reason, huge);
    await events.flush();
    const list = await KubeTransport.for(real).request({ method: 'GET', path: `/api/v1/namespaces/${ns}/events`, query: { fieldSelector: `reason=${reason}` } }) as { items: { message: string }[] };
    expect(list.items).toHaveLength(1);
    expect(list.items[0]!.message.length).toBeLessThanOrEqual(1024 + 40);
    expect(list.items[0]!.message).not.toContain('\x1b');
    await sleep(0);
  });

  it('a list comes page by page from the real API server: every object, one LIST per page', async () => {
    const kc = await loadKubeConfig(kubeconfigPath());
    const namespace = `paged-${Date.now()}`;
    await ensureNamespace(kc, namespace);
    const writer = new ResourceClient(kc, ConfigMapResource, undefined, { namespace });
    for (let i = 0; i < 7; i++) await writer.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace }, data: {} });
    const metrics = new Registry();
    const list = await new ResourceClient(kc, ConfigMapResource, metrics, { namespace, pageSize: 3 }).list();
    expect(list.items.map((c) => c.metadata.name).sort()).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `cm-${i}`));
    expect(Number(list.resourceVersion)).toBeGreaterThan(0);
    const lists = (await metrics.getSingleMetric('rest_client_requests_total')!.get()).values.filter((v) => v.labels.method === 'LIST');
    expect(lists.reduce((n, v) => n + v.value, 0)).toBe(3); // 3 + 3 + 1
  });

  it('a server that hands out continue tokens forever ends the list at the bound of all pages, not a growing heap', async () => {
    const { server, access } = await hostile(true);
    let n = 0;
    server.answer = (_q, res) => {
      n++;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ metadata: { resourceVersion: '1', continue: `more-${n}` }, items: [{ metadata: { name: `x-${n}`, pad: 'p'.repeat(4000) } }] }));
    };
    const err = await new ResourceClient(access, ConfigMapResource, undefined, { namespace: 'x', maxListBytes: 100_000 }).list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect((err as Error).message).toContain('list (all pages together) is larger than 100000 bytes');
    expect(n).toBeGreaterThanOrEqual(20); // ~4 KB a page: the budget, not the first page, ended it
    expect(n).toBeLessThanOrEqual(26);
    expect(server.requests.at(-1)?.path).toContain('continue=more-');
  });
});
