// The two round trips the latency benchmarks time, on FeatureGate/cluster with current version 4.22.0:
//  - operatorChange: ClusterVersion history loses a version whose status entry exists, until a watcher
//    sees the operator's pruned status (seeding that entry is not timed);
//  - rawWrite: our own PUT of FeatureGate /status until the same watcher sees it (the baseline: the API
//    server's and the watch's share of the first path);
//  - relayChange: operatorChange with the operator replaced by the least any controller could do (a
//    ClusterVersion watch in this process whose handler PUTs the pruned status from the watcher's cache):
//    the floor of the operator path, two API round trips and two watch deliveries.
// Both paths include a GET before the PUT, as the operator's write does not (it works from its cache).
import type { KubeConfig } from '@kubernetes/client-node';
import { CLUSTER_VERSION_NAME, gateNames, type ClusterVersion, type FeatureGate, type VersionGates } from '../../api-types/index.js';
import { ClusterVersionResource, Reflector, ResourceClient } from '../../runtime/index.js';
import { setClusterVersion, setFeatureGateStatus } from '../../sdk/testing/index.js';
import type { FeatureGateWatcher } from './fg-watcher.js';
import { nowMs } from './stats.js';

function headGates(fg: FeatureGate): VersionGates {
  const head = fg.status!.featureGates[0]!;
  return { version: head.version, ...gateNames(head) };
}

export async function operatorChange(kc: KubeConfig, fgs: ResourceClient<FeatureGate>, watcher: FeatureGateWatcher, i: number): Promise<number> {
  const old = `4.21.${i}`;
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

export async function rawWrite(kc: KubeConfig, fgs: ResourceClient<FeatureGate>, watcher: FeatureGateWatcher, i: number): Promise<number> {
  const cur = headGates(await fgs.get('cluster'));
  const tag = `9.9.${i}`;
  const seen = watcher.next((v) => v.includes(tag));
  const t0 = nowMs();
  await setFeatureGateStatus(kc, [cur, { version: tag, enabled: [], disabled: [] }]);
  await seen;
  return nowMs() - t0;
}

/** A minimal stand-in for the operator: prunes FeatureGate status to the history's versions on every ClusterVersion event. */
export async function startRelay(kc: KubeConfig, fgs: ResourceClient<FeatureGate>, watcher: FeatureGateWatcher): Promise<{ stop(): Promise<void> }> {
  const cvs = new Reflector<ClusterVersion>(new ResourceClient(kc, ClusterVersionResource), { name: CLUSTER_VERSION_NAME });
  cvs.addListener(() => {
    const history = new Set((cvs.get(CLUSTER_VERSION_NAME)?.status?.history ?? []).map((h) => h.version));
    const fg = watcher.current();
    const entries = fg?.status?.featureGates ?? [];
    const kept = entries.filter((e) => history.has(e.version));
    if (fg && kept.length > 0 && kept.length < entries.length) {
      fgs.replaceStatus({ ...fg, status: { ...fg.status, featureGates: kept } }).catch(() => undefined);
    }
  });
  cvs.start();
  await cvs.synced;
  return { stop: () => cvs.stop() };
}
