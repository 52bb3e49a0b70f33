// Guest API servers a hostile tenant could run, as small in-process servers (test/support/hostile-server.ts):
//  - throttle: every request answered 429 with Retry-After: 3600;
//  - huge-error: every request answered 500 with a 2 MiB message that starts with a terminal escape;
//  - no-newline: every request answered 200 with a body that never ends and has no newline;
//  - long-history: a ClusterVersion with 3,000 history entries (and no FeatureGate); watches open and silent;
//  - cycling: a ClusterVersion whose desired version changes on every list and every 100 ms on each watch;
//  - foreign-objects: its FeatureGate watch sends, every 200 ms, a 2.5 MiB FeatureGate of another name;
//  - short-watches: its ClusterVersion watch sends 55 changes 40 ms apart and ends cleanly (below a burst of 60
//    per watch, ~25 changes a second over watches);
//  - log-bomb: its ClusterVersion watch sends one object of the wrong kind whose name is 1 MiB, starting with a
//    terminal escape and a bidi override;
//  - silent-writes: reads answer as a healthy guest's (a ClusterVersion at 4.22.3, its FeatureGate with no status),
//    writes are never answered: the tenant's admission webhook points at nothing, and each write waits out the
//    client's timeout (`writes` counts those held and those the client gave up).
// foreign-objects, short-watches and log-bomb list a valid ClusterVersion (so the coordinator goes on to watch) and
// count, per watch of the resource they attack, the events they wrote before the watch ended (`deliveries`).
// Used by the hostile-tenant tests and the hosted-fleet benchmark (--hostile N).
import type { ServerResponse } from 'node:http';
import { historyEntry } from '../../sdk/testing/index.js';
import { startHostileServer, status, type HostileServer } from './hostile-server.js';

export const HOSTILE_KINDS = ['throttle', 'huge-error', 'no-newline', 'long-history', 'cycling', 'foreign-objects', 'short-watches', 'log-bomb', 'silent-writes'] as const;
export type HostileKind = (typeof HOSTILE_KINDS)[number];

const clusterVersion = (desired: string, history: ReturnType<typeof historyEntry>[], rv: number) => ({
  apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion', metadata: { name: 'version', resourceVersion: String(rv) },
  spec: { clusterID: 'hostile' },
  status: { desired: { version: desired, image: 'x' }, history, observedGeneration: 1, versionHash: 'x', availableUpdates: null },
});

function list(res: ServerResponse, items: unknown[], rv: number): void {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: String(rv) }, items }));
}

export interface HostileGuest extends HostileServer {
  /** Per watch of the attacked resource (foreign-objects, short-watches, log-bomb): the events written to it. */
  readonly deliveries: number[];
  /** silent-writes: the writes waiting for an answer now, and those whose client gave up. */
  readonly writes: { waiting: number; givenUp: number };
}

/** The bomb's name: a terminal escape, a bidi override, then 1 MiB. */
export const LOG_BOMB_NAME = `\x1b[31m\u202e${'n'.repeat(1024 * 1024)}`;

