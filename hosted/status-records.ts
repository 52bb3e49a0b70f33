// The management-side record `featuregates hosted status` reads: one ConfigMap per shard in the
// coordinator's namespace (`featuregates-hosted-shard-NN`), data key per HCP → its HostedGuestRecord as
// JSON, from the shard's HeldShard (held-shard.ts). Only the shard's owner writes it (through the shard's fence); the
// whole data is replaced, so an HCP that left the shard leaves the record too. The writes are a controller's (HostedStatusRecordController,
// key: the
// shard): a change waits FLUSH_DELAY_MS so the changes of a second make one write per shard, a failed write is
// retried with the controller's backoff, one refused by the fence is dropped (the shard is going) — the same
// policy as every other write.
import { decodeShardRecords, featureSetName, hcpKey, isShardName, shardName, shardRecordData, type ConfigMap, type HostedGuestRecord } from '../api-types/index.js';
import {
  ConfigMapResource, Controller, HostedControlPlaneResource, ItemExponentialLimiter, LeaseResource, ResourceClient, silentLogger,
  type ClusterAccess, type Clock, type Logger,
} from '../runtime/index.js';
import type { HeldShard } from './held-shard.js';

const RECORD_LABEL = 'app.kubernetes.io/part-of=featuregate-coordinator';

const FLUSH_DELAY_MS = 1_000;
export const STATUS_RECORD_CONTROLLER = 'HostedStatusRecordController';

export class StatusRecords {
  private readonly controller: Controller;

  /** `held(shard)`: what this replica holds for the shard (undefined: not held, nothing is written for it). */
  constructor(
    private readonly kc: ClusterAccess,
    private readonly namespace: string,
    private readonly held: (shard: number) => HeldShard | undefined,
    logger?: Logger,
    clock?: Clock,
  ) {
    this.controller = new Controller(
      { name: STATUS_RECORD_CONTROLLER, reconcile: (key) => this.flush(Number(key)), watches: [] },
      { logger: logger ?? silentLogger, rateLimiter: new ItemExponentialLimiter(5, 5 * 60_000), ...(clock ? { clock } : {}) },
    );
    this.controller.start();
  }

  /** The shard's records changed (or it was just acquired): its record is written within FLUSH_DELAY_MS. */
  changed(shard: number): void {
    this.controller.queue.addAfter(String(shard), FLUSH_DELAY_MS);
  }

  /** Writes in flight end, then nothing more is written (at shutdown, after every shard was dropped). */
  async stop(): Promise<void> {
    await this.controller.stop();
  }

  private async flush(shard: number): Promise<void> {
    const s = this.held(shard);
    if (!s?.recordsDirty) return;
    s.recordsDirty = false;
    const data = shardRecordData(s.records);
    const name = shardName(shard);
    const client = new ResourceClient<ConfigMap>(this.kc, ConfigMapResource, undefined, { namespace: this.namespace, fence: s.fence });
    try {
      await client.upsert(name, (stored) => {
        if (!stored && s.records.size === 0) return undefined; // nothing to say, nothing said before
        return stored
          ? { ...stored, data }
          : {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name, namespace: this.namespace, labels: { [RECORD_LABEL.split('=')[0]!]: RECORD_LABEL.split('=')[1]! } },
              data,
            };
      });
    } catch (e) {
      s.recordsDirty = true; // written at the retry (a newer change may have been scheduled meanwhile)
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
