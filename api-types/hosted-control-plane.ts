// HyperShift's HostedControlPlane (hypershift.openshift.io/v1beta1), as far as feature gates need it:
// `spec.configuration.featureGate` (a FeatureGate spec; absent = Default), `status.kubeConfig` (the Secret
// holding the guest's admin kubeconfig) and `status.versionStatus` (HyperShift's copy of the guest's
// ClusterVersion desired + history). Everything else is carried through untouched. Also the two core/v1
// objects beside it: the kubeconfig Secret and the `feature-gate` ConfigMap.
import { DecodeError, describe, list, obj, str } from './decode.js';
import type { FeatureGateSpec, ObjectMeta } from './wire.js';

export const HYPERSHIFT_GROUP = 'hypershift.openshift.io';
export const HYPERSHIFT_VERSION = 'v1beta1';
export const HCP_API_VERSION = `${HYPERSHIFT_GROUP}/${HYPERSHIFT_VERSION}`;
/** The management-side ConfigMap control-plane components read their --feature-gates from. */
export const FEATURE_GATE_CONFIGMAP = 'feature-gate';
export const FEATURE_GATE_CONFIGMAP_KEY = 'feature-gate.yaml';
export const PAYLOAD_VERSION_ANNOTATION = 'hypershift.openshift.io/payload-version';

export interface SecretKeyRef {
  name: string;
  key: string;
}

export interface HostedControlPlane {
  apiVersion: typeof HCP_API_VERSION;
  kind: 'HostedControlPlane';
  metadata: ObjectMeta & { name: string; namespace: string };
  spec: { configuration?: { featureGate?: FeatureGateSpec } & Record<string, unknown> } & Record<string, unknown>;
  status?: {
    kubeConfig?: SecretKeyRef;
    versionStatus?: { desired?: { version?: string } & Record<string, unknown>; history?: { version: string; state: string }[] } & Record<
      string,
      unknown
    >;
  } & Record<string, unknown>;
}

export interface Secret {
  apiVersion?: 'v1';
  kind?: 'Secret';
  metadata: ObjectMeta;
  /** base64 values, as the API serves them. */
  data?: Record<string, string>;
}

export interface ConfigMap {
  apiVersion?: 'v1';
  kind?: 'ConfigMap';
  metadata: ObjectMeta;
  data?: Record<string, string>;
}

type Obj = Record<string, unknown>;
const opt = (o: Obj, k: string, path: string): Obj | undefined => (o[k] === undefined || o[k] === null ? undefined : obj(o[k], `${path}.${k}`));

function metadata(v: unknown, needNamespace: boolean): ObjectMeta & { name: string; namespace: string } {
  const m = obj(v, 'metadata');
  const name = str(m.name, 'metadata.name');
  const namespace = m.namespace === undefined && !needNamespace ? '' : str(m.namespace, 'metadata.namespace');
  return { ...m, name, namespace };
}

function stringMap(v: unknown, path: string): Record<string, string> | undefined {
  if (v === undefined || v === null) return undefined;
  const o = obj(v, path);
  for (const [k, x] of Object.entries(o)) str(x, `${path}.${k}`);
  return o as Record<string, string>;
}

export function decodeHostedControlPlane(v: unknown): HostedControlPlane {
  const o = obj(v, '');
  if (o.kind !== undefined && o.kind !== 'HostedControlPlane') throw new DecodeError('kind', `expected "HostedControlPlane", got ${JSON.stringify(o.kind)}`);
  const spec = o.spec === undefined || o.spec === null ? {} : obj(o.spec, 'spec');
  const configuration = opt(spec, 'configuration', 'spec');
  const fg = configuration && opt(configuration, 'featureGate', 'spec.configuration');
  const out: HostedControlPlane = {
    ...o,
    apiVersion: HCP_API_VERSION,
    kind: 'HostedControlPlane',
    metadata: metadata(o.metadata, true),
    spec: {
      ...spec,
      ...(configuration ? { configuration: { ...configuration, ...(fg ? { featureGate: featureGateSpec(fg) } : {}) } } : {}),
    },
  };
  if (o.status !== undefined && o.status !== null) {
    const s = obj(o.status, 'status');
    const kc = opt(s, 'kubeConfig', 'status');
    const vs = opt(s, 'versionStatus', 'status');
    const desired = vs && opt(vs, 'desired', 'status.versionStatus');
    out.status = {
      ...s,
      ...(kc ? { kubeConfig: { name: str(kc.name, 'status.kubeConfig.name'), key: str(kc.key, 'status.kubeConfig.key') } } : {}),
      ...(vs ? {
        versionStatus: {
          ...vs,
          ...(desired ? { desired: { ...desired, ...(desired.version !== undefined ? { version: str(desired.version, 'status.versionStatus.desired.version') } : {}) } } : {}),
          history: list(vs.history, 'status.versionStatus.history', (h, p) => {
            const e = obj(h, p);
            return { ...e, version: e.version === undefined ? '' : str(e.version, `${p}.version`), state: str(e.state ?? '', `${p}.state`) };
          }),
        },
      } : {}),
    };
  }
  return out;
}

