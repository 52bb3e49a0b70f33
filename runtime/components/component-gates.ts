// Reading what a running component says about its feature gates, through the one transport: `/version` (the
// emulated version), `/metrics` streamed line by line keeping only `kubernetes_feature_enabled` (a busy API
// server's /metrics is megabytes), and `/flagz` as config.k8s.io/v1beta1 Flagz (its plain text is not meant
// to be parsed). For kube-apiserver these are non-resource URLs of the API itself (RBAC: get on /version,
// /metrics, /flagz); kube-controller-manager and kube-scheduler serve the same paths on their secure ports
// with delegated authentication and authorization, so the kubeconfig's credentials and the same RBAC reach
// them (componentAccess). And since when each Kubernetes gate exists, from the generated gate rules.
import type { RequestOptions } from 'node:https';
import {
  ETCD_COMPONENT,
  ETCD_FEATURE_GAUGE,
  emulationSample,
  featureEnabledSample,
  gateChecks,
  gateLifecycle,
  kubernetesGateRules,
  parseFeatureGatesFlag,
  type ComponentCheck,
  type DesiredGate,
  type GateLifecycle,
} from '../../api-types/index.js';
import { apiErrorMessage, statusCode } from '../rest/api-errors.js';
import type { ClusterAccess } from '../rest/kube-config.js';
import { KubeTransport } from '../rest/kube-transport.js';

/** `/metrics` is read to at most this much. */
const MAX_METRICS_BYTES = 64 * 1024 * 1024;
const FLAGZ_MEDIA_TYPE = 'application/json;as=Flagz;v=v1beta1;g=config.k8s.io';

export interface ComponentGates {
  /** `emulationMajor.emulationMinor` from /version, else from the `version_info` gauge (absent when neither says). */
  emulated?: { major: number; minor: number };
  /** The gauge: gate → enabled. */
  running: Map<string, boolean>;
  /** The requested `--feature-gates` from /flagz (undefined: /flagz not served or not readable). */
  requested?: Map<string, boolean>;
}

/** `forbidden: WHAT: …` for a 401 or 403, else `OTHERWISE: WHAT: …` (`unreachable` by default): why a component could not be read. */
export function readFailure(e: unknown, what: string, otherwise = 'unreachable'): string {
  const code = statusCode(e);
  return `${code === 401 || code === 403 ? 'forbidden' : otherwise}: ${what}: ${apiErrorMessage(e)}`;
}

/** Why a component could not be read: `forbidden: …` (401/403) or `unreachable: …`. */
export class ComponentReadError extends Error {
  override name = 'ComponentReadError';
}

/**
 * The gates a component runs with, as it reports them itself; with `keep`, only those gates are kept from the gauge
 * (a component's /metrics is whoever serves it — a hosted guest's may name millions of gates within its 64 MiB bound).
 */
export async function readComponentGates(kc: ClusterAccess, timeoutMs?: number, keep?: ReadonlySet<string>, basePath = ''): Promise<ComponentGates> {
  const t = KubeTransport.for(kc);
  const get = (
    path: string,
    extra: { accept?: string; onLine?: (line: string) => void; linePrefixes?: readonly string[]; maxBodyBytes?: number } = {},
  ) => t.request({ method: 'GET', path: `${basePath}${path}`, ...(timeoutMs ? { timeoutMs } : {}), ...extra });
  const running = new Map<string, boolean>();
  let gauged: { major: number; minor: number } | undefined;
  try {
    // Of a /metrics of megabytes only these two families' lines are decoded; the rest is skipped as bytes.
    await get('/metrics', { accept: 'text/plain', maxBodyBytes: MAX_METRICS_BYTES, linePrefixes: ['kubernetes_feature_enabled{', 'version_info{'], onLine: (line) => {
      if (line.startsWith('version_info{')) gauged = emulationSample(line) ?? gauged;
      if (!line.startsWith('kubernetes_feature_enabled{')) return;
      const s = featureEnabledSample(line);
      if (s && (!keep || keep.has(s.name))) running.set(s.name, s.enabled);
    } });
  } catch (e) {
    throw new ComponentReadError(readFailure(e, 'GET /metrics'));
  }
  const out: ComponentGates = { running };
  const version = await get('/version').catch(() => undefined) as { emulationMajor?: string; emulationMinor?: string } | undefined;
  const major = Number(version?.emulationMajor);
  const minor = Number(version?.emulationMinor);
  if (Number.isInteger(major) && Number.isInteger(minor) && version?.emulationMajor) out.emulated = { major, minor };
  else if (gauged) out.emulated = gauged;
  const flagz = await get('/flagz', { accept: FLAGZ_MEDIA_TYPE }).catch(() => undefined) as { flags?: Record<string, string> } | undefined;
  if (flagz?.flags) out.requested = parseFeatureGatesFlag(flagz.flags['feature-gates'] ?? '');
  return out;
}

/**
 * A component serving at `url` (https), reached with the kubeconfig's credentials as Prometheus scrapes it;
 * its serving certificate checked against `ca` (PEM) when given, else against the kubeconfig's CA. The
 * kubeconfig's tls-server-name names the API server, so it is not carried over.
 */
export function componentAccess(kc: ClusterAccess, url: string, ca?: Buffer): ClusterAccess {
  return {
    getCurrentCluster: () => ({ server: url }),
    async applyToHTTPSOptions(opts: RequestOptions): Promise<void> {
      await kc.applyToHTTPSOptions(opts);
      delete opts.servername;
      if (ca) {
        opts.ca = ca;
        opts.rejectUnauthorized = true;
      }
    },
  };
}

