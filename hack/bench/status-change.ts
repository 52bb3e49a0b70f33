// The round trips the latency benchmarks time, on FeatureGate/cluster with current version 4.22.0:
//  - operatorChange: ClusterVersion history loses a version whose status entry exists, until a watcher
//    sees the pruned status (seeding that entry is not timed) — pruned by the operator, or by a relay;
//  - rawWrite: our own PUT of FeatureGate /status until the same watcher sees it (the baseline: the API
//    server's and the watch's share of the first path);
//  - startRelay: the operator replaced by the least any controller could do (a ClusterVersion watch in this
//    process whose handler PUTs the pruned status from the watcher's cache): the floor of the operator path,
//    two API round trips and two watch deliveries. Several relays can run at once (h2-relay.ts, go-relay/):
//    each acts only on changes that name it.
// Both paths include a GET before the PUT, as the operator's write does not (it works from its cache).
import type { KubeConfig } from '@kubernetes/client-node';
import { CLUSTER_VERSION_NAME, gateNames, type ClusterVersion, type FeatureGate, type VersionGates } from '../../api-types/index.js';
import { ClusterVersionResource, Reflector, ResourceClient, type ClusterAccess } from '../../runtime/index.js';
import { setClusterVersion, setFeatureGateStatus } from '../../sdk/testing/index.js';
import { BENCH_VERSION } from './bench-cluster.js';
import type { FeatureGateWatcher } from './fg-watcher.js';
import { nowMs } from './stats.js';

function headGates(fg: FeatureGate): VersionGates {
  const head = fg.status!.featureGates[0]!;
  return { version: head.version, ...gateNames(head) };
}

/**
 * `relay` names which of several relays running at once acts on this change: the pruned version carries it
 * as a suffix (`4.21.7-h2`), and each relay acts only on its own (see prunedFor). The operator acts on all.
 */
export async function operatorChange(
  kc: ClusterAccess,
  fgs: ResourceClient<FeatureGate>,
  watcher: FeatureGateWatcher,
  i: number,
  relay?: string,
): Promise<number> {
  const old = `4.21.${i}${relay ? `-${relay}` : ''}`;
  const cur = headGates(await fgs.get('cluster'));
  await setClusterVersion(kc, { history: ['4.22.0', old] });
  const seeded = watcher.next((v) => v === `4.22.0,${old}`);
  await setFeatureGateStatus(kc, [cur, { version: old, enabled: [], disabled: [] }]);
  await seeded;
  const pruned = watcher.next((v) => v === '4.22.0');
  const t0 = nowMs();
  await setClusterVersion(kc, { history: ['4.22.0'] });
  await pruned;
  return nowMs() - t0;
}

/** The footprint scenario: status-changing ClusterVersion changes, then heartbeats that change nothing. */
export const SCENARIO_CHANGES = 100;
export const SCENARIO_HEARTBEATS = 20;

/**
 * The scenario on each cluster, interleaved (a change on one, then on the next): SCENARIO_CHANGES operatorChange
 * round trips, then SCENARIO_HEARTBEATS ClusterVersion heartbeats 50 ms apart. Returns each cluster's latencies.
 */
export async function changeScenario(
  clusters: readonly { kc: ClusterAccess; fgs: ResourceClient<FeatureGate>; watcher: FeatureGateWatcher }[],
): Promise<number[][]> {
  const latencies = clusters.map(() => [] as number[]);
  for (let i = 0; i < SCENARIO_CHANGES; i++) {
    for (const [k, c] of clusters.entries()) latencies[k]!.push(await operatorChange(c.kc, c.fgs, c.watcher, i));
  }
  for (let i = 0; i < SCENARIO_HEARTBEATS; i++) {
    for (const c of clusters) await setClusterVersion(c.kc, { history: [BENCH_VERSION], extraStatus: { versionHash: `heartbeat-${i}` } });
    await new Promise((r) => setTimeout(r, 50));
  }
  return latencies;
}

export async function rawWrite(
  kc: ClusterAccess,
  fgs: ResourceClient<FeatureGate>,
  watcher: FeatureGateWatcher,
  i: number,
): Promise<number> {
  const cur = headGates(await fgs.get('cluster'));
  const tag = `9.9.${i}`;
  const seen = watcher.next((v) => v.includes(tag));
  const t0 = nowMs();
  await setFeatureGateStatus(kc, [cur, { version: tag, enabled: [], disabled: [] }]);
  await seen;
  return nowMs() - t0;
}

/** The status pruned to ClusterVersion history, when relay `name` is the one to act (a pruned version ends in -name). */
export function prunedFor(name: string, history: ReadonlySet<string>, fg: FeatureGate | undefined): FeatureGate | undefined {
  const entries = fg?.status?.featureGates ?? [];
  const kept = entries.filter((e) => history.has(e.version));
  if (!fg || kept.length === 0 || !entries.some((e) => !history.has(e.version) && e.version.endsWith(`-${name}`))) return undefined;
  return { ...fg, status: { ...fg.status, featureGates: kept } };
}

/** A minimal stand-in for the operator: prunes FeatureGate status to the history's versions on every ClusterVersion event. */
export async function startRelay(kc: KubeConfig, fgs: ResourceClient<FeatureGate>, watcher: FeatureGateWatcher, name = 'h1'): Promise<{ stop(): Promise<void> }> {
  const cvs = new Reflector<ClusterVersion>(new ResourceClient(kc, ClusterVersionResource), { name: CLUSTER_VERSION_NAME });
  cvs.addListener(() => {
    const pruned = prunedFor(
      name,
      new Set((cvs.get(CLUSTER_VERSION_NAME)?.status?.history ?? []).map((h) => h.version)),
      watcher.current(),
    );
    if (pruned) fgs.replaceStatus(pruned).catch(() => undefined);
  });
  cvs.start();
  await cvs.synced;
  return { stop: () => cvs.stop() };
}
