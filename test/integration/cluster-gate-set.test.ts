// Which Kubernetes version `featuregates status` and `preflight` judge a cluster's gates at (readClusterGateSet): the
// API server's own when the cluster has completed the version, the built-in map's during an upgrade to another minor,
// the flag's always; and what they say when neither can be told. A small HTTP server plays /version and counts asks.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GateRulesError, toFeatureGateDetails } from '../../api-types/index.js';
import { StaticKubeConfig } from '../../runtime/index.js';
import { readClusterGateSet } from '../../cmd/cluster-read.js';
import { clusterVersion, featureGate, historyEntry } from '../support/objects.js';

describe('readClusterGateSet', () => {
  let server: Server;
  let asks = 0;
  let answer: string | undefined = 'v1.36.3+openshift';
  let kc: StaticKubeConfig;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/version') asks++;
      if (req.url !== '/version' || !answer) return void res.writeHead(503).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ gitVersion: answer }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    kc = new StaticKubeConfig({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: false }, {});
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const fg = (...versions: string[]) => ({
    ...featureGate('cluster', { featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: [], disabled: ['ServiceAccountTokenNodeBinding'] } }),
    status: { featureGates: versions.map((version) => toFeatureGateDetails({ version, enabled: ['A'], disabled: ['ServiceAccountTokenNodeBinding'] })) },
  });

  it('a completed version: the API server\'s own; an upgrade under way to a known minor: the map\'s, without asking', async () => {
    const done = await readClusterGateSet(kc, fg('4.22.0'), clusterVersion('version', [historyEntry('4.22.0')]));
    expect(done).toMatchObject({ version: '4.22.0', kubernetesVersion: '1.36.3', kubernetesSource: 'the API server\'s /version' });
    expect([...done.gates]).toEqual([['ServiceAccountTokenNodeBinding', false], ['A', true]]);
    const before = asks;
    const upgrading = await readClusterGateSet(kc, fg('5.0.1', '4.22.0'), clusterVersion('version', [historyEntry('5.0.1', 'Partial'), historyEntry('4.22.0', 'Completed', 1)]));
    expect(upgrading).toMatchObject({ version: '5.0.1', kubernetesVersion: '1.36', kubernetesSource: 'the Kubernetes minor OpenShift 5.0.1 runs' });
    expect(asks).toBe(before);
    expect(await readClusterGateSet(kc, fg('4.22.0'), clusterVersion('version', [historyEntry('4.22.0')]), '1.35'))
      .toMatchObject({ kubernetesVersion: '1.35', kubernetesSource: 'given' });
  });

  it('an unknown minor: the API server\'s; neither known: not checked, saying why; no entry yet: not checked', async () => {
    const upgrading = clusterVersion('version', [historyEntry('4.23.0', 'Partial'), historyEntry('4.22.0', 'Completed', 1)]);
    expect(await readClusterGateSet(kc, fg('4.23.0'), upgrading)).toMatchObject({ kubernetesVersion: '1.36.3', kubernetesSource: 'the API server\'s /version' });
    answer = undefined;
    const unknown = readClusterGateSet(kc, fg('4.23.0'), upgrading);
    await expect(unknown).rejects.toBeInstanceOf(GateRulesError);
    await expect(unknown).rejects.toThrow('not checked: which Kubernetes minor OpenShift 4.23.0 runs is not known to this build and the API server\'s /version could not be read');
    // A completed known version whose API server does not answer: the map's.
    expect(await readClusterGateSet(kc, fg('4.22.0'), clusterVersion('version', [historyEntry('4.22.0')]))).toMatchObject({ kubernetesVersion: '1.35' });
    await expect(readClusterGateSet(kc, fg('4.21.0'), upgrading)).rejects.toThrow('not checked: FeatureGate/cluster status has no entry for 4.23.0 yet');
    await expect(readClusterGateSet(kc, fg('4.21.0'), undefined)).rejects.toThrow('not checked: ClusterVersion/version names no version');
  });
});
