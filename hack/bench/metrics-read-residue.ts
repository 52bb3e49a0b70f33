// Benchmark: the floor under issue 49 — the anonymous memory one read of kube-apiserver's /metrics leaves in a Node.js
// process with nothing of this project in it: a raw node:http2 (or node:https, HTTP/1.1) GET whose bytes are
// discarded. Each reader is a fresh process with the image's node flags plus --expose-gc: it connects (GET /version),
// collects fully, notes RssAnon, reads /metrics N times, collects fully again and reports the growth.
//   npm run bench -- metrics-read-residue          (3 readers per protocol and N in 1, 20; ~30 s)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControlPlane } from '../../sdk/testing/index.js';
import { nodeFlagsOrImage } from './operator-process.js';
import { median } from './stats.js';

const READER = `
import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
const [mode, n, server, token, caFile] = process.argv.slice(1);
const ca = readFileSync(caFile);
const anon = () => Number(/RssAnon:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
const settle = async () => { for (let i = 0; i < 3; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 50)); } };
const headers = { authorization: 'Bearer ' + token };
let get;
if (mode === 'http2') {
  const s = http2.connect(server, { ca });
  get = (path) => new Promise((res, rej) => { const r = s.request({ ':path': path, ...headers }); let b = 0; r.on('data', (c) => { b += c.length; }); r.on('end', () => res(b)); r.on('error', rej); r.end(); });
} else {
  const agent = new https.Agent({ keepAlive: true, ca });
  get = (path) => new Promise((res, rej) => { https.get(server + path, { agent, headers }, (r) => { let b = 0; r.on('data', (c) => { b += c.length; }); r.on('end', () => res(b)); }).on('error', rej); });
}
await get('/version');
await settle();
const before = anon();
let bytes = 0;
for (let i = 0; i < Number(n); i++) bytes += await get('/metrics');
await settle();
console.log(JSON.stringify({ bytes: bytes / Number(n), anonMB: anon() - before }));
process.exit(0);
`;

const plane = await startControlPlane();
try {
  const dir = mkdtempSync(join(tmpdir(), 'fgc-residue-'));
  const ca = join(dir, 'ca.crt');
  const kubeconfig = JSON.parse(readFileSync(plane.kubeconfigPath, 'utf8')) as { clusters: { cluster: { 'certificate-authority-data': string } }[] };
  writeFileSync(ca, Buffer.from(kubeconfig.clusters[0]!.cluster['certificate-authority-data'], 'base64'));
  console.log(`# metrics-read-residue: ${plane.version}, node ${process.version} ${[...nodeFlagsOrImage(), '--expose-gc'].join(' ')}`);
  console.log('| reads | protocol | /metrics size | RssAnon growth after a full collection, min / median / max of 3 |');
  console.log('| --- | --- | --- | --- |');
  for (const n of [1, 20]) {
    for (const mode of ['http2', 'http1.1']) {
      const runs = [0, 1, 2].map(() => JSON.parse(execFileSync(process.execPath,
        [...nodeFlagsOrImage(), '--expose-gc', '--input-type=module', '-e', READER, mode, String(n), plane.server, plane.adminToken, ca], { encoding: 'utf8' })) as { bytes: number; anonMB: number });
      const mb = runs.map((r) => r.anonMB).sort((a, b) => a - b);
      console.log(`| ${n} | ${mode} | ${(runs[0]!.bytes / 1e6).toFixed(2)} MB | ${mb[0]!.toFixed(2)} / ${median(mb).toFixed(2)} / ${mb[2]!.toFixed(2)} MB |`);
    }
  }
} finally {
  await plane.stop();
}
