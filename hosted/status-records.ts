// The management-side record `featuregates hosted status` reads: one ConfigMap per shard in the
// coordinator's namespace (`featuregates-hosted-shard-NN`), data key per HCP → its HostedGuestRecord as
// JSON. Only the shard's owner writes it (through the shard's fence); the whole data is replaced, so an HCP that
// left the shard leaves the record too. The writes are a controller's (HostedStatusRecordController, key: the
// shard): a change waits FLUSH_DELAY_MS so the changes of a second make one write per shard, a failed write is
// retried with the controller's backoff, one refused by the fence is dropped (the shard is going) — the same
// policy as every other write.
import { decodeShardRecords, featureSetName, hcpKey, recordKey, isShardName, shardName, shardRecordData, type ConfigMap, type HostedGuestRecord } from '../api-types/index.js';
import {
  ConfigMapResource, Controller, HostedControlPlaneResource, ItemExponentialLimiter, LeaseResource, ResourceClient, silentLogger,
  type ClusterAccess, type Clock, type Logger,
} from '../runtime/index.js';

const RECORD_LABEL = 'app.kubernetes.io/part-of=featuregate-coordinator';

const FLUSH_DELAY_MS = 1_000;
export const STATUS_RECORD_CONTROLLER = 'HostedStatusRecordController';

interface ShardState {
  /** The shard's writer: its writes pass the shard's fence. */
  client: ResourceClient<ConfigMap>;
  records: Map<string, HostedGuestRecord>;
  dirty: boolean;
}

export class StatusRecords {
  private readonly shards = new Map<number, ShardState>();
  private readonly controller: Controller;

  constructor(private readonly kc: ClusterAccess, private readonly namespace: string, logger?: Logger, clock?: Clock) {
    this.controller = new Controller({ name: STATUS_RECORD_CONTROLLER, reconcile: (key) => this.flush(Number(key)), watches: [] },
      { logger: logger ?? silentLogger, rateLimiter: new ItemExponentialLimiter(5, 5 * 60_000), ...(clock ? { clock } : {}) });
    this.controller.start();
  }

  /** The shard is ours: its record may be written (through `fence`). */
  open(shard: number, fence: () => void): void {
    const client = new ResourceClient<ConfigMap>(this.kc, ConfigMapResource, undefined, { namespace: this.namespace, fence });
    this.shards.set(shard, { client, records: new Map(), dirty: true });
    this.schedule(shard);
  }

  /** The shard is going: nothing more is written for it. */
  close(shard: number): void {
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

  /** Writes in flight end, then nothing more is written (at shutdown, after every shard was closed). */
  async stop(): Promise<void> {
    await this.controller.stop();
  }

  private schedule(shard: number): void {
    this.controller.queue.addAfter(String(shard), FLUSH_DELAY_MS);
  }

  private async flush(shard: number): Promise<void> {
    const s = this.shards.get(shard);
    if (!s?.dirty) return;
    s.dirty = false;
    const data = shardRecordData(s.records);
    const name = shardName(shard);
    try {
      await s.client.upsert(name, (stored) => {
        if (!stored && s.records.size === 0) return undefined; // nothing to say, nothing said before
        return stored ? { ...stored, data }
          : { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: this.namespace, labels: { [RECORD_LABEL.split('=')[0]!]: RECORD_LABEL.split('=')[1]! } }, data };
      });
    } catch (e) {
      s.dirty = true; // written at the retry (a newer change may have been scheduled meanwhile)
      throw e;
    }
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
