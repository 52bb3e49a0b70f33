// Benchmark: API requests per idle minute — the API server's side of the cost (issue 21). One local
// kube-apiserver whose audit log records every request when it is received (audit-requests.ts); counted: the
// requests of one client's user agent over IDLE_MIN idle minutes, with the client idle since 30 s: the operator
// process (as the footprint benchmark runs it; 3 reflectors), then one SDK accessor process (2 reflectors).
// Watches last 5–10 minutes over HTTP/2, so the window should span several (IDLE_MIN=15 by default).
//   npm run bench -- idle-requests          (DISABLE_HTTP2=1 for the HTTP/1.1 path and its 30–45 s watches)
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { auditEveryRequest, perMinute, requestsFrom } from '../../test/support/audit.js';
import { BENCH_VERSION, startBenchCluster } from './bench-cluster.js';
import { exited } from './operator-process.js';
import { sleep } from '../../test/support/timing.js';

const IDLE_MIN = Number(process.env.IDLE_MIN ?? 15);
const audit = auditEveryRequest();
const cluster = await startBenchCluster({ extraAPIServerArgs: audit.apiServerArgs });

async function idleWindow(who: string, userAgent: RegExp): Promise<void> {
  await sleep(30_000);
  const from = Date.now();
  await sleep(IDLE_MIN * 60_000);
  console.log(`${who}: ${perMinute(requestsFrom(audit.logPath, userAgent, from, Date.now()), IDLE_MIN)}`);
}

try {
  console.log(`node ${process.version}${process.env.DISABLE_HTTP2 ? ', DISABLE_HTTP2 set (HTTP/1.1)' : ''}; ${IDLE_MIN} idle minutes each`);
  const op = await cluster.startOperator();
  await cluster.watcher.stop(); // the bench's own watcher is not counted anyway (its user agent differs)
  await idleWindow('operator (3 reflectors)', /^featuregates-operator\//);
  op.proc.kill('SIGTERM');
  await exited(op.proc);

  const accessor = `import { createFeatureGateAccess } from ${JSON.stringify(join(import.meta.dirname, '..', '..', 'sdk', 'index.js'))};
import { readKubeconfigFile } from ${JSON.stringify(join(import.meta.dirname, '..', '..', 'runtime', 'index.js'))};
import { sleep } from '../../test/support/timing.js';
const a = createFeatureGateAccess({ kubeConfig: readKubeconfigFile(process.argv[1]), component: 'idle-bench-component', desiredVersion: ${JSON.stringify(BENCH_VERSION)}, onChange: () => {} });
a.start(); await a.waitForInitial({ timeoutMs: 30000 }); setInterval(() => {}, 3600e3);`;
  const sdk = spawn(process.execPath, ['--input-type=module', '-e', accessor, cluster.plane.kubeconfigPath], { stdio: 'ignore' });
  await idleWindow('one SDK accessor (2 reflectors)', /^idle-bench-component\//);
  sdk.kill('SIGKILL');
  console.log('client-go for comparison (by its constants): a reflector renews its watch every 5–10 min, ~0.13 per minute; 3 reflectors ~0.4, 2 ~0.3; `npm run bench -- upstream` measures the Go original beside the operator');
} finally {
  await cluster.stop();
}
