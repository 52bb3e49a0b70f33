// The transport speaks HTTP/2 to kube-apiserver, as client-go does: every request and watch of one identity
// on one connection, health-checked by pings — which is what lets a reflector ask for client-go's 5–10 minute
// watches and still notice a silently dropped path. A server that does not agree to h2 (ALPN), and
// DISABLE_HTTP2, get HTTP/1.1 and the short watches that path needs.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { join } from 'node:path';
import {
  ConnectionSilent,
  FeatureGateResource,
  createLogger,
  KubeTransport,
  Reflector,
  ResourceClient,
  WATCH_SECONDS,
  StaticKubeConfig,
  loadKubeConfig,
  readKubeconfigText,
  silentLogger,
  type ClusterAccess,
  type WatchHandle,
  withTransportConfig,
  type TransportConfig,
} from '../../runtime/index.js';
import { selfSignedCert } from '../../runtime/serving/self-signed-cert.js';
import { GUEST_WATCH_SECONDS, GuestConnection } from '../../hosted/guest-connection.js';
import { adminKubeconfig } from '../../control-plane/auth.js';
import { startBlackholeProxy, type BlackholeProxy } from '../../hack/chaos/blackhole-proxy.js';
import { writeKubeconfigFor } from '../../hack/chaos/lib.js';
import { startThrottleProxy, type ThrottleProxy } from '../support/throttle-proxy.js';
import { kubeconfigPath } from '../support/cluster.js';
import { eventually } from '../support/timing.js';
import { tempDirs } from '../support/temp.js';

const tempDir = tempDirs();
let direct: ClusterAccess;

beforeAll(async () => {
  direct = await loadKubeConfig(kubeconfigPath('ours'));
});

async function viaBlackhole(proxy: BlackholeProxy): Promise<ClusterAccess> {
  const path = writeKubeconfigFor(`https://127.0.0.1:${proxy.port}`, readFileSync(kubeconfigPath('ours'), 'utf8'), join(tempDir('h2'), 'kubeconfig'));
  return loadKubeConfig(path);
}

/** `fn` with a transport to the shared kube-apiserver through a fresh black-hole proxy; both closed after. */
async function throughBlackhole(
  fn: (proxy: BlackholeProxy, t: KubeTransport) => Promise<void>,
  config: TransportConfig = {},
): Promise<void> {
  const proxy = await startBlackholeProxy(Number(new URL(direct.getCurrentCluster()!.server).port));
  try {
    const t = new KubeTransport(await viaBlackhole(proxy), config);
    try {
      await fn(proxy, t);
    } finally {
      t.close();
    }
  } finally {
    await proxy.close();
  }
}

function watchFeatureGates(t: KubeTransport, onEnd: (err?: Error) => void): Promise<WatchHandle> {
  return t.watch({ path: '/apis/config.openshift.io/v1/featuregates', query: { allowWatchBookmarks: true, timeoutSeconds: 600 }, onEvent: () => undefined, onEnd });
}

