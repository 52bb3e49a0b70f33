// The transport's connection pool is keyed by TLS identity: an access object whose credentials change
// between requests (a rotated CA, say) must never be served by the previous identity's agent.
import { describe, expect, it } from '@jest/globals';
import type { RequestOptions } from 'node:https';
import { KubeTransport, loadKubeConfig, type ClusterAccess } from '../../runtime/index.js';
import { kubeconfigPath } from '../support/cluster.js';
import { selfSignedCert } from '../../runtime/serving/self-signed-cert.js';

describe('KubeTransport agent pool', () => {
  it('uses a new agent when the TLS material changes, and the pooled one again when it changes back', async () => {
    // Our kubeconfig reader returns the same Buffers every time: the pool's by-reference fast path is taken.
    const real = await loadKubeConfig(kubeconfigPath('ours'));
    const wrongCA = Buffer.from(selfSignedCert('not-the-cluster-ca', ['localhost']).cert);
    let useWrongCA = false;
    const access: ClusterAccess = {
      getCurrentCluster: () => real.getCurrentCluster(),
      async applyToHTTPSOptions(opts: RequestOptions) {
        await real.applyToHTTPSOptions(opts);
        if (useWrongCA) opts.ca = wrongCA;
      },
    };
    const transport = new KubeTransport(access);
    const get = () => transport.request({ method: 'GET', path: '/version' });
    await expect(get()).resolves.toHaveProperty('gitVersion');
    await expect(get()).resolves.toHaveProperty('gitVersion');
    useWrongCA = true;
    await expect(get()).rejects.toThrow(/certificate/);
    useWrongCA = false;
    await expect(get()).resolves.toHaveProperty('gitVersion');
    transport.close();
  });
});
