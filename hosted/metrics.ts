// Hosted-mode metrics. Labels are bounded: per HCP only `namespace` and `name` of the HCPs this replica
// owns (series are removed when it stops owning one), and `reason` from the fixed set below. Beside them, per owned
// HCP, OpenShift's own telemetry series of a cluster's feature set as HyperShift's hosted-cluster-config-operator
// exports it for each hosted cluster: cluster_feature_set{name} (`name` is the feature set there, so the HCP is
// `namespace` and `hcp`), its value from api-types' clusterFeatureSetSample.
import type { Registry } from 'prom-client';
import { clusterFeatureSetSample, featureSetName } from '../api-types/index.js';
import { counter, gauge, histogram } from '../runtime/index.js';

export const SYNC_FAILURE_REASONS = ['MissingKubeconfig', 'GuestUnreachable', 'MissingRelease', 'MissingVersion', 'SpecRejected', 'GatesRefused', 'GuestInputRejected', 'WriteFailed', 'MemoryBudget'] as const;
export type SyncFailureReason = (typeof SYNC_FAILURE_REASONS)[number];

export interface HostedMetrics {
  synced(namespace: string, name: string, ok: boolean, reason?: SyncFailureReason): void;
  /**
   * What an owned HCP asks for and gets: its feature set as its spec says it ("" for Default: the HCP CRD's enum) and
   * its guest's Upgradeable (True or False; anything else Unknown).
   */
  described(namespace: string, name: string, featureSet: string, upgradeable: string): void;
  forget(namespace: string, name: string): void;
  /** A guest status write, `seconds` after the first input change it carries was observed. */
  statusDelay(seconds: number): void;
  /** The running-gate check of an owned HCP's guest: how many gates differ (undefined: it could not be read). */
  runningGates(namespace: string, name: string, mismatches: number | undefined): void;
}

export function hostedMetrics(registry: Registry | undefined): HostedMetrics {
  if (!registry) {
    return {
      synced: () => undefined,
      described: () => undefined,
      forget: () => undefined,
      statusDelay: () => undefined,
      runningGates: () => undefined,
    };
  }
  const syncs = counter(registry, 'featuregates_hosted_syncs_total', 'Reconciles of an HCP\'s controllers, by the HCP\'s state after each (success, or its first failure reason)', ['result']);
  const lastSuccess = gauge(registry, 'featuregates_hosted_guest_last_success_timestamp_seconds', 'When the guest of an owned HCP last synced without error', ['namespace', 'name']);
  const failing = gauge(registry, 'featuregates_hosted_guest_failing', '1 while the last sync of an owned HCP failed, by reason', ['namespace', 'name', 'reason']);
  // kube-state-metrics' _info shape: 1 per owned HCP; feature_set and upgradeable take a handful of values each.
  const info = gauge(registry, 'featuregates_hosted_guest_info', 'An owned HCP\'s feature set and its guest\'s Upgradeable condition (1 per HCP)',
    ['namespace', 'name', 'feature_set', 'upgradeable']);
  const clusterFeatureSet = gauge(registry, 'cluster_feature_set',
    'The feature set an owned hosted cluster is configured with: name is the featureSet of its HostedControlPlane ("" for Default); 1 for Default, 0 otherwise.',
    ['namespace', 'hcp', 'name']);
  const described = new Map<string, { feature_set: string; upgradeable: string; raw: string }>();
  const delay = histogram(registry, 'featuregates_hosted_guest_status_delay_seconds',
    'Time from an input change the coordinator observed (an HCP\'s feature set or release, a guest\'s ClusterVersion or FeatureGate) to the guest FeatureGate status write that carries it',
    [], [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]);
  const mismatching = gauge(registry, 'featuregates_hosted_guest_running_gate_mismatches',
    'Gates an owned HCP\'s guest kube-apiserver runs other than its FeatureGate status says (no series until checked, or while it cannot be read)', ['namespace', 'name']);
  for (const r of ['success', ...SYNC_FAILURE_REASONS]) syncs.inc({ result: r }, 0);
  const forgetDescription = (namespace: string, name: string, d: { feature_set: string; upgradeable: string; raw: string }) => {
    info.remove({ namespace, name, feature_set: d.feature_set, upgradeable: d.upgradeable });
    clusterFeatureSet.remove({ namespace, hcp: name, name: d.raw });
  };
  return {
    synced(namespace, name, ok, reason) {
      syncs.inc({ result: ok ? 'success' : reason ?? 'WriteFailed' });
      for (const r of SYNC_FAILURE_REASONS) failing.remove({ namespace, name, reason: r });
      if (ok) lastSuccess.set({ namespace, name }, Date.now() / 1000);
      else failing.set({ namespace, name, reason: reason ?? 'WriteFailed' }, 1);
    },
    described(namespace, name, featureSet, guestUpgradeable) {
      // The guest's admin writes that condition (the CRD does not restrict its status): only the two values that
      // mean something become a label value, anything else is Unknown.
      const upgradeable = guestUpgradeable === 'True' || guestUpgradeable === 'False' ? guestUpgradeable : 'Unknown';
      const key = `${namespace}/${name}`;
      const prior = described.get(key);
      if (prior?.raw === featureSet && prior.upgradeable === upgradeable) return;
      if (prior) forgetDescription(namespace, name, prior);
      const now = { feature_set: featureSetName(featureSet), upgradeable, raw: featureSet };
      described.set(key, now);
      info.set({ namespace, name, feature_set: now.feature_set, upgradeable }, 1);
      const sample = clusterFeatureSetSample(featureSet);
      clusterFeatureSet.set({ namespace, hcp: name, name: sample.name }, sample.value);
    },
    runningGates(namespace, name, mismatches) {
      if (mismatches === undefined) mismatching.remove({ namespace, name });
      else mismatching.set({ namespace, name }, mismatches);
    },
    statusDelay(seconds) {
      delay.observe({}, seconds);
    },
    forget(namespace, name) {
      const prior = described.get(`${namespace}/${name}`);
      if (prior) forgetDescription(namespace, name, prior);
      described.delete(`${namespace}/${name}`);
      mismatching.remove({ namespace, name });
      lastSuccess.remove({ namespace, name });
      for (const r of SYNC_FAILURE_REASONS) failing.remove({ namespace, name, reason: r });
    },
  };
}
