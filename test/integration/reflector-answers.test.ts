// The reflector checks every answer against its question (issue 44), as a property: a hostile server answers
// its lists and watches from a random script — objects of the right and of other kinds, names and namespaces,
// without identity fields, of many sizes, bookmarks, errors and unknown event types, watches that end at once or
// a little later — and whatever it sends, the store never holds more than the one object asked for, and no listener
// ever hears of another. Real HTTP (test/support/hostile-server.ts), a real Reflector.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { FeatureGateResource, Reflector, ResourceClient, readKubeconfigText } from '../../runtime/index.js';
import { startHostileServer, type HostileServer } from '../support/hostile-server.js';
import { eventually } from '../support/timing.js';

interface Scripted { type: string; kind: unknown; name: unknown; namespace: unknown; padding: number }
/** A watch's events, then it ends at once or after `holdMs`. */
interface WatchScript { events: Scripted[]; holdMs: number }

const object = (e: Scripted, rv: number) => ({
  apiVersion: 'config.openshift.io/v1',
  ...(e.kind === undefined ? {} : { kind: e.kind }),
  metadata: {
    ...(e.name === undefined ? {} : { name: e.name }),
    ...(e.namespace === undefined ? {} : { namespace: e.namespace }),
    resourceVersion: String(rv),
    annotations: { padding: 'p'.repeat(e.padding) },
  },
  spec: {},
});

const scripted: fc.Arbitrary<Scripted> = fc.record({
  type: fc.constantFrom('ADDED', 'MODIFIED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR', 'SURPRISE'),
  kind: fc.constantFrom('FeatureGate', 'FeatureGate', undefined, 'Secret', 42),
  name: fc.constantFrom('cluster', 'cluster', 'cluster', 'other', '', undefined, 'x'.repeat(300), '\u202ecluster'),
  namespace: fc.constantFrom(undefined, undefined, '', 'tenant-a'),
  padding: fc.constantFrom(0, 10, 4_096, 200_000),
});
const watchScript: fc.Arbitrary<WatchScript> = fc.record({ events: fc.array(scripted, { maxLength: 8 }), holdMs: fc.constantFrom(0, 30) });
const listScript = fc.array(scripted.filter((e) => e.type !== 'ERROR' && e.type !== 'BOOKMARK'), { maxLength: 3 });

describe('Reflector against a server that answers what it likes', () => {
  let server: HostileServer;
  let script: { lists: Scripted[][]; watches: WatchScript[] } = { lists: [], watches: [] };
  let served = { lists: 0, watches: 0 };
  let rv = 1;

  beforeAll(async () => {
    server = await startHostileServer({ tls: true });
    server.answer = (q, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      if (!/[?&]watch=true/.test(q.url ?? '')) {
        const items = script.lists[served.lists++] ?? [{ type: 'ADDED', kind: 'FeatureGate', name: 'cluster', namespace: undefined, padding: 0 }];
        return void res.end(JSON.stringify({ kind: 'FeatureGateList', metadata: { resourceVersion: String(++rv) }, items: items.map((e) => object(e, ++rv)) }));
      }
      const w = script.watches[served.watches++];
      if (!w) return; // past the script: open and silent
      for (const e of w.events) {
        const body = e.type === 'ERROR' ? { kind: 'Status', code: 500, message: 'scripted' }
          : e.type === 'BOOKMARK' ? { kind: 'FeatureGate', metadata: { resourceVersion: String(++rv) } } : object(e, ++rv);
        res.write(`${JSON.stringify({ type: e.type, object: body })}\n`);
      }
      const end = setTimeout(() => res.end(), w.holdMs);
      res.on('close', () => clearTimeout(end));
    };
  });
  afterAll(async () => server?.close());

  it('never stores, nor tells a listener of, anything but the one object asked for', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(listScript, { maxLength: 4 }),
        fc.array(watchScript, { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        async (lists, watches, bounded) => {
          script = { lists, watches };
          served = { lists: 0, watches: 0 };
          const client = new ResourceClient(readKubeconfigText(server.kubeconfig(), 'hostile')!, FeatureGateResource);
          const r = new Reflector(client, {
            name: 'cluster',
            backoffInitialMs: 1,
            backoffMaxMs: 4,
            watchTimeoutSeconds: [30, 30],
            ...(bounded ? { maxEventRate: { perSecond: 1, burst: 3 } } : {}),
          });
          const violations: string[] = [];
          const check = (when: string) => {
            if (r.list().length > 1) violations.push(`${when}: ${r.list().length} objects stored`);
            for (const o of r.list()) {
              if (o.metadata.name !== 'cluster' || o.kind !== 'FeatureGate' || o.metadata.namespace) {
                violations.push(`${when}: stored ${JSON.stringify([o.kind, o.metadata.name?.slice(0, 20), o.metadata.namespace])}`);
              }
            }
          };
          r.addListener((name) => {
            if (name !== 'cluster') violations.push(`a listener heard of ${JSON.stringify(name.slice(0, 20))}`);
            check('at a change');
          });
          r.start();
          try {
            // Every scripted watch is served (a refused answer is followed by a relist and the next watch).
            await eventually(() => expect(served.watches).toBeGreaterThan(watches.length), 20_000, 5);
            check('at the end');
          } finally {
            await r.stop();
          }
          expect(violations).toEqual([]);
        },
      ),
      { numRuns: 30 },
    );
  }, 120_000);
});
