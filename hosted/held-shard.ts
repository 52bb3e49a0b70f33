// What a replica holds for one shard while the shard's Lease is its own (or lapsed and claimed again, shards.ts), in
// one place: the fence every write of the shard passes (the Lease's of the moment), the guest sessions of the shard's
// HCPs, and their records for `featuregates hosted status` (written by status-records.ts). Made when the shard is
// acquired and dropped when it goes, so nothing of a shard that is gone can linger in a map of its own
// (multicluster-runtime's sharded coordinator keeps one engagement record the same way).
import { recordKey, type HostedGuestRecord } from '../api-types/index.js';
import type { GuestSession } from './guest-session.js';

export class HeldShard {
  /** HCP key → its session. */
  readonly sessions = new Map<string, GuestSession>();
  /** Record key → the guest's record as its session last reported it. */
  readonly records = new Map<string, HostedGuestRecord>();
  /** The records changed since the shard's record was last written (a new holder writes it once anyway). */
  recordsDirty = true;

  private leaseFence: () => void;
  /** A write was refused since the shard lapsed (its renewal came late). */
  private refused = false;

  /** `fence` throws once the shard's Lease is not held any more. */
  constructor(readonly shard: number, fence: () => void) {
    this.leaseFence = fence;
  }

  /** What every write of the shard passes: throws (NotLeaderError) while the shard's Lease is not held. */
  readonly fence = (): void => {
    try {
      this.leaseFence();
    } catch (e) {
      this.refused = true;
      throw e;
    }
  };

  /**
   * The shard is held again after a late renewal (its guests were kept): writes pass the new Lease's fence. True
   * when a write was refused meanwhile: a refused write is dropped, so the sessions must look again.
   */
  resume(fence: () => void): boolean {
    this.leaseFence = fence;
    const refused = this.refused;
    this.refused = false;
    return refused;
  }

  /** A guest's new record (its session tells only what is news). */
  putRecord(r: HostedGuestRecord): void {
    this.records.set(recordKey(r.hcp), r);
    this.recordsDirty = true;
  }

  /** An HCP left the shard; true when it had a record. */
  dropRecord(hcp: string): boolean {
    if (!this.records.delete(recordKey(hcp))) return false;
    this.recordsDirty = true;
    return true;
  }
}
