// What both long-running processes (the operator, a hosted replica) serve: /metrics and the z-pages (/statusz,
// /flagz) — HTTPS with the API server judging each request's token (TokenReview + SubjectAccessReview, as
// controller-runtime's secure serving), or plain HTTP on loopback — and /healthz, /readyz on their own port.
// One set of flags, one routine.
import type { Registry } from 'prom-client';
import { serveEndpoints, type ServingEndpoint } from './http-server.js';
import type { ClusterAccess } from '../rest/kube-config.js';
import { apiServerAuthorizer } from './metrics-auth.js';
import { collectDefaultMetrics } from '../metrics/prometheus.js';
import { servingCertificate } from './serving-cert.js';
import { ZPages, type ZPagesOptions } from './z-pages.js';
import { followTLSProfile, type TLSProfileSource } from './tls-profile.js';
import type { Logger } from '../log/logger.js';

export interface ServingOptions {
  /** Default ":8443" when secure, "127.0.0.1:8080" when not; "0" disables. */
  metricsBindAddress?: string;
  /** HTTPS + TokenReview/SubjectAccessReview on /metrics (default true), as controller-runtime's secure serving. */
  metricsSecure?: boolean;
  /** Serving certificate and key (PEM files) for secure metrics; default: a self-signed one made at start. */
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** Default ":8081"; "0" disables. */
  healthProbeBindAddress?: string;
  /** /statusz and /flagz beside /metrics: the component's name and flags (absent: not served). */
  zpages?: ZPagesOptions;
  /** The TLS profile of the secure endpoint: `cluster` (default) follows APIServer/cluster where it is served. */
  tlsSecurityProfile?: TLSProfileSource;
}

export interface Serving {
  /** Every endpoint served. */
  endpoints: ServingEndpoint[];
  /** Closes the endpoints and stops following the TLS profile. */
  stop(): Promise<void>;
  metricsAddress?: string;
  healthAddress?: string;
  secure: boolean;
}

/** Serves `registry` on /metrics and `ready` on /readyz; `certName` names a self-signed certificate. */
export async function serveProcess(
  o: ServingOptions,
  d: { kc: ClusterAccess; registry: Registry; certName: string; ready: () => boolean; logger: Logger },
): Promise<Serving> {
  const secure = o.metricsSecure ?? true;
  const endpoints: ServingEndpoint[] = [];
  const metrics = await serveEndpoints(o.metricsBindAddress ?? (secure ? ':8443' : '127.0.0.1:8080'), {
    registry: d.registry,
    health: false,
    ...(o.zpages ? { zpages: new ZPages(o.zpages) } : {}),
    ...(secure ? { tls: () => servingCertificate(o, d.certName), authorize: apiServerAuthorizer(d.kc, { metrics: d.registry }) } : {}),
  });
  if (metrics) {
    endpoints.push(metrics);
    // Process and runtime metrics only when someone can scrape them: the event-loop delay monitor behind
    // them wakes the process every EVENT_LOOP_MONITORING_MS.
    collectDefaultMetrics(d.registry);
  }
  // Health probes are plain HTTP (the kubelet's), so only the secure endpoint has a profile to follow.
  const profile = metrics?.setTLS
    ? followTLSProfile(d.kc, { setTLS: metrics.setTLS }, o.tlsSecurityProfile ?? 'cluster', d.logger)
    : undefined;
  const health = await serveEndpoints(o.healthProbeBindAddress ?? ':8081', { ready: d.ready });
  if (health) endpoints.push(health);
  const stop = async () => {
    await profile?.stop();
    await Promise.all(endpoints.map((e) => e.close()));
  };
  return {
    endpoints,
    secure,
    stop,
    ...(metrics ? { metricsAddress: metrics.address } : {}),
    ...(health ? { healthAddress: health.address } : {}),
  };
}
