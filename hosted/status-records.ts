// The management-side record `featuregates hosted status` reads: one ConfigMap per shard in the
// coordinator's namespace (`featuregates-hosted-shard-NN`), data key per HCP → its HostedGuestRecord as
// JSON. Only the shard's owner writes it (through the shard's fence); writes are coalesced (at most one per
// shard per second) and the whole data is replaced, so an HCP that left the shard leaves the record too.
import { decodeShardRecords, featureSetName, hcpKey, recordKey, isShardName, shardName, shardRecordData, type ConfigMap, type HostedGuestRecord } from '../api-types/index.js';
import {
  ConfigMapResource, HostedControlPlaneResource, LeaseResource, ResourceClient, apiErrorMessage, isConflict, silentLogger,
  type ClusterAccess, type Logger,
} from '../runtime/index.js';

const RECORD_LABEL = 'app.kubernetes.io/part-of=featuregate-coordinator';

const FLUSH_DELAY_MS = 1_000;

interface ShardState {
  fence: () => void;
  records: Map<string, HostedGuestRecord>;
  timer: NodeJS.Timeout | undefined;
  flushing: Promise<void> | undefined;
  dirty: boolean;
}

export class StatusRecords {
  private readonly shards = new Map<number, ShardState>();
  private readonly client: ResourceClient<ConfigMap>;
  private readonly log: Logger;

  constructor(kc: ClusterAccess, private readonly namespace: string, logger?: Logger) {
    this.client = new ResourceClient(kc, ConfigMapResource, undefined, { namespace });
    this.log = logger ?? silentLogger;
  }

  /** The shard is ours: its record may be written (through `fence`). */
  open(shard: number, fence: () => void): void {
    this.shards.set(shard, { fence, records: new Map(), timer: undefined, flushing: undefined, dirty: true });
    this.schedule(shard);
  }

  /** The shard is going: nothing more is written for it. */
  close(shard: number): void {
    const s = this.shards.get(shard);
    if (s) clearTimeout(s.timer);
    this.shards.delete(shard);
  }

  put(r: HostedGuestRecord): void {
    const s = this.shards.get(r.shard);
    if (!s) return;
    s.records.set(recordKey(r.hcp), r);
    s.dirty = true;
    this.schedule(r.shard);
  }

  remove(shard: number, hcp: string): void {
    const s = this.shards.get(shard);
    if (!s?.records.delete(recordKey(hcp))) return;
    s.dirty = true;
    this.schedule(shard);
  }

  private schedule(shard: number): void {
    const s = this.shards.get(shard);
    if (!s || s.timer) return;
    s.timer = setTimeout(() => {
      s.timer = undefined;
      s.flushing = this.flush(shard, s).finally(() => { s.flushing = undefined; });
    }, FLUSH_DELAY_MS);
    s.timer.unref();
  }

  private async flush(shard: number, s: ShardState): Promise<void> {
    if (!s.dirty || this.shards.get(shard) !== s) return;
    s.dirty = false;
    const data = shardRecordData(s.records);
    const name = shardName(shard);
    const fenced = new ResourceClient<ConfigMap>(this.client.kubeConfig, ConfigMapResource, undefined, { namespace: this.namespace, fence: s.fence });
    try {
      await fenced.upsert(name, (stored) => {
        if (!stored && s.records.size === 0) return undefined; // nothing to say, nothing said before
        return stored ? { ...stored, data }
          : { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: this.namespace, labels: { [RECORD_LABEL.split('=')[0]!]: RECORD_LABEL.split('=')[1]! } }, data };
      });
    } catch (e) {
      if ((e as Error).name === 'NotLeaderError') return;
      s.dirty = true;
      if (!isConflict(e)) this.log.warn('could not write the hosted status record', { shard, error: apiErrorMessage(e) });
      this.schedule(shard);
    }
  }

  /** Waits for writes in flight (at shutdown). */
  async drain(): Promise<void> {
    await Promise.all([...this.shards.values()].map((s) => s.flushing));
  }
}

/**
 * One record per HCP of the management cluster (for `featuregates hosted status`): the coordinator's
 * records joined with the HCP list (an HCP nobody has synced gets a line saying so), the owner taken from
 * the shard Lease as it is now.
 */
export async function readHostedStatus(kc: ClusterAccess, namespace: string): Promise<HostedGuestRecord[]> {
  const [cms, leases, hcps] = await Promise.all([
    new ResourceClient(kc, ConfigMapResource, undefined, { namespace }).list(undefined, RECORD_LABEL),
    new ResourceClient(kc, LeaseResource, undefined, { namespace }).list(),
    new ResourceClient(kc, HostedControlPlaneResource).list(),
  ]);
  const byKey = new Map<string, HostedGuestRecord>();
  for (const cm of cms.items) {
    if (!isShardName(cm.metadata.name ?? '')) continue;
    for (const r of decodeShardRecords(cm.data, `configmap ${namespace}/${cm.metadata.name}`)) byKey.set(r.hcp, r);
  }
  const holders = new Map(leases.items.map((l) => [l.metadata.name, l.spec?.holderIdentity ?? '']));
  return hcps.items.map((hcp) => {
    const key = hcpKey(hcp);
    const r = byKey.get(key) ?? {
      hcp: key, shard: -1, owner: '', featureSet: featureSetName(hcp.spec.configuration?.featureGate?.featureSet ?? ''), versions: [],
      lastError: 'no coordinator replica has synced it yet (is its shard owned? is `featuregates hosted` running in this namespace?)',
    };
    const holder = r.shard >= 0 ? holders.get(shardName(r.shard)) : undefined;
    return holder !== undefined ? { ...r, owner: holder || '(released)' } : r;
  });
}
