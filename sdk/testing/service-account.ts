// A KubeConfig that authenticates as a ServiceAccount (a real token from the TokenRequest API), for
// proving RBAC: what the account may do works, the rest is forbidden.
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { ControlPlane } from '../../control-plane/control-plane.js';

export async function serviceAccountKubeConfig(
  plane: ControlPlane,
  namespace: string,
  name: string,
  expirationSeconds = 3600,
): Promise<KubeConfig> {
  const core = plane.kubeConfig.makeApiClient(CoreV1Api);
  const tr = await core.createNamespacedServiceAccountToken({ name, namespace, body: { spec: { audiences: [], expirationSeconds } } });
  const token = tr.status?.token;
  if (!token) throw new Error(`TokenRequest for ${namespace}/${name} returned no token`);
  const admin = plane.kubeConfig.getCurrentCluster()!;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'local', server: admin.server, caData: admin.caData, skipTLSVerify: false }],
    users: [{ name: `${namespace}:${name}`, token }],
    contexts: [{ name: 'sa', cluster: 'local', user: `${namespace}:${name}` }],
    currentContext: 'sa',
  });
  return kc;
}
