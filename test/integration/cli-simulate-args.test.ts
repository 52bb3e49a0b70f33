// `featuregates simulate upgrade --to` takes a full payload version (X.Y.Z, optionally with a pre-release
// suffix, as the cluster-version operator records it): a short one such as 4.24 used to be accepted and
// wrote a "4.24" status entry (issue 24, item 7). Refused as a usage error before any cluster is contacted.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundledCRDPaths, setClusterVersion, startControlPlane, type ControlPlane } from '../../sdk/testing/index.js';
import { runCLI, spawnCLI } from '../support/cli.js';
import { startThrottleProxy, type ThrottleProxy } from '../support/throttle-proxy.js';
import { tempDirs } from '../support/temp.js';

describe('simulate upgrade --to', () => {
  it.each(['4.24', '4', 'v4.24', '4.24.x'])('refuses %s with exit 2 and says what it wants', (to) => {
    const r = runCLI(['simulate', 'upgrade', '--to', to], { KUBECONFIG: '/nonexistent/kubeconfig' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--to: expected a full payload version X.Y.Z (e.g. 4.24.0), got ${JSON.stringify(to)}`);
  });

  it('accepts X.Y.Z and pre-release forms (then fails only on the missing cluster)', () => {
    for (const to of ['4.24.0', '4.24.0-ec.2', '4.23.0-0.nightly-2026-11-01-000000']) {
      const r = runCLI(['simulate', 'upgrade', '--to', to], { KUBECONFIG: '/nonexistent/kubeconfig' });
      expect(r.stderr).not.toContain('expected a full payload version');
      expect(r.code).toBe(1);
    }
  });

  it('refuses a --payload-dir the rolled operator could not read, before any cluster is contacted', () => {
    const r = runCLI(['simulate', 'upgrade', '--to', '4.24.0', '--payload-dir', '/nonexistent/payload'], { KUBECONFIG: '/nonexistent/kubeconfig' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('cannot read payload manifest folder /nonexistent/payload');
    expect(r.stderr).not.toContain('kubeconfig');
  });
});

// Against `featuregates start`'s local cluster, completing an upgrade restarts its kube-apiserver with the new
// version's gates as soon as the ClusterVersion write lands: simulate must not ask the cluster anything after that
// write (it printed the history from a GET that met a restarting API server: ECONNREFUSED, exit 1, the write done).
describe('simulate upgrade --complete against an API server that goes away after the completing write', () => {
  let plane: ControlPlane;
  let proxy: ThrottleProxy;
  const tempDir = tempDirs();
  beforeAll(async () => {
    plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
    await setClusterVersion(plane.kubeConfig, { history: [{ version: '4.23.0', state: 'Partial' }, '4.22.0'] });
    let completed = false;
    proxy = await startThrottleProxy(plane.server, { answer: (method, path, res) => {
      if (completed) {
        res.destroy(); // what a restarting kube-apiserver looks like from here
        return true;
      }
      if (method === 'PUT' && path.endsWith('/clusterversions/version/status')) completed = true;
      return false;
    } });
  }, 90_000);
  afterAll(async () => {
    await proxy?.close();
    await plane?.stop();
  });

  it('says the history it wrote and exits 0', async () => {
    const kubeconfig = join(tempDir('fgc-simulate-'), 'kubeconfig');
    writeFileSync(kubeconfig, proxy.kubeconfig(plane.adminToken));
    const p = spawnCLI(['simulate', 'upgrade', '--to', '4.23.0', '--complete', '--kubeconfig', kubeconfig]);
    let out = '';
    let err = '';
    p.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
    p.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
    const code = await new Promise<number | null>((resolve) => p.once('exit', (c) => resolve(c)));
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(out).toContain('history: 4.23.0 (Completed), 4.22.0 (Completed)');
    expect(proxy.requests.filter((r) => r.method === 'PUT' && r.path.endsWith('/clusterversions/version/status'))).toHaveLength(1);
  });
});
