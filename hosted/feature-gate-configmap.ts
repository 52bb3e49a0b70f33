// FeatureGateConfigMapController's reconcile (management side): the `feature-gate` ConfigMap in the HCP namespace,
// rendered for the HCP's spec and the HCP's release (hcpReleaseVersion: never the guest's ClusterVersion, which its
// admin can write), for HyperShift's profile (ibm-cloud-managed) — written even while the guest is unreachable
// (control-plane components read it), never with gates the HCP's control plane would refuse (it keeps its last set).
// Only management-side input; every write passes the shard's fence (the ResourceClient's).
import {
  ClusterProfiles,
  FEATURE_GATE_CONFIGMAP,
  configMapCarries,
  featureGateConfigMap,
  hcpNamespace,
  hcpReleaseVersion,
  hostedFeatureGateSpec,
  mergeConfigMap,
  type ConfigMap,
  type FeatureGateSpec,
  type FeatureSetRegistry,
  type HostedControlPlane,
} from '../api-types/index.js';
import { TerminalError, apiErrorMessage, type Logger, type ReconcileResult, type ResourceClient } from '../runtime/index.js';
import { type ReleaseCatalog } from './release-catalog.js';
import { type WritePacer } from './write-pacer.js';
import type { HcpGatesRefusal } from './hcp-gates-refusal.js';

export const FEATURE_GATE_CONFIGMAP_CONTROLLER = 'FeatureGateConfigMapController';
/** The ConfigMap is re-read from the API this often (between, what this controller wrote is trusted). */
const CONFIGMAP_RECHECK_MS = 10 * 60_000;

export interface FeatureGateConfigMapDeps {
  /** namespace/name of the HCP. */
  key: string;
  hcp: () => HostedControlPlane | undefined;
  catalog: Pick<ReleaseCatalog, 'registry'>;
  refusal: HcpGatesRefusal;
  /** The HCP namespace's ConfigMaps, written through the shard's fence. */
  configMaps: ResourceClient<ConfigMap>;
  /** How long a problem that waits on an event is left before it is looked at again (its Warning repeated). */
  waitingRecheckMs: number;
  /** A test's shorter resync (never later than the re-read is due). */
  resyncMs?: number;
  /** The replica's pace of management writes (shared by every session): each write waits its turn, in the 'state' lane. */
  pacer?: WritePacer;
  /** Aborted when the session stops: a write still waiting for its turn is given up. */
  signal?: AbortSignal;
  log: Logger;
}

export class FeatureGateConfigMapSync {
  private configMap: { cm: ConfigMap; checkedAt: number } | undefined;
  private rendered: { key: string; cm: ConfigMap } | undefined;
  private readonly namespace: string;

  constructor(private readonly d: FeatureGateConfigMapDeps) {
    this.namespace = hcpNamespace(d.key);
  }

  async reconcile(): Promise<ReconcileResult> {
    const d = this.d;
    const hcp = d.hcp();
    if (!hcp) return {};
    const release = hcpReleaseVersion(hcp);
    if (!release) {
      // Nothing has failed: HyperShift names the release once the control plane rolls out (a status line, no Warning).
      throw new TerminalError(`HostedControlPlane ${d.key} names no release version yet (status.controlPlaneVersion, status.version); ` +
        'the feature-gate ConfigMap waits for it', { reason: 'MissingVersion', pending: true, recheckAfterMs: d.waitingRecheckMs });
    }
    let registry: FeatureSetRegistry;
    try {
      registry = d.catalog.registry(release.version, ClusterProfiles.IBMCloudManaged);
    } catch (e) {
      throw new TerminalError(`HostedControlPlane release ${release.version}: ${(e as Error).message}`, { reason: 'MissingRelease', recheckAfterMs: d.waitingRecheckMs });
    }
    const spec = hostedFeatureGateSpec(hcp);
    const refusal = d.refusal.of(spec, release.version);
    if (refusal) throw new TerminalError(refusal, { reason: 'GatesRefused', recheckAfterMs: d.waitingRecheckMs });
    const desired = this.desired(spec, registry, release.version);
    const known = this.configMap;
    // Its inputs (the HCP) are watched; what the API server has is re-read every CONFIGMAP_RECHECK_MS, so that is
    // its resync too (a minute's resync of every HCP's ConfigMap was a third of an idle replica's reconciles).
    if (known && Date.now() - known.checkedAt < CONFIGMAP_RECHECK_MS && configMapCarries(known.cm, desired))
      return { requeueAfterMs: this.resyncMs(known.checkedAt) };
    try {
      // Only the write waits its turn at the pacer (ahead of Events): a replica taking over a fleet whose ConfigMaps
      // are right reads each once and writes none.
      const stored = await d.configMaps.find(FEATURE_GATE_CONFIGMAP);
      let written: ConfigMap | undefined;
      if (!configMapCarries(stored, desired)) {
        const write = () => (stored ? d.configMaps.replace(mergeConfigMap(stored, desired)) : d.configMaps.create(desired));
        written = await (d.pacer ? d.pacer.run(write, d.signal, 'state') : write());
      }
      this.configMap = { cm: (written ?? stored)!, checkedAt: Date.now() };
      if (written) d.log.info('feature-gate ConfigMap written', { version: release.version });
    } catch (e) {
      throw new Error(`ConfigMap ${this.namespace}/${FEATURE_GATE_CONFIGMAP}: ${apiErrorMessage(e)}`, { cause: e });
    }
    return { requeueAfterMs: this.resyncMs(Date.now()) };
  }

  /** When the ConfigMap is next looked at without a change: when its last read is due again (never later than a test's shorter resync). */
  private resyncMs(checkedAt: number): number {
    return Math.max(1, Math.min(this.d.resyncMs ?? CONFIGMAP_RECHECK_MS, CONFIGMAP_RECHECK_MS - (Date.now() - checkedAt)));
  }

  /** The desired `feature-gate` ConfigMap, rendered once per spec and version (the render is most of a sync's CPU). */
  private desired(spec: FeatureGateSpec, registry: FeatureSetRegistry, version: string): ConfigMap {
    const key = JSON.stringify([spec, version]);
    if (this.rendered?.key !== key) this.rendered = { key, cm: featureGateConfigMap(this.namespace, spec, registry, version) };
    return this.rendered.cm;
  }
}
