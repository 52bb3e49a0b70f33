// Benchmark: API requests per idle minute — the API server's side of the cost (issue 21). One local
// kube-apiserver; its own apiserver_request_total counter (by verb and resource) read before and after
// IDLE_MIN idle minutes with exactly one client connected: the operator process (as the footprint benchmark
// runs it), then one SDK accessor process. Counted as the client's: the resources it uses (FeatureGate,
// ClusterVersion, ClusterOperator, Events, ConfigMaps); everything else in the window is kube-apiserver's own
// loopback traffic (its identity Lease, endpoints, its informers), shown apart. A watch is counted when it ends,
// so over a window the count is the rate. The counter's own scrape is a non-resource GET and not counted.
//   npm run bench -- idle-requests        (IDLE_MIN=3 by default)
import { spawn } from 'node:child_process';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { BENCH_VERSION, startBenchCluster } from './bench-cluster.js';
import { exited } from './operator-process.js';

const IDLE_MIN = Number(process.env.IDLE_MIN ?? 3);
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));
const cluster = await startBenchCluster();

/** verb/resource → count, from kube-apiserver's own metrics (resource requests only). */
async function counts(): Promise<Map<string, number>> {
  const raw = await new Promise<string>((resolve, reject) => {
    const req = httpsRequest(new URL('/metrics', cluster.plane.server), { headers: { Authorization: `Bearer ${cluster.plane.adminToken}` }, rejectUnauthorized: false }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => { body += d.toString(); });
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
  const out = new Map<string, number>();
  for (const line of raw.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const labels = Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (!labels.resource) continue;
    const k = `${labels.verb} ${labels.resource}`;
    out.set(k, (out.get(k) ?? 0) + Number(line.split(' ').pop()));
  }
  return out;
}
const delta = (a: Map<string, number>, b: Map<string, number>) => {
  const d = new Map<string, number>();
  for (const [k, v] of b) if (v - (a.get(k) ?? 0) > 0) d.set(k, v - (a.get(k) ?? 0));
  return d;
};
const OURS = new Set(['featuregates', 'clusterversions', 'clusteroperators', 'events', 'configmaps']);
const perMin = (d: [string, number][]) => `${(d.reduce((x, [, v]) => x + v, 0) / IDLE_MIN).toFixed(1)} (${d.map(([k, v]) => `${k} ${(v / IDLE_MIN).toFixed(1)}`).join(', ') || 'none'})`;
const show = (who: string, d: Map<string, number>) => {
  const ours = [...d].filter(([k]) => OURS.has(k.split(' ')[1]!));
  const other = [...d].filter(([k]) => !OURS.has(k.split(' ')[1]!));
  console.log(`${who}: ${perMin(ours)} requests per idle minute; kube-apiserver's own in the same window: ${perMin(other)}`);
};

try {
  const op = await cluster.startOperator();
  // The bench's own watcher on FeatureGate/cluster is a client too: stopped, so only the measured process counts.
  await cluster.watcher.stop();
  await sleep(30_000);
  const a = await counts();
  await sleep(IDLE_MIN * 60_000);
  show('operator (3 reflectors)', delta(a, await counts()));
  op.proc.kill('SIGTERM');
  await exited(op.proc);

  const accessor = `import { createFeatureGateAccess } from ${JSON.stringify(join(import.meta.dirname, '..', '..', 'sdk', 'index.js'))};
import { readKubeconfigFile } from ${JSON.stringify(join(import.meta.dirname, '..', '..', 'runtime', 'index.js'))};
const a = createFeatureGateAccess({ kubeConfig: readKubeconfigFile(process.argv[1]), desiredVersion: ${JSON.stringify(BENCH_VERSION)}, onChange: () => {} });
a.start(); await a.waitForInitial({ timeoutMs: 30000 }); setInterval(() => {}, 3600e3);`;
  const sdk = spawn(process.execPath, ['--input-type=module', '-e', accessor, cluster.plane.kubeconfigPath], { stdio: 'ignore' });
  await sleep(30_000);
  const b = await counts();
  await sleep(IDLE_MIN * 60_000);
  show('one SDK accessor (2 reflectors)', delta(b, await counts()));
  sdk.kill('SIGKILL');
  console.log(`client-go for comparison (not run here): a reflector renews its watch every 5–10 min, ~0.13 per minute; 3 reflectors ~0.4, 2 ~0.3 (plus the relists both do)`);
} finally {
  await cluster.stop();
}