export async function startHostileGuest(kind: HostileKind): Promise<HostileGuest> {
  const longHistory = Array.from({ length: 3000 }, (_, i) => historyEntry(`4.22.${3000 - i}`));
  let rv = 1;
  const deliveries: number[] = [];
  const writes = { waiting: 0, givenUp: 0 };
  const server = await startHostileServer({ tls: true });
  /**
   * A watch of the attacked resource: `send` is called every `everyMs` with the count so far; it returns what to write, or undefined to
   * end.
   */
  const attack = (res: ServerResponse, everyMs: number, send: (n: number) => unknown) => {
    const i = deliveries.push(0) - 1;
    res.writeHead(200, { 'Content-Type': 'application/json' });
    const tick = () => {
      if (res.destroyed || res.writableEnded) return;
      const event = send(deliveries[i]!);
      if (event === undefined) return void res.end();
      res.write(`${JSON.stringify(event)}\n`);
      deliveries[i]!++;
      timer = setTimeout(tick, everyMs);
    };
    let timer = setTimeout(tick, 0);
    res.on('close', () => clearTimeout(timer));
  };
  const openAndSilent = (res: ServerResponse) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.flushHeaders();
  };
  server.answer = (q, res) => {
    const url = q.url ?? '';
    const watch = /[?&]watch=/.test(url);
    const cvs = url.includes('/clusterversions');
    const fgs = url.includes('/featuregates');
    if ((kind === 'foreign-objects' || kind === 'short-watches' || kind === 'log-bomb') && q.method !== 'GET') {
      return status(res, 403, 'this guest takes no writes');
    }
    switch (kind) {
      case 'throttle':
        return status(res, 429, 'come back in an hour', { 'Retry-After': '3600' });
      case 'huge-error':
        return status(res, 500, `\x1b[2J${'E'.repeat(2 * 1024 * 1024)}`);
      case 'no-newline': {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump);
        };
        return pump();
      }
      case 'long-history':
        if (watch) return void res.writeHead(200, { 'Content-Type': 'application/json' });
        return list(res, cvs ? [clusterVersion('4.22.3000', longHistory, rv)] : [], rv);
      case 'cycling': {
        const next = () => {
          rv++;
          return clusterVersion(`4.22.${rv % 1000}`, [historyEntry(`4.22.${rv % 1000}`)], rv);
        };
        if (!watch) return list(res, cvs ? [next()] : [], rv);
        res.writeHead(200, { 'Content-Type': 'application/json' });
        if (!cvs) return;
        const timer = setInterval(() => {
          if (!res.destroyed) res.write(`${JSON.stringify({ type: 'MODIFIED', object: next() })}\n`);
        }, 100);
        res.on('close', () => clearInterval(timer));
        return;
      }
      case 'foreign-objects': {
        if (!watch) return list(res, cvs ? [clusterVersion('4.22.3', [historyEntry('4.22.3')], rv)] : [], rv);
        if (!fgs) return openAndSilent(res);
        const padding = 'p'.repeat(2.5 * 1024 * 1024);
        return attack(res, 200, (n) => ({
          type: 'MODIFIED',
          object: {
            apiVersion: 'config.openshift.io/v1',
            kind: 'FeatureGate',
            metadata: { name: `foreign-${n}`, resourceVersion: String(++rv), annotations: { padding } },
            spec: {},
          },
        }));
      }
      case 'short-watches': {
        if (!watch) return list(res, cvs ? [clusterVersion('4.22.3', [historyEntry('4.22.3')], rv)] : [], rv);
        if (!cvs) return openAndSilent(res);
        return attack(res, 40, (n) =>
          n >= 55 ? undefined : { type: 'MODIFIED', object: clusterVersion('4.22.3', [historyEntry('4.22.3')], ++rv) },
        );
      }
      case 'silent-writes': {
        if (q.method !== 'GET') {
          writes.waiting++;
          return void res.on('close', () => {
            writes.waiting--;
            writes.givenUp++;
          });
        }
        if (watch) return openAndSilent(res);
        const featureGate = {
          apiVersion: 'config.openshift.io/v1',
          kind: 'FeatureGate',
          metadata: { name: 'cluster', resourceVersion: String(rv) },
          spec: {},
        };
        if (/\/featuregates\/cluster(\?|$)/.test(url))
          return void res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(featureGate));
        return list(res, cvs ? [clusterVersion('4.22.3', [historyEntry('4.22.3')], rv)] : fgs ? [featureGate] : [], rv);
      }
      case 'log-bomb': {
        if (!watch) return list(res, cvs ? [clusterVersion('4.22.3', [historyEntry('4.22.3')], rv)] : [], rv);
        if (!cvs) return openAndSilent(res);
        // One bomb per watch, then the watch stays open.
        return attack(res, 3_600_000, () => ({
          type: 'MODIFIED',
          object: { apiVersion: 'v1', kind: 'Secret', metadata: { name: LOG_BOMB_NAME, resourceVersion: String(++rv) } },
        }));
      }
    }
  };
  return Object.assign(server, { deliveries, writes });
}
