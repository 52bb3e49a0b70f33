// The least CPU a Node.js process spends holding the watches a hosted replica holds on its live guests, with nothing
// else: N hollow guests (hollow-guests-process.ts, a process of their own) and, in this process, three watches per
// guest (its FeatureGate, ClusterVersion and ClusterOperator, by name, with bookmarks, as the coordinator asks), each
// line parsed as JSON and its resourceVersion kept — node's built-ins only. A kube-apiserver (and the hollow guest)
// sends every watch a bookmark a minute, so an idle replica's floor is set by the number of watches it holds.
//   npm run bench -- watch-floor [--guests 670] [--warmup-s 90] [--window-s 120] [--http2] [--kubeconfigs FILE] [--json FILE]
// --kubeconfigs FILE (a JSON array of kubeconfig texts) watches those guests instead of starting hollow ones: hosted-fleet
// measures the floor of a replica's share of its own hollow guests that way, in the same run. --json FILE writes
// { cpuSPerMin, events, guests }.
// Over HTTP/1.1 (the coordinator's choice for guests) each watch is a TLS connection of its own; --http2 puts a guest's
// three watches on one connection.
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { connect, type ClientHttp2Session } from 'node:http2';
import { parseArgs } from 'node:util';
import { readKubeconfigText } from '../../runtime/index.js';
import { sleep } from '../../test/support/timing.js';
import { HollowGuests } from './hollow-guests-client.js';
import { GUEST_WATCHES, guestWatchPath, watchLines } from './guest-watches.js';

const { values: flags } = parseArgs({
  options: {
    guests: { type: 'string', default: '670' }, 'warmup-s': { type: 'string', default: '90' }, 'window-s': { type: 'string', default: '120' }, http2: { type: 'boolean', default: false },
    kubeconfigs: { type: 'string' }, json: { type: 'string' },
  },
});
const given = flags.kubeconfigs ? JSON.parse(readFileSync(flags.kubeconfigs, 'utf8')) as string[] : undefined;
const N = given?.length ?? Number(flags.guests);
const say = (s: string) => process.stdout.write(`${s}\n`);

let events = 0;
/** The least any watch client does: each line parsed, its resourceVersion kept. */
function reader(): (chunk: Buffer) => void {
  let rv = '';
  return watchLines((e) => {
    rv = e.object?.metadata?.resourceVersion ?? rv;
    events++;
  });
}

const hollow = given ? undefined : await HollowGuests.start(N);
const sessions: ClientHttp2Session[] = [];
for (const [i, text] of (given ?? hollow!.kubeconfigs).entries()) {
  const kc = readKubeconfigText(text, `hollow guest ${i}`)!;
  const opts: { headers?: Record<string, string>; ca?: Buffer | string } = { headers: {} };
  await kc.applyToHTTPSOptions(opts as never);
  const server = new URL(kc.getCurrentCluster()!.server);
  const paths = GUEST_WATCHES.map(([resource, name]) => guestWatchPath(resource, name, { timeoutSeconds: 3600 }));
  if (flags.http2) {
    const session = connect(server.origin, { ca: opts.ca });
    sessions.push(session);
    for (const path of paths) session.request({ ':path': path, ...opts.headers }).on('data', reader());
  } else {
    const agent = new Agent({ keepAlive: true, ca: opts.ca });
    for (const path of paths) {
      request({ host: server.hostname, port: server.port, path, agent, headers: opts.headers }, (res) => res.on('data', reader())).end();
    }
  }
}
await sleep(Number(flags['warmup-s']) * 1000);
const events0 = events;
const cpu0 = process.cpuUsage();
const hollow0 = hollow?.cpuS() ?? 0;
await sleep(Number(flags['window-s']) * 1000);
const cpu = process.cpuUsage(cpu0);
const s = (cpu.user + cpu.system) / 1e6;
const perMin = s / (Number(flags['window-s']) / 60);
say(`${N} guests × 3 watches over ${flags.http2 ? 'HTTP/2 (one connection a guest)' : 'HTTP/1.1 (one connection a watch)'}: ${events - events0} events in ${flags['window-s']} s; ` +
  `CPU ${s.toFixed(2)} s = ${perMin.toFixed(2)} s/min (user ${(cpu.user / 1e6).toFixed(2)}, system ${(cpu.system / 1e6).toFixed(2)}), ` +
  `${((s * 1000) / Math.max(1, events - events0)).toFixed(3)} ms an event; RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB` +
  `${hollow ? `; the hollow guests' process ${(hollow.cpuS() - hollow0).toFixed(2)} s` : ''}`);
if (flags.json) writeFileSync(flags.json, JSON.stringify({ cpuSPerMin: perMin, events: events - events0, guests: N }));
for (const session of sessions) session.destroy();
hollow?.stop();
process.exit(0);