/**
 * One component (`access` reaches it, at `basePath` when it is reached through the API server's proxy: a node's
 * kubelet at /api/v1/nodes/NAME/proxy; kube-apiserver is the kubeconfig itself) checked against `desired`: one
 * verdict per gate, or the reason it could not be read (`featuregates verify`, `featuregates status` and
 * RunningGatesController all judge with this).
 */
export async function checkComponent(
  access: ClusterAccess,
  name: string,
  desired: readonly DesiredGate[],
  o: { lifecycle: () => GateLifecycle; overrides?: ReadonlyMap<string, boolean>; timeoutMs?: number; basePath?: string },
): Promise<ComponentCheck> {
  const url = `${access.getCurrentCluster()?.server ?? ''}${o.basePath ?? ''}`;
  try {
    // Only the desired gates are judged, so only they are kept from the gauge.
    const read = await readComponentGates(access, o.timeoutMs, new Set(desired.map((g) => g.name)), o.basePath);
    return {
      name,
      url,
      ...(read.emulated ? { emulatedVersion: `${read.emulated.major}.${read.emulated.minor}` } : {}),
      // The lifecycle is asked for only once there is something to judge with it (its file costs ~100 ms of CPU to parse).
      gates: gateChecks({
        desired,
        running: read.running,
        lifecycle: o.lifecycle(),
        ...(o.overrides ? { overrides: o.overrides } : {}),
        ...(read.requested ? { requested: read.requested } : {}),
        ...(read.emulated ? { emulated: read.emulated } : {}),
      }),
    };
  } catch (e) {
    if (!(e instanceof ComponentReadError)) throw e;
    return { name, url, error: e.message, gates: [] };
  }
}

/** etcd's client TLS (kube-apiserver's --etcd-cafile, --etcd-certfile, --etcd-keyfile): PEM contents. */
export interface EtcdClientTLS { ca?: Buffer; cert?: Buffer; key?: Buffer }

/**
 * etcd at `url`, reached with its own client certificate and nothing of the kubeconfig (its token is for the API
 * server, never for etcd); its serving certificate checked against `tls.ca` when given, else the system's CAs.
 */
export function etcdAccess(url: string, tls: EtcdClientTLS): ClusterAccess {
  return {
    getCurrentCluster: () => ({ server: url }),
    async applyToHTTPSOptions(opts: RequestOptions): Promise<void> {
      if (tls.ca) opts.ca = tls.ca;
      if (tls.cert) opts.cert = tls.cert;
      if (tls.key) opts.key = tls.key;
      opts.rejectUnauthorized = true;
    },
  };
}

/**
 * etcd's own gates, as its `/metrics` reports them (`etcd_server_feature_enabled{name,stage}`, etcd 3.6 on): all of
 * them as information, and a verdict for each gate `expected` declares (what etcd's `--feature-gates` was set to).
 */
export async function checkEtcd(
  access: ClusterAccess,
  expected: ReadonlyMap<string, boolean>,
  timeoutMs?: number,
): Promise<ComponentCheck> {
  const url = access.getCurrentCluster()?.server ?? '';
  const reported = new Map<string, { name: string; stage: string; enabled: boolean }>();
  try {
    await KubeTransport.for(access).request({
      method: 'GET',
      path: '/metrics',
      accept: 'text/plain',
      maxBodyBytes: MAX_METRICS_BYTES,
      linePrefixes: [`${ETCD_FEATURE_GAUGE}{`],
      ...(timeoutMs ? { timeoutMs } : {}),
      onLine: (line) => {
        const g = featureEnabledSample(line, ETCD_FEATURE_GAUGE);
        // A broken endpoint may repeat a name (the first series counts) or name endless gates (kept to a bound).
        if (g && !reported.has(g.name) && reported.size < MAX_ETCD_GATES) reported.set(g.name, g);
      },
    });
  } catch (e) {
    return { name: ETCD_COMPONENT, url, error: readFailure(e, 'GET /metrics'), gates: [] };
  }
  if (reported.size === 0) {
    return {
      name: ETCD_COMPONENT,
      url,
      error: `unreachable: GET /metrics: no ${ETCD_FEATURE_GAUGE} series (etcd before 3.6 does not report its gates)`,
      gates: [],
    };
  }
  const running = new Map([...reported.values()].map((g) => [g.name, g.enabled]));
  const desired = [...expected].map(([name, enabled]) => ({ name, enabled }));
  return {
    name: ETCD_COMPONENT,
    url,
    gates: gateChecks({ desired, running, lifecycle: new Map() }),
    reported: [...reported.values()].sort((a, b) => a.name.localeCompare(b.name)),
  };
}

/** etcd 3.6 has 9 gates; a /metrics naming more than this is not read further. */
const MAX_ETCD_GATES = 1000;

/** The Kubernetes release hack/envtest builds (the local control plane's kube-apiserver). */
const KUBERNETES_RELEASE = { major: 1, minor: 36 };
export const LOCAL_KUBERNETES_MINOR = `${KUBERNETES_RELEASE.major}.${KUBERNETES_RELEASE.minor}`;

/** Since when each gate exists, by the generated rules of that release (no file read, nothing parsed). */
export function kubernetesGateLifecycle(): GateLifecycle {
  return gateLifecycle(kubernetesGateRules(LOCAL_KUBERNETES_MINOR));
}
