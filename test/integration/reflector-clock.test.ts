// The reflector's timing on a fake clock (its backoff waits, its inactivity timer, its relist interval), against a
// small in-process server whose behaviour is the subject (a list that fails, a watch that stays open and silent),
// and its phases named as kube-rs's watcher names them: Empty → InitPage → InitListed → Watching.
import { afterEach, describe, expect, it } from '@jest/globals';
import type { ServerResponse } from 'node:http';
import { FeatureGateResource, Reflector, ResourceClient, readKubeconfigText, withTransportConfig, type ReflectorPhase, type TransportConfig } from '../../runtime/index.js';
import { FakeClock } from '../support/fake-clock.js';
import { startHostileServer, status, type HostileServer } from '../support/hostile-server.js';
import { eventually } from '../support/timing.js';

const servers: HostileServer[] = [];
const reflectors: Reflector<never>[] = [];
afterEach(async () => {
  for (const r of reflectors.splice(0)) await r.stop();
  for (const s of servers.splice(0)) await s.close();
});

const listBody = (rv: string) => JSON.stringify({ metadata: { resourceVersion: rv }, items: [
  { apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', metadata: { name: 'cluster', resourceVersion: rv }, spec: {} },
] });

/** A server: lists answered by `list`, watches accepted and then held open without a byte. */
async function server(
  list: (res: ServerResponse) => void,
): Promise<{ server: HostileServer; lists: () => number; watches: () => number; open: ServerResponse[] }> {
  const s = await startHostileServer({ tls: true });
  servers.push(s);
  const open: ServerResponse[] = [];
  s.answer = (req, res) => {
    if (new URL(req.url ?? '', 'https://x').searchParams.get('watch') === 'true') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('');
      open.push(res);
      return;
    }
    list(res);
  };
  const count = (watch: boolean) => s.requests.filter((q) => q.path.includes('watch=true') === watch).length;
  return { server: s, lists: () => count(false), watches: () => count(true), open };
}

function reflector(
  s: HostileServer,
  clock: FakeClock,
  options: ConstructorParameters<typeof Reflector>[1] = {},
  transport: TransportConfig = {},
) {
  const client = new ResourceClient(withTransportConfig(readKubeconfigText(s.kubeconfig(), 'fake-clock')!, transport), FeatureGateResource);
  const r = new Reflector(client, { clock, name: 'cluster', ...options });
  reflectors.push(r as Reflector<never>);
  return r;
}

