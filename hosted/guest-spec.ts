// GuestFeatureGateSpecController: the guest's FeatureGate/cluster spec = its HostedControlPlane's
// spec.configuration.featureGate (created when missing). Triggered by the guest's FeatureGate (paced) and the
// HCP. A change the guest refuses — HyperShift's `config` admission policy, the CEL rules that keep NoUpgrade
// one-way — is a TerminalError: reported, not retried until the HCP or the guest object changes; the other
// controllers never wait for it (status follows the spec the guest has: what its components read).
import { API_VERSION, FEATURE_GATE_NAME, jsonEqual, type FeatureGate, type FeatureGateSpec } from '../api-types/index.js';
import {
  TerminalError, apiErrorMessage, isConflict, statusCode, type ControllerSpec, type EventRecorder, type Logger, type Reflector,
  type ResourceClient, type WatchSource,
} from '../runtime/index.js';

export const GUEST_SPEC_CONTROLLER = 'GuestFeatureGateSpecController';

/** Spec equality as the API server defaults it: absent featureSet = "", absent lists = none. */
export function sameFeatureGateSpec(a: FeatureGateSpec, b: FeatureGateSpec): boolean {
  const norm = (s: FeatureGateSpec) => ({
    featureSet: s.featureSet ?? '',
    customNoUpgrade: s.customNoUpgrade ? { enabled: s.customNoUpgrade.enabled ?? [], disabled: s.customNoUpgrade.disabled ?? [] } : null,
  });
  return jsonEqual(norm(a), norm(b));
}

export interface GuestSpecDeps {
  /** The HostedControlPlane, as its session names it in messages. */
  hcpKey: string;
  /** The spec the HCP asks for (undefined: the HCP is gone), and when it changes. */
  requested: WatchSource & { spec(): FeatureGateSpec | undefined };
  featureGates: Pick<Reflector<FeatureGate>, 'get' | 'addListener'>;
  client: Pick<ResourceClient<FeatureGate>, 'create' | 'replace'>;
  events: EventRecorder;
  logger: Logger;
  /** How soon a refused spec is tried again when nothing changed (a net under the watches). */
  recheckAfterMs: number;
}

export function guestSpecController(d: GuestSpecDeps): ControllerSpec {
  const reconcile = async () => {
    const spec = d.requested.spec();
    if (!spec) return {};
    const fg = d.featureGates.get(FEATURE_GATE_NAME);
    try {
      if (!fg) {
        await d.client.create({ apiVersion: API_VERSION, kind: 'FeatureGate', metadata: { name: FEATURE_GATE_NAME }, spec });
        d.logger.info('guest FeatureGate created', { featureSet: spec.featureSet ?? '' });
        return {};
      }
      if (sameFeatureGateSpec(fg.spec, spec)) return {};
      await d.client.replace({ ...fg, spec: { ...spec } });
    } catch (e) {
      if (isConflict(e) && fg) throw e; // the cache catches up; the controller retries with backoff
      if (statusCode(e) === 422 || statusCode(e) === 400) {
        throw new TerminalError(`the guest refused FeatureGate/cluster spec featureSet=${JSON.stringify(spec.featureSet ?? '')} ` +
          `(from HostedControlPlane ${d.hcpKey} spec.configuration.featureGate): ${apiErrorMessage(e)}`,
        { reason: 'SpecRejected', recheckAfterMs: d.recheckAfterMs });
      }
      throw e;
    }
    d.logger.info('guest FeatureGate spec set from the HostedControlPlane', { from: fg.spec.featureSet ?? '', to: spec.featureSet ?? '' });
    d.events.event({ apiVersion: API_VERSION, kind: 'FeatureGate', name: FEATURE_GATE_NAME }, 'Normal', 'FeatureGateSpecUpdated',
      `guest FeatureGate/cluster spec set to featureSet=${JSON.stringify(spec.featureSet ?? '')} from HostedControlPlane ${d.hcpKey}`);
    return {};
  };
  const toSingleton = () => [FEATURE_GATE_NAME];
  return {
    name: GUEST_SPEC_CONTROLLER, reconcile,
    watches: [{ source: d.featureGates, keys: toSingleton }, { source: d.requested, keys: toSingleton }],
    initialKeys: [FEATURE_GATE_NAME],
  };
}
