// A server that asks to be retried later is waited for: through a proxy in front of the real kube-apiserver
// that answers 429 with Retry-After (as API priority-and-fairness does when a priority level is full), the
// transport — the one HTTP path of the operator, the SDK and the CLI — sends the same request again after
// the wait, at most 10 times, and the operator converges once the throttle ends.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError, KubeTransport, MAX_RETRY_AFTER_RETRIES, StaticKubeConfig, readKubeconfigText } from '../../runtime/index.js';
import { bundledCRDPaths, setClusterVersion, setFeatureGateSpec, startControlPlane, type ControlPlane } from '../../sdk/testing/index.js';
import { spawnCLI } from '../support/cli.js';
import { eventually, sleep } from '../support/timing.js';
import { startThrottleProxy, type ProxiedRequest, type ThrottleProxy } from '../support/throttle-proxy.js';
import { tempDirs } from '../support/temp.js';

let plane: ControlPlane;
let proxy: ThrottleProxy;
let kubeconfig: string;
const tempDir = tempDirs();

/** Per method and path, the gaps between consecutive throttled attempts (ms). */
function retryGaps(requests: ProxiedRequest[]): number[] {
  const last = new Map<string, number>();
  const gaps: number[] = [];
  for (const r of requests.filter((q) => q.throttled)) {
    const key = `${r.method} ${r.path}`;
    const prev = last.get(key);
    if (prev !== undefined) gaps.push(r.at - prev);
    last.set(key, r.at);
  }
  return gaps;
}

beforeAll(async () => {
  plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
  await setClusterVersion(plane.kubeConfig, { history: ['4.22.0'] });
  await setFeatureGateSpec(plane.kubeConfig, {});
  proxy = await startThrottleProxy(plane.server);
  kubeconfig = join(tempDir('retry-after'), 'kubeconfig');
  writeFileSync(kubeconfig, proxy.kubeconfig(plane.adminToken));
}, 90_000);

afterAll(async () => {
  await proxy?.close();
  await plane?.stop();
});

describe('Retry-After', () => {
  it('a request answered 429 + Retry-After is sent again after the wait and succeeds once the throttle ends', async () => {
    const transport = new KubeTransport(readKubeconfigText(proxy.kubeconfig(plane.adminToken), 'proxy') as StaticKubeConfig);
    const from = proxy.requests.length;
    proxy.throttle(1);
    const got = transport.request({ method: 'GET', path: '/version' });
    await sleep(2500);
    proxy.heal();
    await expect(got).resolves.toHaveProperty('gitVersion');
    const seen = proxy.requests.slice(from);
    expect(seen.filter((r) => r.throttled).length).toBeGreaterThanOrEqual(2);
    for (const gap of retryGaps(seen)) expect(gap).toBeGreaterThanOrEqual(950);
    transport.close();
  });

  it(`gives up after ${MAX_RETRY_AFTER_RETRIES} retries with the server's 429`, async () => {
    const transport = new KubeTransport(readKubeconfigText(proxy.kubeconfig(plane.adminToken), 'proxy') as StaticKubeConfig);
    const from = proxy.requests.length;
    proxy.throttle(0);
    try {
      const e = await transport.request({ method: 'GET', path: '/version' }).catch((err: unknown) => err);
      expect(e).toBeInstanceOf(ApiError);
      expect((e as ApiError).code).toBe(429);
      expect((e as ApiError).retryAfterSeconds).toBe(0);
      expect(proxy.requests.slice(from).length).toBe(MAX_RETRY_AFTER_RETRIES + 1);
    } finally {
      proxy.heal();
      transport.close();
    }
  });

  it('the CLI waits out a throttle instead of failing on the first 429', async () => {
    proxy.throttle(1);
    const healed = sleep(2000).then(() => proxy.heal());
    const status = runCLIAsync(['status', '--kubeconfig', kubeconfig, '-o', 'json']);
    await healed;
    const r = await status;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).featureSet).toBe('Default');
  });

  it('the operator retries its writes at the pace the server asks and converges after the throttle', async () => {
    const op = spawnCLI(['operator', '--kubeconfig', kubeconfig, '--operator-version', '4.22.0',
      '--authoritative-feature-gate-dir', join(process.cwd(), 'deploy', 'base', 'payload'),
      '--metrics-bind-address', '0', '--health-probe-bind-address', '0'], { POD_NAMESPACE: 'default' });
    let err = '';
    op.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
    try {
      const featureSet = async () => JSON.parse((await runCLIAsync(['status', '--kubeconfig', kubeconfig, '-o', 'json'])).stdout) as { featureSet: string; versions: { enabled: number }[] };
      await eventually(async () => expect((await featureSet()).versions[0]?.enabled).toBe(4), 60_000, 200)
        .catch((e: Error) => { throw new Error(`${e.message}\n${err.slice(-2000)}`); });
      const from = proxy.requests.length;
      proxy.throttle(2);
      await setFeatureGateSpec(plane.kubeConfig, { featureSet: 'TechPreviewNoUpgrade' }); // direct, not throttled
      await sleep(6000);
      proxy.heal();
      const during = proxy.requests.slice(from);
      // It tried to write the new status, and every retry of one request waited the 2 s asked for.
      expect(during.some((r) => r.throttled && r.method === 'PUT' && r.path.endsWith('/featuregates/cluster/status'))).toBe(true);
      for (const gap of retryGaps(during)) expect(gap).toBeGreaterThanOrEqual(1900);
      await eventually(async () => {
        const s = await featureSet();
        expect(s.featureSet).toBe('TechPreviewNoUpgrade');
        expect(s.versions[0]?.enabled).toBe(7);
      }, 30_000, 200);
      expect(err).not.toContain('"level":"error"');
    } finally {
      op.kill('SIGTERM');
      await new Promise((r) => op.once('exit', r));
    }
  }, 120_000);
});

/** runCLI without blocking the event loop (the proxy runs in this process: spawnSync would stall it). */
function runCLIAsync(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = spawnCLI(args);
  let stdout = '';
  let stderr = '';
  p.stdout!.on('data', (d: Buffer) => { stdout += d.toString(); });
  p.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
  return new Promise((resolve) => p.once('close', (code) => resolve({ code, stdout, stderr })));
}
