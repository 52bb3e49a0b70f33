// The Kubernetes version an API server reports (GET /version's gitVersion, "v1.36.3"): what the gate rules of the
// cluster's components are chosen by.
import type { ClusterAccess } from './kube-config.js';
import { KubeTransport } from './kube-transport.js';

/**
 * A reader of GET /version's gitVersion as a Kubernetes version ("v1.36.3+abc" → "1.36.3"); it resolves undefined when
 * the server cannot be read (never throws).
 */
export function apiServerVersion(kc: ClusterAccess, signal?: AbortSignal): () => Promise<string | undefined> {
  return async () => {
    const v = await KubeTransport.for(kc).request({ method: 'GET', path: '/version', ...(signal ? { signal } : {}) }).catch(() => undefined) as { gitVersion?: unknown } | undefined;
    return typeof v?.gitVersion === 'string' ? v.gitVersion.replace(/^v/, '').split(/[-+]/)[0] : undefined;
  };
}
