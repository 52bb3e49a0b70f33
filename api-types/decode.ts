// Decoders for untrusted JSON: they return typed values or throw a DecodeError naming the field path,
// e.g. `status.history[3].version: expected string, got number`. Unknown fields are carried through.
import { API_VERSION } from './wire.js';
import type {
  ClusterOperator, ClusterOperatorStatusCondition, ClusterVersion, Condition, FeatureGate, FeatureGateAttributes,
  FeatureGateDetails, ObjectMeta, OperandVersion, ObjectReference, Release, UpdateHistory,
} from './wire.js';

export class DecodeError extends Error {
  constructor(readonly path: string, readonly problem: string) {
    super(`${path || '<root>'}: ${problem}`);
    this.name = 'DecodeError';
  }
}

type Obj = Record<string, unknown>;

export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

const join = (path: string, key: string | number) =>
  typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;

export function obj(v: unknown, path: string): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new DecodeError(path, `expected object, got ${describe(v)}`);
  return v as Obj;
}

export function str(v: unknown, path: string): string {
  if (typeof v !== 'string') throw new DecodeError(path, `expected string, got ${describe(v)}`);
  return v;
}

function optStr(o: Obj, key: string, path: string): string | undefined {
  return o[key] === undefined || o[key] === null ? undefined : str(o[key], join(path, key));
}

/** An optional list: absent and null decode to []. */
export function list<T>(v: unknown, path: string, item: (x: unknown, p: string) => T): T[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new DecodeError(path, `expected array, got ${describe(v)}`);
  return v.map((x, i) => item(x, join(path, i)));
}

function literal<T extends string>(v: unknown, path: string, allowed: readonly T[]): T {
  const s = str(v, path);
  if (!(allowed as readonly string[]).includes(s)) {
    throw new DecodeError(path, `expected one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}, got ${JSON.stringify(s)}`);
  }
  return s as T;
}

function meta(v: unknown, path: string): ObjectMeta {
  const o = v === undefined ? {} : obj(v, path);
  optStr(o, 'name', path);
  optStr(o, 'resourceVersion', path);
  if (o.annotations !== undefined && o.annotations !== null) {
    const a = obj(o.annotations, join(path, 'annotations'));
    for (const [k, val] of Object.entries(a)) str(val, join(join(path, 'annotations'), k));
  }
  return o as ObjectMeta;
}

function typeMeta(o: Obj, kind: string): void {
  if (o.apiVersion !== undefined && o.apiVersion !== API_VERSION) {
    throw new DecodeError('apiVersion', `expected "config.openshift.io/v1", got ${JSON.stringify(o.apiVersion)}`);
  }
  if (o.kind !== undefined && o.kind !== kind) throw new DecodeError('kind', `expected "${kind}", got ${JSON.stringify(o.kind)}`);
}

function attr(v: unknown, path: string): FeatureGateAttributes {
  const o = obj(v, path);
  return { name: str(o.name, join(path, 'name')) };
}

export function decodeFeatureGateDetails(v: unknown, path = ''): FeatureGateDetails {
  const o = obj(v, path);
  return {
    version: str(o.version, join(path, 'version')),
    enabled: list(o.enabled, join(path, 'enabled'), attr),
    disabled: list(o.disabled, join(path, 'disabled'), attr),
  };
}

/** What every condition has: its type, status and last transition (metav1.Condition and ClusterOperatorStatusCondition). */
function conditionCore(o: Record<string, unknown>, path: string): Pick<Condition, 'type' | 'status' | 'lastTransitionTime'> {
  return {
    type: str(o.type, join(path, 'type')),
    status: literal(o.status, join(path, 'status'), ['True', 'False', 'Unknown'] as const),
    lastTransitionTime: str(o.lastTransitionTime, join(path, 'lastTransitionTime')),
  };
}

function condition(v: unknown, path: string): Condition {
  const o = obj(v, path);
  const c: Condition = {
    ...conditionCore(o, path),
    reason: str(o.reason, join(path, 'reason')),
    message: str(o.message ?? '', join(path, 'message')),
  };
  if (typeof o.observedGeneration === 'number') c.observedGeneration = o.observedGeneration;
  return c;
}

function strings(v: unknown, path: string): string[] | undefined {
  return v === undefined || v === null ? undefined : list(v, path, str);
}

