// Wire types of the config.openshift.io/v1 objects this project reads and writes. Field names and
// shapes follow openshift/api exactly; only the fields we use are typed, the rest is carried through.

/** The API group, version and apiVersion of FeatureGate, ClusterVersion and ClusterOperator. */
export const GROUP = 'config.openshift.io';
export const VERSION = 'v1';
export const API_VERSION = 'config.openshift.io/v1';

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  resourceVersion?: string;
  generation?: number;
  uid?: string;
  creationTimestamp?: string | null;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [key: string]: unknown;
}

export interface FeatureGateAttributes {
  name: string;
}

/** The gates of one payload version. */
export interface FeatureGateDetails {
  version: string;
  enabled: FeatureGateAttributes[];
  disabled: FeatureGateAttributes[];
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime: string;
  reason: string;
  message: string;
  observedGeneration?: number;
}

export interface CustomFeatureGates {
  enabled?: string[];
  disabled?: string[];
}

export interface FeatureGateSpec {
  featureSet?: string;
  customNoUpgrade?: CustomFeatureGates | null;
}

export interface FeatureGateStatus {
  conditions?: Condition[];
  featureGates: FeatureGateDetails[];
}

export interface FeatureGate {
  apiVersion: typeof API_VERSION;
  kind: 'FeatureGate';
  metadata: ObjectMeta;
  spec: FeatureGateSpec;
  status?: FeatureGateStatus;
}

export interface UpdateHistory {
  state: string;
  startedTime: string;
  completionTime: string | null;
  version: string;
  image: string;
  verified: boolean;
  acceptedRisks?: string;
}

export interface Release {
  version: string;
  image: string;
  url?: string;
  channels?: string[];
  architecture?: string;
}

export interface ClusterVersionStatus {
  desired?: Release;
  /** Newest first. */
  history: UpdateHistory[];
  [key: string]: unknown;
}

export interface ClusterVersion {
  apiVersion: typeof API_VERSION;
  kind: 'ClusterVersion';
  metadata: ObjectMeta;
  spec: { clusterID: string; [key: string]: unknown };
  status?: ClusterVersionStatus;
}

export interface ClusterOperatorStatusCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime: string;
  reason?: string;
  message?: string;
}

export interface OperandVersion {
  name: string;
  version: string;
}

export interface ObjectReference {
  group: string;
  resource: string;
  namespace?: string;
  name: string;
}

export interface ClusterOperatorStatus {
  conditions?: ClusterOperatorStatusCondition[];
  versions?: OperandVersion[];
  relatedObjects?: ObjectReference[];
  extension?: unknown;
}

export interface ClusterOperator {
  apiVersion: typeof API_VERSION;
  kind: 'ClusterOperator';
  metadata: ObjectMeta;
  spec: Record<string, unknown>;
  status?: ClusterOperatorStatus;
}

/** metav1.Time on the wire: RFC 3339 in UTC, whole seconds. */
export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d+Z$/, 'Z');
}

export const FEATURE_GATE_NAME = 'cluster';
export const CLUSTER_VERSION_NAME = 'version';
/** The ClusterOperator the config operator reports to (upstream's name; every mode writes this one by default). */
export const CONFIG_OPERATOR_NAME = 'config-operator';

/** coordination.k8s.io/v1 Lease: what leader election and the shard manager read and write. */
export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec?: LeaseSpec;
}

/** core/v1 Event, as the event recorder writes it (the fields it sets). */
export interface CoreEvent {
  apiVersion?: 'v1';
  kind?: 'Event';
  metadata: { name?: string; namespace?: string; resourceVersion?: string };
  involvedObject?: { apiVersion?: string; kind?: string; name?: string; namespace?: string; uid?: string };
  related?: { apiVersion?: string; kind?: string; name?: string; namespace?: string; uid?: string };
  type?: string;
  reason?: string;
  message?: string;
  source?: { component?: string };
  reportingComponent?: string;
  reportingInstance?: string;
  firstTimestamp?: string;
  lastTimestamp?: string;
  count?: number;
}

/** authentication.k8s.io/v1 TokenReview (created, never stored: the answer is its status). */
export interface TokenReview {
  apiVersion?: 'authentication.k8s.io/v1';
  kind?: 'TokenReview';
  metadata: { name?: string; resourceVersion?: string };
  spec: { token: string };
  status?: {
    authenticated?: boolean;
    user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
    error?: string;
  };
}

/** authorization.k8s.io/v1 SubjectAccessReview of a non-resource URL (created, never stored). */
export interface SubjectAccessReview {
  apiVersion?: 'authorization.k8s.io/v1';
  kind?: 'SubjectAccessReview';
  metadata: { name?: string; resourceVersion?: string };
  spec: {
    user: string;
    uid?: string;
    groups: string[];
    extra?: Record<string, string[]>;
    nonResourceAttributes: { path: string; verb: string };
  };
  status?: { allowed?: boolean; reason?: string };
}
