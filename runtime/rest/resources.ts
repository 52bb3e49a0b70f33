// The config.openshift.io/v1 resources this project uses (named …Resource so they never clash with
// the SDK's FeatureGates class).
// The api-types modules it reads one by one, not the barrel: the SDK loads this file, and a component importing the
// SDK should not evaluate the gate rules, the payload registry or preflight (docs/benchmarks.md, issue 70).
import type {
  NodeSummary, APIServer, Namespace, ClusterOperator, ClusterVersion, ConfigMap, FeatureGate, HostedControlPlane, CoreEvent, Lease, Secret,
  SubjectAccessReview, TokenReview,
} from '../../api-types/index.js';
import { GROUP, VERSION } from '../../api-types/wire.js';
import { decodeClusterOperator, decodeClusterVersion, decodeFeatureGate } from '../../api-types/decode.js';
import { HYPERSHIFT_GROUP, HYPERSHIFT_VERSION, decodeConfigMap, decodeHostedControlPlane, decodeNamespace, decodeSecret, summarizeHostedControlPlane } from '../../api-types/hosted-control-plane.js';
import { decodeAPIServer } from '../../api-types/tls-profile.js';
import { decodeNodeSummary } from '../../api-types/node-kubelets.js';
import { summarizeGuestClusterVersion } from '../../api-types/guest-cluster-version.js';
import type { ResourceDescriptor } from './resource-client.js';

const G = { group: GROUP, version: VERSION, namespaced: false };
export const FeatureGateResource: ResourceDescriptor<FeatureGate> = { ...G, plural: 'featuregates', kind: 'FeatureGate', decode: decodeFeatureGate };
export const APIServerResource: ResourceDescriptor<APIServer> = { ...G, plural: 'apiservers', kind: 'APIServer', decode: decodeAPIServer };
export const ClusterVersionResource: ResourceDescriptor<ClusterVersion> = { ...G, plural: 'clusterversions', kind: 'ClusterVersion', decode: decodeClusterVersion };
/**
 * A hosted guest's ClusterVersion, decoded to what the coordinator reads (summarizeGuestClusterVersion): for its cache; never written back.
 */
export const GuestClusterVersionResource: ResourceDescriptor<ClusterVersion> = {
  ...ClusterVersionResource,
  decode: (v) => summarizeGuestClusterVersion(decodeClusterVersion(v)),
};
export const ClusterOperatorResource: ResourceDescriptor<ClusterOperator> = { ...G, plural: 'clusteroperators', kind: 'ClusterOperator', decode: decodeClusterOperator };

// Hosted mode: HyperShift's HostedControlPlane and the core/v1 objects beside it.
export const HostedControlPlaneResource: ResourceDescriptor<HostedControlPlane> = {
  group: HYPERSHIFT_GROUP, version: HYPERSHIFT_VERSION, plural: 'hostedcontrolplanes', kind: 'HostedControlPlane', namespaced: true, decode: decodeHostedControlPlane,
};
/** The same, decoded to what the coordinator reads (summarizeHostedControlPlane): for its cache; never written back. */
export const HostedControlPlaneSummaryResource: ResourceDescriptor<HostedControlPlane> = {
  ...HostedControlPlaneResource, decode: (v) => summarizeHostedControlPlane(decodeHostedControlPlane(v)),
};
export const SecretResource: ResourceDescriptor<Secret> = { group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true, decode: decodeSecret };
export const ConfigMapResource: ResourceDescriptor<ConfigMap> = { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true, decode: decodeConfigMap };
/** Nodes, decoded to what `verify` reads of them (name, Ready, kubelet version). */
export const NodeResource: ResourceDescriptor<NodeSummary & { metadata: { name: string } }> = {
  group: '', version: 'v1', plural: 'nodes', kind: 'Node', namespaced: false, decode: (v) => { const n = decodeNodeSummary(v); return { ...n, metadata: { name: n.name } }; },
};
export const NamespaceResource: ResourceDescriptor<Namespace> = { group: '', version: 'v1', plural: 'namespaces', kind: 'Namespace', namespaced: false, decode: decodeNamespace };
export const LeaseResource: ResourceDescriptor<Lease> = {
  group: 'coordination.k8s.io', version: 'v1', plural: 'leases', kind: 'Lease', namespaced: true, decode: (v) => v as Lease,
};
/** Core Events, written by the event recorder (decoded loosely: only read back by tests and the chaos suite). */
export const EventResource: ResourceDescriptor<CoreEvent> = { group: '', version: 'v1', plural: 'events', kind: 'Event', namespaced: true, decode: (v) => v as CoreEvent };
export const TokenReviewResource: ResourceDescriptor<TokenReview> = {
  group: 'authentication.k8s.io', version: 'v1', plural: 'tokenreviews', kind: 'TokenReview', namespaced: false, decode: (v) => v as TokenReview,
};
export const SubjectAccessReviewResource: ResourceDescriptor<SubjectAccessReview> = {
  group: 'authorization.k8s.io', version: 'v1', plural: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false, decode: (v) => v as SubjectAccessReview,
};
