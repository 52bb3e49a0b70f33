// What a stand-in component holds before the SDK is added to it (sdk-component.ts, sdk-accessor-part.ts): one
// client-node watch of its own, on Namespaces. Imports @kubernetes/client-node only, so a measured process loads
// nothing of this project with it.
import { Watch, type KubeConfig } from '@kubernetes/client-node';

/** Resolves once the watch is up (its first event, the ADDED of an existing namespace); the watch stays open. */
export function holdNamespaceWatch(kc: KubeConfig): Promise<void> {
  let seen = 0;
  return new Promise<void>((resolve, reject) => {
    void new Watch(kc).watch('/api/v1/namespaces', {}, () => { if (++seen === 1) resolve(); }, (err) => { if (err) reject(err as Error); })
      .catch(reject);
  });
}
