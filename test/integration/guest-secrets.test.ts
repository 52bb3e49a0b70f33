// The replica's watches of guest kubeconfig Secrets: one per Secret name, forgotten when no HCP of the replica
// names it any more (a name that no session uses is not watched, and its Secrets not cached, forever).
import { describe, expect, it } from '@jest/globals';
import { loadKubeConfig, silentLogger } from '../../runtime/index.js';
import { GuestSecrets } from '../../hosted/guest-secrets.js';
import { kubeconfigPath } from '../support/cluster.js';

describe('GuestSecrets', () => {
  it('watches each name once, and stops watching the names retain() does not keep', async () => {
    const kc = await loadKubeConfig(kubeconfigPath('ours'));
    const secrets = new GuestSecrets(kc, () => undefined, silentLogger);
    try {
      const a = secrets.named('kc-a');
      expect(secrets.named('kc-a')).toBe(a);
      secrets.named('kc-b');
      secrets.named('kc-c');
      await Promise.all(['kc-a', 'kc-b', 'kc-c'].map((n) => secrets.named(n).synced));
      expect(secrets.names()).toEqual(['kc-a', 'kc-b', 'kc-c']);
      secrets.retain(new Set(['kc-b']));
      expect(secrets.names()).toEqual(['kc-b']);
      // A name used again is watched anew.
      expect(secrets.named('kc-a')).not.toBe(a);
      expect(secrets.names()).toEqual(['kc-a', 'kc-b']);
    } finally {
      await secrets.stop();
    }
  });
});