function featureGateSpec(o: Obj): FeatureGateSpec {
  const out: FeatureGateSpec = { ...o };
  if (o.featureSet !== undefined && o.featureSet !== null) out.featureSet = str(o.featureSet, 'spec.configuration.featureGate.featureSet');
  else delete out.featureSet;
  const c = opt(o, 'customNoUpgrade', 'spec.configuration.featureGate');
  if (c) {
    const names = (k: 'enabled' | 'disabled') => (c[k] === undefined || c[k] === null ? undefined
      : list(c[k], `spec.configuration.featureGate.customNoUpgrade.${k}`, str));
    const enabled = names('enabled');
    const disabled = names('disabled');
    out.customNoUpgrade = { ...(enabled ? { enabled } : {}), ...(disabled ? { disabled } : {}) };
  } else delete out.customNoUpgrade;
  return out;
}

export function decodeSecret(v: unknown): Secret {
  const o = obj(v, '');
  if (o.kind !== undefined && o.kind !== 'Secret') throw new DecodeError('kind', `expected "Secret", got ${describe(o.kind)}`);
  const data = stringMap(o.data, 'data');
  return { ...o, metadata: metadata(o.metadata, false), ...(data ? { data } : {}) };
}

export function decodeConfigMap(v: unknown): ConfigMap {
  const o = obj(v, '');
  if (o.kind !== undefined && o.kind !== 'ConfigMap') throw new DecodeError('kind', `expected "ConfigMap", got ${describe(o.kind)}`);
  const data = stringMap(o.data, 'data');
  return { ...o, metadata: metadata(o.metadata, false), ...(data ? { data } : {}) };
}

export interface Namespace {
  apiVersion?: 'v1';
  kind?: 'Namespace';
  metadata: ObjectMeta;
}

export function decodeNamespace(v: unknown): Namespace {
  const o = obj(v, '');
  return { ...o, metadata: metadata(o.metadata, false) };
}

/** `namespace/name`, the key of an HCP everywhere (queues, shards, status records). */
export function hcpKey(hcp: Pick<HostedControlPlane, 'metadata'>): string {
  return `${hcp.metadata.namespace}/${hcp.metadata.name}`;
}

/** The namespace of an HCP's key (hcpKey's `namespace/name`). */
export function hcpNamespace(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? key : key.slice(0, slash);
}

/** The FeatureGate spec the guest must have: the HCP's, absent = Default (`{}`). */
export function hostedFeatureGateSpec(hcp: HostedControlPlane): FeatureGateSpec {
  return hcp.spec.configuration?.featureGate ?? {};
}

/**
 * The fields the coordinator reads, and nothing else: every replica caches every HCP of the management
 * cluster, and a real HostedControlPlane is tens of kilobytes (platform, networking, services, conditions).
 * Never write such a summary back: it is not the object.
 */
export function summarizeHostedControlPlane(hcp: HostedControlPlane): HostedControlPlane {
  const { name, namespace, uid, resourceVersion, generation } = hcp.metadata;
  const fg = hcp.spec.configuration?.featureGate;
  const s = hcp.status;
  const desired = s?.versionStatus?.desired?.version;
  const release = controlPlaneVersion(hcp);
  return {
    apiVersion: HCP_API_VERSION,
    kind: 'HostedControlPlane',
    metadata: {
      name,
      namespace,
      ...(uid ? { uid } : {}),
      ...(resourceVersion ? { resourceVersion } : {}),
      ...(generation !== undefined ? { generation } : {}),
    },
    spec: fg ? { configuration: { featureGate: fg } } : {},
    ...(s
      ? {
          status: {
            ...(s.kubeConfig ? { kubeConfig: s.kubeConfig } : {}),
            ...(desired !== undefined ? { versionStatus: { desired: { version: desired } } } : {}),
            ...(typeof s.version === 'string' ? { version: s.version } : {}),
            ...(release !== undefined ? { controlPlaneVersion: { desired: { version: release } } } : {}),
          },
        }
      : {}),
  };
}

/** status.controlPlaneVersion.desired.version, when it is a string. */
function controlPlaneVersion(hcp: HostedControlPlane): string | undefined {
  const cpv = hcp.status?.controlPlaneVersion as { desired?: { version?: unknown } } | undefined;
  const v = cpv?.desired?.version;
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** Who decides an HCP's release version, as hcpReleaseVersion found it. */
export type ReleaseVersionSource = 'status.controlPlaneVersion.desired.version' | 'status.version' | 'status.versionStatus.desired.version';

/**
 * The release an HCP's control plane runs, from the management side: what the management-side outputs (the
 * `feature-gate` ConfigMap the HCP's kube-apiserver, KCM, scheduler and OpenShift API servers read) are
 * rendered for — never the guest's own ClusterVersion, which the guest's admin can write.
 *  1. `status.controlPlaneVersion.desired.version` — HyperShift's control-plane operator derives it from the
 *     HCP's release image (as its feature-gate render takes PAYLOAD_VERSION from the release image);
 *  2. `status.version` — the release the control-plane operator applied (deprecated, older HyperShift);
 *  3. only when neither exists: `status.versionStatus.desired.version` — HyperShift's hosted-cluster-config
 *     operator copies it from the guest's ClusterVersion, so it is guest-influenced (with a lag); it is still a
 *     version the HCP itself names, and the threat model in docs/hosted.md says what it can reach.
 */
export function hcpReleaseVersion(hcp: HostedControlPlane): { version: string; source: ReleaseVersionSource } | undefined {
  const release = controlPlaneVersion(hcp);
  if (release) return { version: release, source: 'status.controlPlaneVersion.desired.version' };
  const applied = hcp.status?.version;
  if (typeof applied === 'string' && applied !== '') return { version: applied, source: 'status.version' };
  const copied = hcp.status?.versionStatus?.desired?.version;
  if (copied) return { version: copied, source: 'status.versionStatus.desired.version' };
  return undefined;
}
