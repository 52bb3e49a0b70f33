// The serving endpoint follows the cluster's TLS security profile (api-types/tls-profile.ts resolves it): a
// Reflector on `APIServer/cluster` re-applies the profile to the endpoint's TLS server on every change — new
// connections get it at once, no restart (Node's setSecureContext) — or a profile fixed by a flag on clusters
// without that API. Cipher and group names this Node.js build does not know are dropped and said once per change.
import { createSecureContext, getCiphers, type SecureContextOptions } from 'node:tls';
import { resolveTLSProfile, type APIServer, type ResolvedTLSProfile, type TLSProfileType } from '../../api-types/index.js';
import { statusCode } from '../rest/api-errors.js';
import type { ClusterAccess } from '../rest/kube-config.js';
import { KubeTransport } from '../rest/kube-transport.js';
import type { Logger } from '../log/logger.js';
import { Reflector } from '../cache/reflector.js';
import { ResourceClient } from '../rest/resource-client.js';
import { APIServerResource } from '../rest/resources.js';

const NODE_VERSION: Record<ResolvedTLSProfile['minTLSVersion'], SecureContextOptions['minVersion']> = {
  VersionTLS10: 'TLSv1', VersionTLS11: 'TLSv1.1', VersionTLS12: 'TLSv1.2', VersionTLS13: 'TLSv1.3',
};
/** The profiles' group names as OpenSSL takes them (the IANA names are OpenSSL's too, except the NIST curves). */
const OPENSSL_GROUP: Record<string, string> = { secp256r1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };

/** `--tls-security-profile`: follow APIServer/cluster where it is served, or one profile. */
export type TLSProfileSource = 'cluster' | Exclude<TLSProfileType, 'Custom'>;
export const TLS_PROFILE_SOURCES: readonly TLSProfileSource[] = ['cluster', 'Old', 'Intermediate', 'Modern'];

/** The TLS options of a resolved profile, and what of it this Node.js cannot do. */
export function nodeTLSOptions(p: ResolvedTLSProfile): { options: SecureContextOptions; dropped: string[] } {
  const known = new Set(getCiphers());
  const dropped: string[] = [];
  const ciphers = p.ciphers.filter((c) => known.has(c.toLowerCase()) || (dropped.push(c), false));
  const groups = (p.groups ?? []).map((g) => OPENSSL_GROUP[g] ?? g).filter((g) => {
    try {
      createSecureContext({ ecdhCurve: g });
      return true;
    } catch {
      dropped.push(g);
      return false;
    }
  });
  const minVersion = NODE_VERSION[p.minTLSVersion];
  // OpenSSL 3 refuses TLS 1.0 and 1.1 (and SHA-1 signatures) at its default security level: the Old profile asks for them.
  const seclevel = minVersion === 'TLSv1' || minVersion === 'TLSv1.1' ? ':@SECLEVEL=0' : '';
  return { options: { minVersion, ciphers: `${ciphers.join(':')}${seclevel}`, ...(groups.length ? { ecdhCurve: groups.join(':') } : {}) }, dropped };
}

/** Where the profile is applied: an endpoint's TLS server. */
export interface TLSProfileTarget { setTLS(options: SecureContextOptions): void }

/** Whether the cluster serves config.openshift.io/v1 apiservers (OpenShift, or a cluster with its CRD). */
async function servesAPIServers(kc: ClusterAccess): Promise<boolean> {
  const r = await KubeTransport.for(kc).request({ method: 'GET', path: `/apis/${APIServerResource.group}/${APIServerResource.version}` })
    .catch((e: unknown) => { if (statusCode(e) === 404) return undefined; throw e; }) as { resources?: { name?: string }[] } | undefined;
  return !!r?.resources?.some((x) => x.name === APIServerResource.plural);
}

/**
 * Applies the profile `source` says to `target` now (Intermediate until APIServer/cluster is read) and, for
 * `cluster` where the API is served, at every change of APIServer/cluster; `stop()` ends the watch.
 */
export function followTLSProfile(
  kc: ClusterAccess,
  target: TLSProfileTarget,
  source: TLSProfileSource,
  log: Logger,
): { stop(): Promise<void> } {
  let applied = '';
  const apply = (p: ResolvedTLSProfile, from: string) => {
    const { options, dropped } = nodeTLSOptions(p);
    const key = JSON.stringify(options);
    if (key === applied) return;
    applied = key;
    target.setTLS(options);
    log.info('serving TLS profile applied', {
      profile: p.name,
      from,
      minVersion: options.minVersion,
      ciphers: options.ciphers,
      groups: options.ecdhCurve ?? 'default',
      adherence: p.adherence,
    });
    for (const w of p.warnings) log.info('TLS profile: not as written', { from, warning: w });
    if (dropped.length) log.info('TLS profile: names this Node.js does not know are left out', { from, dropped });
  };
  if (source !== 'cluster') {
    apply(resolveTLSProfile(undefined, source), '--tls-security-profile');
    return { stop: async () => undefined };
  }
  apply(resolveTLSProfile(undefined), 'default (APIServer/cluster not read yet)');
  let stopped = false;
  let apiservers: Reflector<APIServer> | undefined;
  // Serving does not wait for the API server: the default profile holds until APIServer/cluster is read.
  const started = (async () => {
    // A discovery that fails (not a 404) is taken as served: the watch then retries with its backoff.
    if (!(await servesAPIServers(kc).catch(() => true))) {
      log.info('APIServer/cluster is not served on this cluster: the Intermediate profile (--tls-security-profile fixes another)');
      return;
    }
    if (stopped) return;
    const r = new Reflector<APIServer>(new ResourceClient(kc, APIServerResource), { name: 'cluster', logger: log });
    r.addListener(() => apply(resolveTLSProfile(r.get('cluster')?.spec), 'APIServer/cluster'));
    r.start();
    apiservers = r;
  })();
  return {
    async stop() {
      stopped = true;
      await started;
      await apiservers?.stop();
    },
  };
}
