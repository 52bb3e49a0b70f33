// Every node's kubelet, as it reports its gates itself: the nodes listed (paged and bounded like every list), and
// each Ready node's kubelet read through the API server's node proxy (/api/v1/nodes/NAME/proxy/metrics, /flagz) —
// the same reading and verdicts as any component (component-gates.ts), a few nodes at a time, each bounded in time,
// a node that does not answer reported as such. RBAC: list nodes, get nodes/proxy.
import { groupKubelets, type DesiredGate, type GateLifecycle, type KubeletCheck, type KubeletsReport, type NodeSummary } from '../api-types/index.js';
import { apiErrorMessage, statusCode } from './api-errors.js';
import { checkComponent } from './component-gates.js';
import type { ClusterAccess } from './kube-config.js';
import { ResourceClient } from './resource-client.js';
import { NodeResource } from './resources.js';

/** Kubelets read at once (each one a few requests through the API server). */
const KUBELETS_IN_FLIGHT = 8;

export interface KubeletReadOptions {
  lifecycle: () => GateLifecycle;
  /** Per request (a node that does not answer within it is `unreachable`). */
  timeoutMs?: number;
  /** Only these nodes (the continuous check reads a bounded slice per period); default: every node. */
  pick?: (nodes: readonly NodeSummary[]) => readonly NodeSummary[];
}

/** The kubelets of `nodes` (listed already) checked against `desired`, grouped. */
export async function checkKubeletsOf(kc: ClusterAccess, nodes: readonly NodeSummary[], desired: readonly DesiredGate[], o: KubeletReadOptions): Promise<KubeletsReport> {
  const ready = nodes.filter((n) => n.ready);
  const notReady = nodes.filter((n) => !n.ready).map((n) => n.name);
  const checks: KubeletCheck[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(KUBELETS_IN_FLIGHT, ready.length) }, async () => {
    for (let i = next++; i < ready.length; i = next++) {
      const node = ready[i]!.name;
      const check = await checkComponent(kc, 'kubelet', desired, { lifecycle: o.lifecycle, ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}),
        basePath: `/api/v1/nodes/${encodeURIComponent(node)}/proxy` });
      checks.push({ node, check });
    }
  }));
  return { nodes: nodes.length, groups: groupKubelets(checks, notReady) };
}

/** Every node listed, then its kubelet checked (or, with `pick`, the nodes it picks). */
export async function checkKubelets(kc: ClusterAccess, desired: readonly DesiredGate[], o: KubeletReadOptions): Promise<KubeletsReport> {
  let nodes: NodeSummary[];
  try {
    nodes = (await new ResourceClient(kc, NodeResource, undefined, o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}).list()).items;
  } catch (e) {
    const code = statusCode(e);
    return { nodes: 0, groups: [], error: `${code === 401 || code === 403 ? 'forbidden' : 'unreachable'}: list nodes: ${apiErrorMessage(e)}` };
  }
  return checkKubeletsOf(kc, o.pick ? o.pick(nodes) : nodes, desired, o);
}
