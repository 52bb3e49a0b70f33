// The short chaos suite (`npm run chaos -- --short` sizes): real kube-apiserver restarts, a paused
// leader, a dead API server at start, concurrent writers, SDK accessors across a restart, event spam, a leader throttled
// (429 Retry-After) and paused past its Lease, a hosted shard owner throttled by its guest (paused, then SIGTERM), the
// operator pair inside a quarter-core CPU quota and its Deployment's memory limit.
// Each scenario reports figures against the goals; every goal must be met. The full suite
// (10 restarts, etcd outage, 5× kill -9, 3× SIGSTOP, 30 s partition, OpenShift timing, 200 writers,
// 50 accessors) is `npm run chaos`, results in docs/reliability.md.
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SCENARIOS } from '../../hack/chaos/scenarios.js';
import { startBlackholeProxy } from '../../hack/chaos/blackhole-proxy.js';
import { writeKubeconfigFor } from '../../hack/chaos/lib.js';
import { kubeconfigPath } from '../support/cluster.js';
import { CLI } from '../support/cli.js';

const IN_NPM_TEST = ['api-restarts', 'leader-faults', 'dead-start', 'writers', 'sdk-restarts', 'events', 'throttled-leader', 'throttled-shard', 'limits'];

describe('chaos (short)', () => {
  it.each(IN_NPM_TEST)('%s: every goal met', async (name) => {
    const scenario = SCENARIOS.find((s) => s.name === name)!;
    const result = await scenario.run(true);
    for (const f of result.figures) console.log(`${name}: ${f.label}: ${f.value} (goal ${f.goal})`);
    expect(result.figures.length).toBeGreaterThan(0);
    expect(result.figures.filter((f) => !f.pass)).toEqual([]);
  }, 120_000);

  it('`featuregates status` through a black hole fails within its --request-timeout, saying so', async () => {
    const template = readFileSync(kubeconfigPath('ours'), 'utf8');
    const server = new URL((JSON.parse(template) as { clusters: { cluster: { server: string } }[] }).clusters[0]!.cluster.server);
    const proxy = await startBlackholeProxy(Number(server.port));
    const path = join(process.env.TMPDIR ?? '/tmp', `fgc-blackhole-${process.pid}.json`);
    try {
      proxy.blackhole();
      writeKubeconfigFor(`https://127.0.0.1:${proxy.port}`, template, path);
      const t0 = Date.now();
      const r = spawnSync(process.execPath, [CLI, 'status', '--kubeconfig', path, '--request-timeout', '2s'], { encoding: 'utf8', timeout: 30_000 });
      expect(r.status).toBe(1);
      expect(Date.now() - t0).toBeLessThan(20_000);
      expect(r.stderr).toMatch(/reading featuregates\/cluster from https:\/\/127\.0\.0\.1:\d+: GET \/apis\/config\.openshift\.io\/v1\/featuregates\/cluster: no answer from the API server within 2000 ms/);
    } finally {
      rmSync(path, { force: true });
      await proxy.close();
    }
  }, 60_000);
});