describe('Reflector on a fake clock', () => {
  it('a silent watch is ended by the inactivity timer exactly when the clock says, then relisted; the phases follow', async () => {
    const s = await server((res) => { res.writeHead(200, { 'Content-Type': 'application/json' }); res.end(listBody('7')); });
    const clock = new FakeClock();
    const r = reflector(s.server, clock, { inactivityMs: 60_000, watchTimeoutSeconds: [30, 30] });
    const phases: ReflectorPhase[] = [r.phase()];
    expect(phases).toEqual(['Empty']);
    r.start();
    await r.synced;
    await eventually(() => expect(r.phase()).toBe('Watching'), 5_000, 10);
    expect([s.lists(), s.watches()]).toEqual([1, 1]);
    await clock.advance(59_000); // not yet
    expect([s.lists(), s.watches(), r.phase()]).toEqual([1, 1, 'Watching']);
    await clock.advance(1_000); // the last event (none: the watch's start) is 60 s old
    await eventually(() => expect(s.lists()).toBe(2), 5_000, 10);
    await eventually(() => expect([s.watches(), r.phase()]).toEqual([2, 'Watching']), 5_000, 10);
  });

  // Over HTTP/1.1 nothing pings the connection: a dead path is the kernel's to notice (the pooled sockets' TCP
  // keep-alive), a server or middlebox that stops sending the reflector's. kube-apiserver's watch cache sends a bookmark
  // about every minute (the first ~2 minutes in), so 150 s without a byte end a watch however long it was asked to run.
  it('over HTTP/1.1: client-go\'s 5–10 minute watches, kept by the minute\'s bookmarks; 150 s of silence ends one, then relisted', async () => {
    const s = await server((res) => { res.writeHead(200, { 'Content-Type': 'application/json' }); res.end(listBody('7')); });
    const clock = new FakeClock();
    const r = reflector(s.server, clock, {}, { http2: false });
    r.start();
    await r.synced;
    await eventually(() => expect(r.phase()).toBe('Watching'), 5_000, 10);
    const watch = s.server.requests.find((q) => q.path.includes('watch=true'))!;
    expect(watch.httpVersion).toBe('1.1');
    const timeout = Number(new URL(watch.path, 'https://x').searchParams.get('timeoutSeconds'));
    expect(timeout).toBeGreaterThanOrEqual(300);
    expect(timeout).toBeLessThanOrEqual(600);
    for (let minute = 1; minute <= 4; minute++) {
      await clock.advance(60_000);
      s.open[0]!.write(`${JSON.stringify({ type: 'BOOKMARK', object: { apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', metadata: { resourceVersion: String(7 + minute) } } })}\n`);
      await new Promise((resolve) => setTimeout(resolve, 50)); // the bookmark arrives
    }
    expect([s.lists(), s.watches(), r.phase()]).toEqual([1, 1, 'Watching']); // four minutes on one watch
    await clock.advance(149_000);
    expect([s.lists(), s.watches(), r.phase()]).toEqual([1, 1, 'Watching']);
    await clock.advance(1_000);
    await eventually(() => expect(s.lists()).toBe(2), 5_000, 10);
    await eventually(() => expect([s.watches(), r.phase()]).toEqual([2, 'Watching']), 5_000, 10);
  });

  it('a failing list waits its backoff on the clock, not on the wall: no second try until the clock moves', async () => {
    let failing = true;
    const s = await server((res) => {
      if (failing) return status(res, 500, 'etcd is down');
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(listBody('9'));
    });
    const clock = new FakeClock();
    const r = reflector(s.server, clock, { backoffInitialMs: 10_000, backoffMaxMs: 10_000 });
    r.start();
    await eventually(() => expect(r.lastError()).toContain('etcd is down'), 5_000, 10);
    expect(r.phase()).toBe('Empty');
    await new Promise((resolve) => setTimeout(resolve, 300)); // wall time passes: nothing happens
    expect(s.lists()).toBe(1);
    await clock.advance(4_000); // below the jittered delay's floor (half of 10 s)
    expect(s.lists()).toBe(1);
    failing = false;
    await clock.advance(6_000);
    await r.synced;
    expect(s.lists()).toBe(2);
    expect(r.lastError()).toBeUndefined();
    await eventually(() => expect(r.phase()).toBe('Watching'), 5_000, 10);
  });

  // A tenant's API server may answer every list and refuse (or never answer) every watch: the backoff must keep
  // growing across such rounds, as client-go's does, not start over at each list — that loop had a hosted guest
  // relisted every ~11 s forever. (It starts over when a watch is accepted.)
  it('lists that answer and watches that are refused: the backoff grows across rounds; once watches are accepted it runs', async () => {
    let refuseWatches = true;
    const clock = new FakeClock();
    const listedAt: number[] = [];
    const s = await startHostileServer({ tls: true });
    servers.push(s);
    s.answer = (req, res) => {
      const watch = new URL(req.url ?? '', 'https://x').searchParams.get('watch') === 'true';
      if (watch && refuseWatches) return status(res, 500, 'no watches here');
      res.writeHead(200, { 'Content-Type': 'application/json' });
      if (watch) return void res.write('');
      listedAt.push(clock.now());
      res.end(listBody('5'));
    };
    const r = reflector(s, clock, { backoffInitialMs: 1_000, backoffMaxMs: 8_000 });
    r.start();
    await r.synced;
    // Time moves in 100 ms steps, each followed by a moment of wall time for the requests it woke.
    while (listedAt.length < 6) {
      await clock.advance(100);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // Round n waits a delay drawn from [d/2, d], d = 1 s · 2^(n-1) up to 8 s: each gap is at least its floor.
    const gaps = listedAt.slice(1).map((t, i) => t - listedAt[i]!);
    const floors = [500, 1_000, 2_000, 4_000, 4_000];
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(floors[i]!));
    refuseWatches = false;
    await clock.advance(8_000);
    await eventually(() => expect(r.phase()).toBe('Watching'), 5_000, 10);
    expect(r.lastError()).toBeUndefined();
  });

  it('a watch whose object changes faster than the bound is ended as a failure; the backoff then grows across accepted watches', async () => {
    // A guest's ClusterVersion changing ten times a second is someone's doing: each event decoded and paced cost
    // its replica ~1 s of CPU a minute. Past the bound the watch ends as a failure, and the next accepted watch
    // does not reset the backoff (it would be cut again at once): the rounds space out as a failing list's do.
    const clock = new FakeClock();
    const listedAt: number[] = [];
    let rv = 10;
    const s = await startHostileServer({ tls: true });
    servers.push(s);
    s.answer = (req, res) => {
      const watch = new URL(req.url ?? '', 'https://x').searchParams.get('watch') === 'true';
      res.writeHead(200, { 'Content-Type': 'application/json' });
      if (!watch) {
        listedAt.push(clock.now());
        return void res.end(listBody(String(rv)));
      }
      // Six changes at once, then the stream stays open.
      for (let i = 0; i < 6; i++) {
        rv++;
        res.write(`${JSON.stringify({ type: 'MODIFIED', object: { apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', metadata: { name: 'cluster', resourceVersion: String(rv) }, spec: {} } })}\n`);
      }
    };
    const failing: string[] = [];
    const r = reflector(s, clock, {
      backoffInitialMs: 1_000,
      backoffMaxMs: 8_000,
      maxEventRate: { perSecond: 1, burst: 5 },
      onFailing: (e) => failing.push(e),
    });
    r.start();
    await r.synced;
    while (listedAt.length < 6) {
      await clock.advance(100);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(failing[0]).toMatch(/featuregates\/cluster changed more than 5 times at over 1 a second/);
    const gaps = listedAt.slice(1).map((t, i) => t - listedAt[i]!);
    const floors = [500, 1_000, 2_000, 4_000, 4_000];
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(floors[i]!));
  });

  it('the relist interval is the clock\'s: a watch that keeps running its course relists once the interval has passed', async () => {
    let rv = 1;
    const s = await startHostileServer({ tls: true });
    servers.push(s);
    const open: ServerResponse[] = [];
    s.answer = (req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      if (new URL(req.url ?? '', 'https://x').searchParams.get('watch') === 'true') {
        // One bookmark, then held open until the test ends it (the server's timeout, after the clock has moved).
        res.write(`${JSON.stringify({ type: 'BOOKMARK', object: { kind: 'FeatureGate', apiVersion: 'config.openshift.io/v1', metadata: { resourceVersion: String(++rv) } } })}\n`);
        open.push(res);
        return;
      }
      res.end(listBody(String(++rv)));
    };
    const lists = () => s.requests.filter((q) => !q.path.includes('watch=true')).length;
    const watches = () => s.requests.filter((q) => q.path.includes('watch=true')).length;
    const clock = new FakeClock();
    const r = reflector(s, clock, { relistIntervalMs: 600_000, inactivityMs: 10_000_000 });
    r.start();
    await r.synced;
    // Each watch lives 3 s of the clock (its course: HEALTHY_WATCH_MS is 2 s) and is replaced at once, without a list.
    for (let i = 1; i <= 5; i++) {
      await eventually(() => expect(watches()).toBe(i), 5_000, 10);
      await clock.advance(3_000);
      open.shift()!.end();
    }
    await eventually(() => expect(watches()).toBe(6), 5_000, 10);
    expect(lists()).toBe(1);
    await clock.advance(661_000); // past the interval and its +10 % jitter
    open.shift()!.end();
    await eventually(() => expect(lists()).toBe(2), 5_000, 10);
  });

  it('a watch the server ends early, even with events, is watched again only after a growing backoff', async () => {
    const clock = new FakeClock();
    const watchedAt: number[] = [];
    const s = await startHostileServer({ tls: true });
    servers.push(s);
    s.answer = (req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      if (new URL(req.url ?? '', 'https://x').searchParams.get('watch') === 'true') {
        watchedAt.push(clock.now());
        return void res.end(`${JSON.stringify({ type: 'BOOKMARK', object: { kind: 'FeatureGate', metadata: { resourceVersion: '5' } } })}\n`);
      }
      res.end(listBody('4'));
    };
    const r = reflector(s, clock, { backoffInitialMs: 1_000, backoffMaxMs: 60_000 });
    r.start();
    await r.synced;
    await eventually(() => expect(watchedAt).toHaveLength(1), 5_000, 10);
    // Before, an event made the watch healthy: it was watched again at once, as fast as the server could answer.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(watchedAt).toHaveLength(1);
    while (watchedAt.length < 5) {
      await clock.advance(100);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // The waits double (each drawn from the upper half of 1, 2, 4, 8 s), never starting over.
    const gaps = watchedAt.slice(1).map((t, i) => t - watchedAt[i]!);
    const floors = [500, 1_000, 2_000, 4_000];
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(floors[i]!));
  });
});
