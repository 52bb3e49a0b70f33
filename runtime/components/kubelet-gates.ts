// Every node's kubelet, as it reports its gates itself: the nodes listed (paged and bounded like every list), and
// each Ready node's kubelet read through the API server's node proxy (/api/v1/nodes/NAME/proxy/metrics, /flagz) —
// the same reading and verdicts as any component (component-gates.ts), a few nodes at a time, each bounded in time,
// a node that does not answer reported as such. And each node's configuration (/configz), grouped, for the question
// whether its kubelet would start with other gates. RBAC: list nodes, get nodes/proxy.
import {
  GateRulesError,
  configurationOfRunningKubelet,
  decodeKubeletConfiguration,
  fieldsTheRulesRead,
  kubeletConfigRules,
  groupKubelets,
  groupNodeConfigurations,
  type DesiredGate,
  type GateLifecycle,
  type KubeletCheck,
  type KubeletConfiguration,
  type KubeletsReport,
  type NodeConfigurationGroup,
  type NodeSummary,
} from '../../api-types/index.js';
import { KubeTransport } from '../rest/kube-transport.js';
import { checkComponent, readFailure } from './component-gates.js';
import type { ClusterAccess } from '../rest/kube-config.js';
import { ResourceClient } from '../rest/resource-client.js';
import { NodeResource } from '../rest/resources.js';

/** Kubelets read at once (each one a few requests through the API server). */
const KUBELETS_IN_FLIGHT = 8;

/** `read` for each item, KUBELETS_IN_FLIGHT at a time. */
async function eachAtMost<T>(items: readonly T[], read: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(KUBELETS_IN_FLIGHT, items.length) }, async () => {
    for (let i = next++; i < items.length; i = next++) await read(items[i]!);
  }));
}

const nodeClient = (kc: ClusterAccess, timeoutMs?: number) =>
  new ResourceClient(kc, NodeResource, undefined, timeoutMs ? { timeoutMs } : {});

export interface KubeletReadOptions {
  lifecycle: () => GateLifecycle;
  /** Per request (a node that does not answer within it is `unreachable`). */
  timeoutMs?: number;
}

/** The kubelets of `nodes` (listed already) checked against `desired`, grouped. */
export async function checkKubeletsOf(
  kc: ClusterAccess,
  nodes: readonly NodeSummary[],
  desired: readonly DesiredGate[],
  o: KubeletReadOptions,
): Promise<KubeletsReport> {
  const ready = nodes.filter((n) => n.ready);
  const notReady = nodes.filter((n) => !n.ready).map((n) => n.name);
  const checks: KubeletCheck[] = [];
  await eachAtMost(ready, async ({ name: node }) => {
    const check = await checkComponent(kc, 'kubelet', desired, {
      lifecycle: o.lifecycle,
      ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}),
      basePath: `/api/v1/nodes/${encodeURIComponent(node)}/proxy`,
    });
    checks.push({ node, check });
  });
  return { nodes: nodes.length, groups: groupKubelets(checks, notReady) };
}

/** Every node listed, then its kubelet checked. */
export async function checkKubelets(kc: ClusterAccess, desired: readonly DesiredGate[], o: KubeletReadOptions): Promise<KubeletsReport> {
  let nodes: NodeSummary[];
  try {
    nodes = (await nodeClient(kc, o.timeoutMs).list()).items;
  } catch (e) {
    return { nodes: 0, groups: [], error: readFailure(e, 'list nodes') };
  }
  return checkKubeletsOf(kc, nodes, desired, o);
}

/** A node's /configz is read to at most this much (a KubeletConfiguration is a few kB). */
const MAX_CONFIGZ_BYTES = 1024 * 1024;

export interface NodeConfigurations {
  groups: NodeConfigurationGroup[];
  /** Ready nodes whose /configz could not be read or decoded, with why; nodes not Ready are not read. */
  unread: { node: string; error: string }[];
  notReady: string[];
}

/**
 * Every Ready node's kubelet configuration as a restart would start from it (configurationOfRunningKubelet, at the
 * kubelet's own minor, `kubernetesVersion` when the node does not say), grouped by configuration.
 */
export async function readNodeConfigurations(
  kc: ClusterAccess,
  kubernetesVersion: string,
  o: { timeoutMs?: number } = {},
): Promise<NodeConfigurations> {
  const nodes = (await nodeClient(kc, o.timeoutMs).list()).items;
  const ready = nodes.filter((n) => n.ready);
  const read: { node: string; configuration: KubeletConfiguration }[] = [];
  const unread: { node: string; error: string }[] = [];
  const t = KubeTransport.for(kc);
  await eachAtMost(ready, async (n) => {
    try {
      const body = await t.request({
        method: 'GET',
        path: `/api/v1/nodes/${encodeURIComponent(n.name)}/proxy/configz`,
        maxBodyBytes: MAX_CONFIGZ_BYTES,
        ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}),
      });
      const minor = /^v?(\d+\.\d+)/.exec(n.kubeletVersion ?? '')?.[1] ?? kubernetesVersion;
      read.push({ node: n.name, configuration: configurationOfRunningKubelet(decodeKubeletConfiguration(body), minor) });
    } catch (e) {
      unread.push({
        node: n.name,
        error: e instanceof GateRulesError ? `not judged: ${e.message}` : readFailure(e, 'GET /configz', 'unreadable'),
      });
    }
  });
  return {
    groups: groupNodeConfigurations(read, fieldsTheRulesRead(kubeletConfigRules(kubernetesVersion))),
    unread: unread.sort((a, b) => (a.node < b.node ? -1 : 1)),
    notReady: nodes
      .filter((n) => !n.ready)
      .map((n) => n.name)
      .sort(),
  };
}

/**
 * One page of nodes (`limit` of them, from `from`, the server's continue token of the page before): the continuous
 * check reads the fleet a page per period, so a 5,000-node cluster costs the same per minute as a 50-node one. An
 * expired token (410, the list's snapshot compacted away) starts the sweep again.
 */
export async function nodePage(
  kc: ClusterAccess,
  limit: number,
  from: string | undefined,
  timeoutMs?: number,
): Promise<{ nodes: NodeSummary[]; next?: string }> {
  const { items, next } = await nodeClient(kc, timeoutMs).listPage(limit, from);
  return { nodes: items, ...(next ? { next } : {}) };
}
