// featuregate-coordinator/sdk/testing: a real local control plane for tests, and helpers.
export { startControlPlane, type ControlPlane, type ControlPlaneOptions } from '../../control-plane/control-plane.js';
export { resolveBinaries, packageRoot, type ControlPlaneBinaries } from '../../control-plane/binaries.js';
export { bundledCRDPaths, upstreamCRDPaths, openshiftAPIDir, openshiftAPIModuleDir } from '../../control-plane/crds.js';
export { setClusterVersion, upgrade, completeHead, setFeatureGateStatus, setFeatureGateSpec, historyEntry, type HistoryInput, type UpgradeInProgress } from '../../control-plane/fake-versions.js';
export type { VersionGates } from '../../api-types/index.js';
export { serviceAccountKubeConfig } from './service-account.js';
export { hypershiftCRDPaths, hypershiftAPIDir } from '../../control-plane/crds.js';
export {
  UNREACHABLE_GUEST_KUBECONFIG,
  ensureNamespace,
  hostedControlPlane,
  publishHostedControlPlane,
  putGuestKubeconfigSecret,
  setHostedFeatureGate,
  setHostedReleaseVersion,
  readFeatureGateConfigMap,
  type HostedControlPlaneInput,
} from './hosted-fleet.js';
