// GuestConnectionController's reconcile, the guest provider: the HCP's kubeconfig Secret (from the replica's watch of
// that Secret name, guest-secrets.ts) → a GuestConnection (the kubeconfig is untrusted data, guest-connection.ts)
// and its engagement (made by the session: the single-cluster operator's own controllers over that guest's caches).
// A new kubeconfig re-engages; a Secret deleted, its key removed or its reference withdrawn ends the connection. A
// guest that does not answer is reported here (a TerminalError its health events wake), and its engagement sends
// nothing until it answers again.
import type { Registry } from 'prom-client';
import { hcpNamespace, type HostedControlPlane } from '../api-types/index.js';
import { TerminalError, type Logger, type ReconcileResult } from '../runtime/index.js';
import { type FairTurns } from './fair-turns.js';
import { GuestConnection, GuestInputError, type GuestTuning } from './guest-connection.js';
import type { GuestEngagement } from './guest-engagement.js';
import type { GuestSecrets } from './guest-secrets.js';

export const DEFAULT_GUEST_KUBECONFIG_KEY = 'kubeconfig';

export interface GuestProviderDeps {
  /** namespace/name of the HCP. */
  key: string;
  identity: string;
  fence: () => void;
  hcp: () => HostedControlPlane | undefined;
  /** The guest kubeconfig Secrets (shared by every session of the replica). */
  secrets: GuestSecrets;
  /** Use this Secret name and key instead of the HCP's status.kubeConfig. */
  secretOverride?: { name: string; key?: string };
  tuning: GuestTuning;
  /** The replica's places for guests in their first listing (FIRST_LISTINGS), shared by every session. */
  firstListings?: FairTurns;
  clusterOperatorName: string;
  registry?: Registry;
  log: Logger;
  /** Aborted when the session stops: nothing is made after. */
  stopping: AbortSignal;
  /** How long a problem that waits on an event is left before it is looked at again (its Warning repeated). */
  waitingRecheckMs: number;
  /** The provider looks again (its controller's queue). */
  enqueue(): void;
  /** The engagement of a new connection (the session wires what it reports). */
  engage(guest: GuestConnection): GuestEngagement;
  /** The connection and its engagement ended: what their controllers said no longer holds. */
  onDisengaged(): void;
}

export class GuestProvider {
  private current: { guest: GuestConnection; engagement: GuestEngagement } | undefined;
  /** The Secret name whose first listing will wake the provider (one wake-up attached per name). */
  private wakeOnListing: string | undefined;

  constructor(private readonly d: GuestProviderDeps) {}

  get guest(): GuestConnection | undefined {
    return this.current?.guest;
  }

  get engagement(): GuestEngagement | undefined {
    return this.current?.engagement;
  }

  /** The guest connection and engagement for the HCP's kubeconfig, (re)made when the Secret's text changes. */
  async reconcile(): Promise<ReconcileResult> {
    const d = this.d;
    const hcp = d.hcp();
    if (!hcp) return {};
    const kubeconfig = this.kubeconfig(hcp);
    if ('missing' in kubeconfig) {
      // A Secret deleted, its key removed or its reference withdrawn revokes: the connection, its watches and its
      // writes end now, as they do for a kubeconfig that cannot be used. (A Secret not read yet revokes nothing.)
      if (kubeconfig.revoked && this.current) {
        await this.disengage();
        d.log.info('guest connection ended: its kubeconfig was revoked', { why: kubeconfig.missing.message });
      }
      throw kubeconfig.missing;
    }
    const { text, where } = kubeconfig;
    if (this.current?.guest.kubeconfigText !== text) {
      await this.disengage();
      if (d.stopping.aborted) return {};
      let guest: GuestConnection;
      try {
        guest = new GuestConnection(
          text,
          where,
          d.identity,
          d.fence,
          this.onGuestHealth,
          d.tuning,
          d.clusterOperatorName,
          d.registry,
          d.log,
          d.firstListings,
        );
      } catch (e) {
        throw new TerminalError(e instanceof GuestInputError ? e.message : `${where}: ${(e as Error).message}`, {
          reason: 'MissingKubeconfig',
          recheckAfterMs: d.waitingRecheckMs,
        });
      }
      d.log.info('guest connection made', { server: guest.server });
      this.current = { guest, engagement: d.engage(guest) };
    }
    const guest = this.current!.guest;
    if (!guest.healthy()) {
      throw new TerminalError(guest.notReadyReason(), {
        reason: 'GuestUnreachable',
        pending: !guest.failing(),
        recheckAfterMs: d.waitingRecheckMs,
      });
    }
    return { requeueAfterMs: d.waitingRecheckMs };
  }

  /** The connection and engagement end (their requests in flight are aborted). */
  async disengage(): Promise<void> {
    const current = this.current;
    this.current = undefined;
    if (!current) return;
    await Promise.all([current.engagement.stop(), current.guest.stop()]);
    this.d.onDisengaged();
  }

  /**
   * The guest failed, answered again, or listed for the first time: the provider looks, and a guest that answers again is looked at by
   * every controller.
   */
  private readonly onGuestHealth = (): void => {
    if (this.d.stopping.aborted) return;
    this.d.enqueue();
    if (this.current?.guest.healthy()) this.current.engagement.resync();
  };

  /**
   * The kubeconfig text of the HCP's Secret, or a TerminalError naming what is missing — `revoked` when the
   * management cluster says there is none (no reference, no Secret, no key), not when it has not answered yet.
   */
  private kubeconfig(hcp: HostedControlPlane): { text: string; where: string } | { missing: TerminalError; revoked: boolean } {
    const d = this.d;
    const namespace = hcpNamespace(d.key);
    const revoked = (message: string) => ({
      missing: new TerminalError(message, { reason: 'MissingKubeconfig', recheckAfterMs: d.waitingRecheckMs }),
      revoked: true,
    });
    const ref = d.secretOverride
      ? { name: d.secretOverride.name, key: d.secretOverride.key ?? DEFAULT_GUEST_KUBECONFIG_KEY }
      : hcp.status?.kubeConfig;
    if (!ref) return revoked(`HostedControlPlane ${d.key} has no status.kubeConfig (the guest kubeconfig Secret is not published yet)`);
    const where = `Secret ${namespace}/${ref.name}`;
    const reflector = d.secrets.named(ref.name);
    if (!reflector.hasSynced()) {
      // Its first listing wakes the provider: one wake-up per session and Secret name, however many reconciles wait
      // (each would otherwise attach a closure holding the session until the listing comes).
      if (this.wakeOnListing !== ref.name) {
        this.wakeOnListing = ref.name;
        void reflector.synced.then(() => {
          if (!d.stopping.aborted) d.enqueue();
        });
      }
      const error = reflector.lastError();
      const message = `${where} not read yet${error ? `: ${error}` : ''}`;
      return {
        missing: new TerminalError(message, { reason: 'MissingKubeconfig', pending: !error, recheckAfterMs: d.waitingRecheckMs }),
        revoked: false,
      };
    }
    const secret = reflector.get(`${namespace}/${ref.name}`);
    if (!secret) return revoked(`${where} (the guest kubeconfig) does not exist`);
    const b64 = secret.data?.[ref.key];
    if (b64 === undefined)
      return revoked(`${where} has no key ${JSON.stringify(ref.key)} (keys: ${Object.keys(secret.data ?? {}).join(', ') || 'none'})`);
    return { text: Buffer.from(b64, 'base64').toString('utf8'), where: `${where} key ${ref.key}` };
  }
}
