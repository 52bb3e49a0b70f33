// Who wrote what, from kube-apiserver's audit log: each operator replica runs as its own ServiceAccount,
// so every successful write names its writer. Used to prove that no process that was not the Lease
// holder wrote anything.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { serviceAccountKubeConfig, type ControlPlane } from '../../sdk/testing/index.js';
import type { AuditWrite } from '../../test/support/audit.js';

export { auditSetup, readAuditWrites, type AuditSetup, type AuditWrite } from '../../test/support/audit.js';

/** Successful FeatureGate/ClusterOperator/Event writes by a user who was not the last to write the Lease before the request arrived. */
export function writesByNonHolders(writes: AuditWrite[], users: string[]): AuditWrite[] {
  const ok = writes.filter((w) => w.code >= 200 && w.code < 300 && users.includes(w.user));
  const leaseWrites = ok.filter((w) => w.resource === 'leases').sort((a, b) => a.completed - b.completed);
  return ok.filter((w) => w.resource !== 'leases').filter((w) => {
    const holder = leaseWrites.filter((l) => l.completed <= w.received).at(-1)?.user;
    return holder !== w.user;
  });
}

/** A kubeconfig file for a new ServiceAccount `name` in "default", bound to cluster-admin. */
export async function replicaKubeconfig(plane: ControlPlane, name: string): Promise<{ path: string; user: string; token: string }> {
  await plane.kubeConfig.makeApiClient(CoreV1Api).createNamespacedServiceAccount({ namespace: 'default', body: { metadata: { name } } });
  await plane.kubeConfig.makeApiClient(RbacAuthorizationV1Api).createClusterRoleBinding({ body: {
    metadata: { name: `chaos-${name}` }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'ServiceAccount', name, namespace: 'default' }] } });
  const kc = await serviceAccountKubeConfig(plane, 'default', name);
  const path = join(plane.dir, `kubeconfig-${name}`);
  writeFileSync(path, kc.exportConfig(), { mode: 0o600 });
  return { path, user: `system:serviceaccount:default:${name}`, token: kc.getCurrentUser()?.token ?? '' };
}
