// The guest kubeconfig Secrets, for every HCP namespace at once: one watch per Secret name across all
// namespaces (a metadata.name field selector), listed by the watch itself (sendInitialEvents, client-go's
// WatchList), so RBAC grants `watch` on that name only — never `list`, never another Secret — and a replica
// holds one connection for them instead of one per HCP. A change tells the sessions of that namespace.
import type { Registry } from 'prom-client';
import type { Secret } from '../api-types/index.js';
import { Reflector, ResourceClient, SecretResource, type ClusterAccess, type Logger } from '../runtime/index.js';

export class GuestSecrets {
  private readonly byName = new Map<string, Reflector<Secret>>();

  constructor(private readonly kc: ClusterAccess, private readonly onChange: (namespace: string) => void,
    private readonly logger: Logger, private readonly metrics?: Registry) {}

  /** The Secrets called `name`, in every namespace (watched from the first call on). */
  named(name: string): Reflector<Secret> {
    let r = this.byName.get(name);
    if (!r) {
      r = new Reflector(new ResourceClient(this.kc, SecretResource, this.metrics), {
        name, watchList: true, logger: this.logger, ...(this.metrics ? { metrics: this.metrics } : {}),
      });
      // A new listing reports every Secret again: only changed ones (or deleted) wake their sessions.
      r.addListener((key) => this.onChange(key.split('/')[0] ?? ''), { changesOnly: true });
      this.byName.set(name, r);
      r.start();
    }
    return r;
  }

  /** Names watched now. */
  names(): string[] {
    return [...this.byName.keys()].sort();
  }

  /** Stops watching every name not in `inUse` (no HCP of this replica names it any more): the cache forgets it. */
  retain(inUse: ReadonlySet<string>): void {
    for (const [name, r] of this.byName) {
      if (inUse.has(name)) continue;
      this.byName.delete(name);
      void r.stop();
    }
  }

  async stop(): Promise<void> {
    await Promise.all([...this.byName.values()].map((r) => r.stop()));
  }
}