describe('HTTP/2 transport', () => {
  it('sends requests and watches of one identity as streams of one connection', async () => {
    await throughBlackhole(async (proxy, t) => {
      const watches = await Promise.all([watchFeatureGates(t, () => undefined), watchFeatureGates(t, () => undefined)]);
      await Promise.all(Array.from({ length: 8 }, () => t.request({ method: 'GET', path: '/version' })));
      expect(watches.map((w) => w.pinged)).toEqual([true, true]);
      expect(proxy.accepted).toBe(1);
      for (const w of watches) w.abort();
    });
  });

  it('opens another connection when one is at the server\'s stream limit (100 here): 150 watches, 2 connections', async () => {
    await throughBlackhole(async (proxy, t) => {
      await t.request({ method: 'GET', path: '/version' }); // the server's settings are known from here on
      const watches = await Promise.all(Array.from({ length: 150 }, () => watchFeatureGates(t, () => undefined)));
      await expect(t.request({ method: 'GET', path: '/version' })).resolves.toHaveProperty('gitVersion');
      expect(proxy.accepted).toBe(2);
      for (const w of watches) w.abort();
    });
  });

  it('finds a silent connection by its ping: the watches on it end with ConnectionSilent, and a new connection serves after heal', async () => {
    await throughBlackhole(async (proxy, t) => {
      let ended: Error | undefined | 'open' = 'open';
      await watchFeatureGates(t, (err) => { ended = err; });
      proxy.blackhole();
      const t0 = Date.now();
      await eventually(() => expect(ended).toBeInstanceOf(ConnectionSilent), 5_000);
      expect(Date.now() - t0).toBeLessThan(3_000);
      expect(String(ended)).toMatch(/no answer to an HTTP\/2 ping within 500 ms/);
      proxy.heal();
      await expect(t.request({ method: 'GET', path: '/version' })).resolves.toHaveProperty('gitVersion');
      expect(proxy.accepted).toBe(2);
    }, { http2Timing: { readIdleMs: 500, pingTimeoutMs: 500 } });
  });

  it('a request that timed out checks its connection at once: a silent one is dropped one ping timeout later', async () => {
    await throughBlackhole(async (proxy, t) => {
      let ended: Error | undefined | 'open' = 'open';
      await watchFeatureGates(t, (err) => { ended = err; });
      proxy.blackhole();
      await expect(t.request({ method: 'GET', path: '/version', timeoutMs: 300 })).rejects.toThrow(/no answer from the API server within 300 ms/);
      await eventually(() => expect(ended).toBeInstanceOf(ConnectionSilent), 3_000);
    }, { http2Timing: { readIdleMs: 60_000, pingTimeoutMs: 500 } }); // the idle ping would come too late
  });

  it('a TLS server that negotiates no ALPN at all is spoken to over HTTP/1.1', async () => {
    // TLS in front of a plain HTTP server, with no ALPN (as some proxies): Node's HTTP/2 client would send h2
    // frames anyway; the transport sees no "h2" agreed and falls back.
    const tlsMaterial = selfSignedCert('no-alpn', ['127.0.0.1']);
    const backend = createHttpServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ gitVersion: 'v0.0.0-no-alpn', httpVersion: req.httpVersion }));
    });
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    const front = createTlsServer({ cert: tlsMaterial.cert, key: tlsMaterial.key }, (socket) => {
      const up = connect((backend.address() as AddressInfo).port, '127.0.0.1');
      socket.pipe(up).pipe(socket);
      socket.on('error', () => up.destroy());
      up.on('error', () => socket.destroy());
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    try {
      const access = readKubeconfigText(adminKubeconfig(`https://127.0.0.1:${(front.address() as AddressInfo).port}`, tlsMaterial.cert, 'token'), 'no-alpn') as StaticKubeConfig;
      const lines: string[] = [];
      const t = new KubeTransport(access, { logger: createLogger({ write: (l) => lines.push(l) }) });
      await expect(t.request({ method: 'GET', path: '/version' })).resolves.toEqual({ gitVersion: 'v0.0.0-no-alpn', httpVersion: '1.1' });
      await expect(t.request({ method: 'GET', path: '/version' })).resolves.toHaveProperty('httpVersion', '1.1');
      const watch = await watchFeatureGates(t, () => undefined);
      expect(watch.pinged).toBe(false);
      watch.abort();
      // Said once per server, in a line an operator can find: which server, and why.
      expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([expect.objectContaining({
        level: 'info', msg: expect.stringContaining('speaking HTTP/1.1'), server: access.getCurrentCluster()!.server, why: expect.stringContaining('did not agree to HTTP/2'),
      })]);
      t.close();
    } finally {
      front.close();
      backend.closeAllConnections();
      backend.close();
    }
  });

  describe('reflectors ask for watches as long as the connection allows', () => {
    let h2: ThrottleProxy;
    let h1: ThrottleProxy;
    const dir = () => tempDir('h2-reflector');
    beforeAll(async () => {
      const server = direct.getCurrentCluster()!.server;
      h2 = await startThrottleProxy(server);
      h1 = await startThrottleProxy(server, { http1Only: true });
    });
    afterAll(async () => {
      await h2.close();
      await h1.close();
    });

    /** Spoken over `version` only, pinged or not, and every watch asked for a timeout within [lo, hi]. */
    function expectWatches(
      got: { timeouts: number[]; versions: string[]; pinged: boolean },
      version: string,
      pinged: boolean,
      [lo, hi]: [number, number],
    ) {
      expect({ versions: got.versions, pinged: got.pinged }).toEqual({ versions: [version], pinged });
      expect(got.timeouts.length).toBeGreaterThan(0);
      expect(got.timeouts.filter((t) => t < lo || t > hi)).toEqual([]);
    }
    async function watchTimeouts(
      proxy: ThrottleProxy,
      config?: TransportConfig,
    ): Promise<{ timeouts: number[]; versions: string[]; pinged: boolean }> {
      const token = (JSON.parse(readFileSync(kubeconfigPath('ours'), 'utf8')) as { users: { user: { token: string } }[] }).users[0]!.user
        .token;
      const path = join(dir(), `kubeconfig-${proxy.server.split(':').pop()}`);
      writeFileSync(path, proxy.kubeconfig(token));
      const loaded = await loadKubeConfig(path);
      const kc = config ? withTransportConfig(loaded, config) : loaded;
      const r = new Reflector(new ResourceClient(kc, FeatureGateResource), { name: 'cluster' });
      r.start();
      await r.synced;
      await eventually(() => expect(proxy.requests.some((q) => q.query.get('watch') === 'true')).toBe(true), 5_000);
      await r.stop();
      const watches = proxy.requests.filter((q) => q.query.get('watch') === 'true');
      const another = await watchFeatureGates(KubeTransport.for(kc), () => undefined); // on the reflector's connections
      another.abort();
      return {
        timeouts: watches.map((q) => Number(q.query.get('timeoutSeconds'))),
        versions: [...new Set(proxy.requests.map((q) => q.httpVersion))],
        pinged: another.pinged,
      };
    }

    it('over HTTP/2: client-go\'s 5–10 minutes', async () => {
      expectWatches(await watchTimeouts(h2), '2.0', true, WATCH_SECONDS);
    });

    it('a request refused after the server\'s GOAWAY (not processed) is sent again on a new connection', async () => {
      const token = (JSON.parse(readFileSync(kubeconfigPath('ours'), 'utf8')) as { users: { user: { token: string } }[] }).users[0]!.user.token;
      const path = join(dir(), 'kubeconfig-refused');
      writeFileSync(path, h2.kubeconfig(token));
      const t = new KubeTransport(await loadKubeConfig(path));
      try {
        await t.request({ method: 'GET', path: '/version' }); // the connection is up
        h2.requests.length = 0;
        const connections = h2.connections;
        h2.refuseNext();
        const name = `refused-${Date.now()}`;
        const created = await t.request({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } } }) as { metadata: { name: string } };
        expect(created.metadata.name).toBe(name);
        expect(h2.requests.map((q) => `${q.method} ${q.refused ? 'refused' : 'forwarded'}`)).toEqual(['POST refused', 'POST forwarded']);
        expect(h2.connections).toBe(connections + 1);
        await t.request({ method: 'DELETE', path: `/api/v1/namespaces/default/configmaps/${name}` });
      } finally {
        t.close();
      }
    });

    it('from a server that does not agree to h2: HTTP/1.1, with client-go\'s 5–10 minute watches too (a silent one is the inactivity timer\'s)', async () => {
      expectWatches(await watchTimeouts(h1), '1.1', false, WATCH_SECONDS);
    });

    it('with http2 off on the transport: HTTP/1.1 to a server that speaks h2', async () => {
      h2.requests.length = 0;
      expectWatches(await watchTimeouts(h2, { http2: false }), '1.1', false, WATCH_SECONDS);
    });

    // Guests were on HTTP/1.1 until a replica with 670 live guests measured HTTP/2 better on memory, idle CPU and
    // take-over (docs/hosted.md § "Guests over HTTP/2"); a guest that refuses h2 is still spoken to, over HTTP/1.1.
    it.each([['agrees to h2', '2.0', () => h2], ['refuses h2', '1.1', () => h1]] as const)(
      'a hosted guest connection lists and watches a guest that %s over HTTP/%s, in 30–60 minute watches', async (_what, version, server) => {
        const s = server();
        s.requests.length = 0;
        const token = (JSON.parse(readFileSync(kubeconfigPath('ours'), 'utf8')) as { users: { user: { token: string } }[] }).users[0]!.user.token;
        const guest = new GuestConnection(s.kubeconfig(token), 'test guest', 'replica-0', () => undefined, () => undefined, {}, 'config-operator', undefined, silentLogger);
        try {
          await guest.clusterVersions.synced;
          await eventually(() => expect(s.requests.some((q) => q.query.get('watch') === 'true')).toBe(true), 5_000);
          expect([...new Set(s.requests.map((q) => q.httpVersion))]).toEqual([version]);
          // kube-apiserver's own range for a watch that does not ask (--min-request-timeout 1800 s, up to twice that).
          const timeouts = s.requests.filter((q) => q.query.get('watch') === 'true').map((q) => Number(q.query.get('timeoutSeconds')));
          expect(timeouts.filter((t) => t < GUEST_WATCH_SECONDS[0] || t > GUEST_WATCH_SECONDS[1])).toEqual([]);
          expect(GUEST_WATCH_SECONDS).toEqual([1800, 3600]);
        } finally {
          await guest.stop();
        }
      });

    it('with DISABLE_HTTP2 set (client-go\'s switch): HTTP/1.1 to a server that speaks h2', async () => {
      process.env.DISABLE_HTTP2 = '1';
      try {
        h2.requests.length = 0;
        expectWatches(await watchTimeouts(h2), '1.1', false, WATCH_SECONDS);
      } finally {
        delete process.env.DISABLE_HTTP2;
      }
    });
  });
});