export function decodeFeatureGate(v: unknown): FeatureGate {
  const o = obj(v, '');
  typeMeta(o, 'FeatureGate');
  const spec = o.spec === undefined || o.spec === null ? {} : obj(o.spec, 'spec');
  const out: FeatureGate = {
    ...o,
    apiVersion: API_VERSION,
    kind: 'FeatureGate',
    metadata: meta(o.metadata, 'metadata'),
    spec: { ...spec },
  };
  if (spec.featureSet !== undefined && spec.featureSet !== null) out.spec.featureSet = str(spec.featureSet, 'spec.featureSet');
  if (spec.customNoUpgrade !== undefined && spec.customNoUpgrade !== null) {
    const c = obj(spec.customNoUpgrade, 'spec.customNoUpgrade');
    const enabled = strings(c.enabled, 'spec.customNoUpgrade.enabled');
    const disabled = strings(c.disabled, 'spec.customNoUpgrade.disabled');
    out.spec.customNoUpgrade = { ...(enabled ? { enabled } : {}), ...(disabled ? { disabled } : {}) };
  }
  if (o.status !== undefined && o.status !== null) {
    const s = obj(o.status, 'status');
    out.status = {
      ...s,
      featureGates: list(s.featureGates, 'status.featureGates', decodeFeatureGateDetails),
    };
    if (s.conditions !== undefined && s.conditions !== null) out.status.conditions = list(s.conditions, 'status.conditions', condition);
  }
  return out;
}

function history(v: unknown, path: string): UpdateHistory {
  const o = obj(v, path);
  const h: UpdateHistory = {
    ...o,
    state: str(o.state, join(path, 'state')),
    startedTime: str(o.startedTime, join(path, 'startedTime')),
    completionTime: o.completionTime === null || o.completionTime === undefined ? null : str(o.completionTime, join(path, 'completionTime')),
    version: o.version === undefined ? '' : str(o.version, join(path, 'version')),
    image: str(o.image, join(path, 'image')),
    verified: Boolean(o.verified),
  };
  if (o.verified !== undefined && typeof o.verified !== 'boolean') {
    throw new DecodeError(join(path, 'verified'), `expected boolean, got ${describe(o.verified)}`);
  }
  return h;
}

function release(v: unknown, path: string): Release {
  const o = obj(v, path);
  return { ...o, version: o.version === undefined ? '' : str(o.version, join(path, 'version')), image: str(o.image ?? '', join(path, 'image')) };
}

export function decodeClusterVersion(v: unknown): ClusterVersion {
  const o = obj(v, '');
  typeMeta(o, 'ClusterVersion');
  const spec = o.spec === undefined ? {} : obj(o.spec, 'spec');
  const out: ClusterVersion = {
    ...o,
    apiVersion: API_VERSION,
    kind: 'ClusterVersion',
    metadata: meta(o.metadata, 'metadata'),
    spec: { ...spec, clusterID: str(spec.clusterID ?? '', 'spec.clusterID') },
  };
  if (o.status !== undefined && o.status !== null) {
    const s = obj(o.status, 'status');
    out.status = { ...s, history: list(s.history, 'status.history', history) };
    if (s.desired !== undefined && s.desired !== null) out.status.desired = release(s.desired, 'status.desired');
  }
  return out;
}

function coCondition(v: unknown, path: string): ClusterOperatorStatusCondition {
  const o = obj(v, path);
  const c: ClusterOperatorStatusCondition = conditionCore(o, path);
  const reason = optStr(o, 'reason', path);
  const message = optStr(o, 'message', path);
  if (reason !== undefined) c.reason = reason;
  if (message !== undefined) c.message = message;
  return c;
}

function operand(v: unknown, path: string): OperandVersion {
  const o = obj(v, path);
  return { name: str(o.name, join(path, 'name')), version: str(o.version, join(path, 'version')) };
}

function related(v: unknown, path: string): ObjectReference {
  const o = obj(v, path);
  const r: ObjectReference = {
    group: str(o.group, join(path, 'group')), resource: str(o.resource, join(path, 'resource')), name: str(o.name, join(path, 'name')),
  };
  const ns = optStr(o, 'namespace', path);
  if (ns !== undefined) r.namespace = ns;
  return r;
}

export function decodeClusterOperator(v: unknown): ClusterOperator {
  const o = obj(v, '');
  typeMeta(o, 'ClusterOperator');
  const out: ClusterOperator = {
    ...o,
    apiVersion: API_VERSION,
    kind: 'ClusterOperator',
    metadata: meta(o.metadata, 'metadata'),
    spec: o.spec === undefined ? {} : obj(o.spec, 'spec'),
  };
  if (o.status !== undefined && o.status !== null) {
    const s = obj(o.status, 'status');
    out.status = {
      ...s,
      conditions: list(s.conditions, 'status.conditions', coCondition),
      versions: list(s.versions, 'status.versions', operand),
      relatedObjects: list(s.relatedObjects, 'status.relatedObjects', related),
    };
  }
  return out;
}
