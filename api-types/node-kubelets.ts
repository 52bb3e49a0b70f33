// Every node's kubelet in `featuregates verify`: the nodes (decoded from untrusted Node objects to what is read:
// name, Ready, kubelet version), and the kubelets' checks grouped — nodes whose kubelets report the same verdicts are
// told together (`12 nodes match; 1 mismatch: worker-3`), so a 5,000-node cluster is a few lines. Pure.
import { DecodeError, describe, obj, str } from './decode.js';
import { NOT_READY, type ComponentCheck, type KubeletGroup, type KubeletsReport } from './running-gates.js';

export interface NodeSummary {
  name: string;
  /** The Ready condition is True. */
  ready: boolean;
  /** status.nodeInfo.kubeletVersion ("v1.36.3"), when the node says. */
  kubeletVersion?: string;
}

/** A Node as `verify` reads it; errors name the field path. */
export function decodeNodeSummary(v: unknown): NodeSummary {
  const o = obj(v, '');
  const name = str(obj(o.metadata, 'metadata').name, 'metadata.name');
  const status = o.status === undefined || o.status === null ? {} : obj(o.status, 'status');
  const conditions = status.conditions === undefined || status.conditions === null ? [] : status.conditions;
  if (!Array.isArray(conditions)) throw new DecodeError('status.conditions', `expected array, got ${describe(conditions)}`);
  const ready = conditions.some((c: unknown) => {
    const x = c !== null && typeof c === 'object' ? c as Record<string, unknown> : {};
    return x.type === 'Ready' && x.status === 'True';
  });
  const info = status.nodeInfo !== null && typeof status.nodeInfo === 'object' ? status.nodeInfo as Record<string, unknown> : {};
  return { name, ready, ...(typeof info.kubeletVersion === 'string' ? { kubeletVersion: info.kubeletVersion } : {}) };
}

/** One kubelet's check (its component check, named by node). */
export interface KubeletCheck { node: string; check: ComponentCheck }

/** Groups kubelet checks by their answer; groups with a mismatch or an error first, then by size. Node names sorted. */
export function groupKubelets(checks: readonly KubeletCheck[], notReady: readonly string[] = []): KubeletGroup[] {
  const byKey = new Map<string, KubeletGroup>();
  for (const { node, check } of checks) {
    const gates = check.gates.map(({ name, desired, running, verdict }) => ({ name, desired, running, verdict }));
    // errors name the node's address: grouped by their kind (unreachable, forbidden), the first one's words kept
    const key = JSON.stringify([check.error?.split(':')[0] ?? null, gates]);
    const g: KubeletGroup = byKey.get(key) ?? { nodes: [], ...(check.error ? { error: check.error } : {}), gates };
    g.nodes.push(node);
    byKey.set(key, g);
  }
  if (notReady.length) byKey.set('not-ready', { nodes: [...notReady], error: NOT_READY, gates: [] });
  const weight = (g: KubeletGroup) => (g.gates.some((x) => x.verdict === 'mismatch') ? 0 : g.error && g.error !== NOT_READY ? 1 : g.error ? 3 : 2);
  const groups = [...byKey.values()];
  for (const g of groups) g.nodes.sort();
  return groups.sort((a, b) => weight(a) - weight(b) || b.nodes.length - a.nodes.length || (a.nodes[0]! < b.nodes[0]! ? -1 : 1));
}

/** `12 nodes match; 1 mismatch: worker-3` — one phrase per group, the nodes named up to `names` per group. */
export function kubeletsSummary(r: KubeletsReport, names = 5): string {
  if (r.error) return `nodes not read: ${r.error}`;
  if (r.nodes === 0) return 'no nodes';
  const listed = (nodes: readonly string[]) => `${nodes.slice(0, names).join(', ')}${nodes.length > names ? `, … (${nodes.length - names} more)` : ''}`;
  return r.groups.map((g) => {
    const n = `${g.nodes.length} node${g.nodes.length === 1 ? '' : 's'}`;
    if (g.error) return `${n} ${g.error === NOT_READY ? 'not ready (not read)' : g.error.split(':')[0]}: ${listed(g.nodes)}`;
    const mismatches = g.gates.filter((x) => x.verdict === 'mismatch').length;
    return mismatches ? `${n} ${mismatches} mismatch${mismatches === 1 ? '' : 'es'}: ${listed(g.nodes)}` : `${n} match`;
  }).join('; ');
}
