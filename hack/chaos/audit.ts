// Who wrote what, from kube-apiserver's audit log: each operator replica runs as its own ServiceAccount,
// so every successful write names its writer. Used to prove that no process that was not the Lease
// holder wrote anything.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { serviceAccountKubeConfig, type ControlPlane } from '../../sdk/testing/index.js';

export interface AuditSetup {
  dir: string;
  logPath: string;
  apiServerArgs: string[];
}

/** An audit policy that records writes of leases, config.openshift.io objects and events (Metadata level); `reads` adds get/list/watch of config.openshift.io. */
export function auditSetup(options: { reads?: boolean } = {}): AuditSetup {
  const dir = mkdtempSync(join(tmpdir(), 'fgc-audit-'));
  const policy = join(dir, 'policy.yaml');
  writeFileSync(policy, [
    'apiVersion: audit.k8s.io/v1', 'kind: Policy', 'omitStages: [RequestReceived]', 'rules:',
    ...(options.reads ? ['- level: Metadata', '  verbs: [get, list, watch]', '  resources:', '  - group: config.openshift.io'] : []),
    '- level: Metadata', '  verbs: [create, update, patch, delete]', '  resources:',
    '  - group: coordination.k8s.io', '    resources: [leases]', '  - group: config.openshift.io', '  - group: ""', '    resources: [events]',
    '- level: None', '',
  ].join('\n'));
  const logPath = join(dir, 'audit.log');
  return { dir, logPath, apiServerArgs: [`--audit-policy-file=${policy}`, `--audit-log-path=${logPath}`, '--audit-log-format=json'] };
}

export interface AuditWrite {
  user: string;
  userAgent: string;
  resource: string;
  subresource: string;
  verb: string;
  code: number;
  received: number;
  completed: number;
}

export function readAuditWrites(logPath: string): AuditWrite[] {
  const out: AuditWrite[] = [];
  for (const line of readFileSync(logPath, 'utf8').split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line) as {
      stage?: string; verb?: string; user?: { username?: string }; userAgent?: string; objectRef?: { resource?: string; subresource?: string };
      responseStatus?: { code?: number }; requestReceivedTimestamp?: string; stageTimestamp?: string;
    };
    if (e.stage !== 'ResponseComplete' && e.stage !== 'ResponseStarted') continue;
    out.push({
      user: e.user?.username ?? '', userAgent: e.userAgent ?? '', resource: e.objectRef?.resource ?? '', subresource: e.objectRef?.subresource ?? '', verb: e.verb ?? '',
      code: e.responseStatus?.code ?? 0, received: Date.parse(e.requestReceivedTimestamp ?? ''), completed: Date.parse(e.stageTimestamp ?? ''),
    });
  }
  return out;
}

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
