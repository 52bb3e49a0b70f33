// One side of `npm run bench -- engage-floor`, in a process of its own so that its CPU is its own: N guests taken
// over the way hosted-mode's take-over starts one — three watched objects listed and watched by name, the FeatureGate
// created and its status written, the ClusterOperator created and its status written, one read of /metrics — by
//   --side node      node's built-ins alone (one HTTP/2 connection a guest, every answer parsed as JSON): the least
//                    a Node.js process spends on those requests;
//   --side runtime   the coordinator's own guest connection (hosted/guest-connection.ts: the untrusted kubeconfig,
//                    its transport, three reflectors) and its typed clients: what the runtime adds to the requests.
// At most --in-flight guests at once; the input is engage-floor's (kubeconfigs, featureGate, clusterOperator). Prints
// one JSON line: {guests, failed, cpuS, wallS, firstError}, the CPU from process.cpuUsage() over the engagements.
//   node engage-side.js --side node|runtime --input FILE [--in-flight 16]
import { readFileSync } from 'node:fs';
import { connect, type ClientHttp2Session } from 'node:http2';
import { parseArgs } from 'node:util';
import type { ClusterOperator, FeatureGate } from '../../api-types/index.js';
import { readComponentGates, readKubeconfigText, silentLogger } from '../../runtime/index.js';
import { GuestConnection } from '../../hosted/guest-connection.js';
import { GUEST_GROUP_PATH, GUEST_WATCHES, guestWatchPath, nameSelector, watchLines } from './guest-watches.js';

const { values: flags } = parseArgs({ options: { side: { type: 'string' }, input: { type: 'string' }, 'in-flight': { type: 'string', default: '16' } } });
const input = JSON.parse(readFileSync(flags.input!, 'utf8')) as { kubeconfigs: string[]; featureGate: FeatureGate; clusterOperator: ClusterOperator };
const kept: { stop(): unknown }[] = [];

/** One request on the session; the answer's body as text (a status ≥ 300 is an error). */
function exchange(
  session: ClientHttp2Session, headers: Record<string, string>, method: string, path: string, body?: unknown,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ':method': method, ':path': path, ...headers, ...(body ? { 'content-type': 'application/json' } : {}) });
    let status = 0;
    const chunks: Buffer[] = [];
    req.on('response', (h) => (status = Number(h[':status'])));
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => (status < 300 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(new Error(`${method} ${path}: ${status}`))));
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

async function engageBare(text: string, i: number): Promise<void> {
  const kc = readKubeconfigText(text, `guest ${i}`)!;
  const opts: { headers?: Record<string, string>; ca?: Buffer | string } = { headers: {} };
  await kc.applyToHTTPSOptions(opts as never);
  const session = connect(new URL(kc.getCurrentCluster()!.server).origin, { ca: opts.ca });
  kept.push({ stop: () => session.destroy() });
  const headers = { ...opts.headers, accept: 'application/json' };
  await Promise.all(GUEST_WATCHES.map(async ([resource, name]) => {
    const list = JSON.parse(await exchange(session, headers, 'GET', `${GUEST_GROUP_PATH}/${resource}?${nameSelector(name)}`)) as {
      metadata: { resourceVersion: string };
    };
    const path = guestWatchPath(resource, name, { resourceVersion: list.metadata.resourceVersion });
    session.request({ ':path': path, ...headers }).on('data', watchLines(() => undefined));
  }));
  for (const [resource, object] of [['featuregates', input.featureGate], ['clusteroperators', input.clusterOperator]] as const) {
    const created = JSON.parse(await exchange(session, headers, 'POST', `${GUEST_GROUP_PATH}/${resource}`, object)) as { metadata: { name: string } };
    await exchange(session, headers, 'PUT', `${GUEST_GROUP_PATH}/${resource}/${created.metadata.name}/status`, { ...created, status: object.status });
  }
  await exchange(session, { ...opts.headers, accept: 'text/plain' }, 'GET', '/metrics');
}

async function engageRuntime(text: string, i: number): Promise<void> {
  const guest = new GuestConnection(text, `guest ${i}`, 'engage-floor', () => undefined, () => undefined, {}, 'config-operator', undefined, silentLogger);
  kept.push(guest);
  await guest.whenSynced;
  const fg = await guest.featureGate.create(input.featureGate);
  await guest.featureGate.replaceStatus({ ...fg, status: input.featureGate.status! });
  const co = await guest.clusterOperator.create(input.clusterOperator);
  await guest.clusterOperator.replaceStatus({ ...co, status: input.clusterOperator.status! });
  await readComponentGates(guest.access);
}

const engage = flags.side === 'node' ? engageBare : flags.side === 'runtime' ? engageRuntime : undefined;
if (!engage) throw new Error('--side node|runtime');
const result = { guests: input.kubeconfigs.length, failed: 0, cpuS: 0, wallS: 0, firstError: undefined as string | undefined };
const cpu0 = process.cpuUsage();
const t0 = performance.now();
let next = 0;
await Promise.all(Array.from({ length: Number(flags['in-flight']) }, async () => {
  for (let i = next++; i < input.kubeconfigs.length; i = next++) {
    await engage(input.kubeconfigs[i]!, i).catch((e: unknown) => {
      result.failed++;
      result.firstError ??= (e as Error).message;
    });
  }
}));
const cpu = process.cpuUsage(cpu0);
result.cpuS = (cpu.user + cpu.system) / 1e6;
result.wallS = (performance.now() - t0) / 1000;
process.stdout.write(`${JSON.stringify(result)}\n`);
await Promise.all(kept.map((k) => k.stop()));
process.exit(0);
