// Guest API servers a hostile tenant could run, as small in-process servers (test/support/hostile-server.ts):
//  - throttle: every request answered 429 with Retry-After: 3600;
//  - huge-error: every request answered 500 with a 2 MiB message that starts with a terminal escape;
//  - no-newline: every request answered 200 with a body that never ends and has no newline;
//  - long-history: a ClusterVersion with 3,000 history entries (and no FeatureGate); watches open and silent;
//  - cycling: a ClusterVersion whose desired version changes on every list and every 100 ms on each watch.
// Used by the hostile-tenant test and the hosted-fleet benchmark (--hostile N).
import type { ServerResponse } from 'node:http';
import { historyEntry } from '../../sdk/testing/index.js';
import { startHostileServer, status, type HostileServer } from './hostile-server.js';

export const HOSTILE_KINDS = ['throttle', 'huge-error', 'no-newline', 'long-history', 'cycling'] as const;
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

export async function startHostileGuest(kind: HostileKind): Promise<HostileServer> {
  const longHistory = Array.from({ length: 3000 }, (_, i) => historyEntry(`4.22.${3000 - i}`));
  let rv = 1;
  const server = await startHostileServer({ tls: true });
  server.answer = (q, res) => {
    const url = q.url ?? '';
    const watch = /[?&]watch=/.test(url);
    const cvs = url.includes('/clusterversions');
    switch (kind) {
      case 'throttle': return status(res, 429, 'come back in an hour', { 'Retry-After': '3600' });
      case 'huge-error': return status(res, 500, `\x1b[2J${'E'.repeat(2 * 1024 * 1024)}`);
      case 'no-newline': {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        const pump = () => { while (!res.destroyed && res.write(chunk)); if (!res.destroyed) res.once('drain', pump); };
        return pump();
      }
      case 'long-history':
        if (watch) return void res.writeHead(200, { 'Content-Type': 'application/json' });
        return list(res, cvs ? [clusterVersion('4.22.3000', longHistory, rv)] : [], rv);
      case 'cycling': {
        const next = () => { rv++; return clusterVersion(`4.22.${rv % 1000}`, [historyEntry(`4.22.${rv % 1000}`)], rv); };
        if (!watch) return list(res, cvs ? [next()] : [], rv);
        res.writeHead(200, { 'Content-Type': 'application/json' });
        if (!cvs) return;
        const timer = setInterval(() => { if (!res.destroyed) res.write(`${JSON.stringify({ type: 'MODIFIED', object: next() })}\n`); }, 100);
        res.on('close', () => clearInterval(timer));
        return;
      }
    }
  };
  return server;
}
