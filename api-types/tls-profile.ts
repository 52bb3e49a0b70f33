// The cluster's TLS security profile: `APIServer/cluster` spec.tlsSecurityProfile (openshift/api config/v1
// types_tlssecurityprofile.go) and spec.tlsAdherence, resolved to what a serving endpoint needs — a minimum
// TLS version, the cipher suites (OpenSSL names, which the profiles use and Node.js takes) and the key
// exchange groups. Pure: the runtime applies it (runtime/serving/tls-profile.ts).
//
// Profiles as openshift/api defines them (Mozilla's Server Side TLS 5.8): Old (TLS 1.0), Intermediate (TLS 1.2,
// OpenShift's default when no profile is set), Modern (TLS 1.3), Custom (the user's minimum and ciphers; its
// groups only in the TLSAdherence-gated API). TLS 1.3's own suites are always on once TLS 1.3 is negotiated.
import { DecodeError, describe, list, obj, str } from './decode.js';

export type TLSProfileType = 'Old' | 'Intermediate' | 'Modern' | 'Custom';
export type TLSVersionName = 'VersionTLS10' | 'VersionTLS11' | 'VersionTLS12' | 'VersionTLS13';
export type TLSAdherence = 'LegacyAdheringComponentsOnly' | 'StrictAllComponents';

export interface TLSProfileSpec { ciphers?: string[]; minTLSVersion?: string; groups?: string[] }
export interface TLSSecurityProfile {
  type?: string;
  old?: object | null;
  intermediate?: object | null;
  modern?: object | null;
  custom?: TLSProfileSpec | null;
}

/** The fields of `APIServer/cluster` (config.openshift.io/v1) this project reads, and nothing else. */
export interface APIServer {
  metadata: { name?: string; resourceVersion?: string };
  spec: { tlsSecurityProfile?: TLSSecurityProfile; tlsAdherence?: string };
}

const TLS13_SUITES = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];
const INTERMEDIATE_CIPHERS = [...TLS13_SUITES, 'ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-RSA-AES128-GCM-SHA256', 'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384', 'ECDHE-ECDSA-CHACHA20-POLY1305', 'ECDHE-RSA-CHACHA20-POLY1305'];
export const TLS_PROFILES: Record<Exclude<TLSProfileType, 'Custom'>, { minTLSVersion: TLSVersionName; ciphers: readonly string[] }> = {
  Old: { minTLSVersion: 'VersionTLS10', ciphers: [...INTERMEDIATE_CIPHERS, 'ECDHE-ECDSA-AES128-SHA256', 'ECDHE-RSA-AES128-SHA256',
    'ECDHE-ECDSA-AES128-SHA', 'ECDHE-RSA-AES128-SHA', 'ECDHE-ECDSA-AES256-SHA384', 'ECDHE-RSA-AES256-SHA384', 'ECDHE-ECDSA-AES256-SHA',
    'ECDHE-RSA-AES256-SHA', 'AES128-GCM-SHA256', 'AES256-GCM-SHA384', 'AES128-SHA256', 'AES256-SHA256', 'AES128-SHA', 'AES256-SHA', 'DES-CBC3-SHA'] },
  Intermediate: { minTLSVersion: 'VersionTLS12', ciphers: INTERMEDIATE_CIPHERS },
  Modern: { minTLSVersion: 'VersionTLS13', ciphers: TLS13_SUITES },
};
/** The groups of every predefined profile, most preferred first (a Custom profile without groups gets the library's). */
export const TLS_PROFILE_GROUPS = ['X25519MLKEM768', 'X25519', 'secp256r1', 'secp384r1'] as const;
const VERSIONS: readonly TLSVersionName[] = ['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13'];

/** What an endpoint serves with, and where it came from. */
export interface ResolvedTLSProfile {
  /** `Intermediate`, or `Intermediate (APIServer/cluster)`: what the logs and docs say. */
  name: TLSProfileType;
  minTLSVersion: TLSVersionName;
  /** OpenSSL names, TLS 1.3 suites first; at least those of TLS 1.3. */
  ciphers: string[];
  /** Absent: the TLS library's own. */
  groups?: string[];
  adherence: TLSAdherence;
  /** What was not taken as written (an unknown adherence, a Custom profile missing its fields, …). */
  warnings: string[];
}

/** `APIServer/cluster` from untrusted JSON: only the two fields, each checked for its JSON type. */
export function decodeAPIServer(v: unknown): APIServer {
  const o = obj(v, '');
  if (o.kind !== undefined && o.kind !== 'APIServer') throw new DecodeError('kind', `expected "APIServer", got ${describe(o.kind)}`);
  const m = obj(o.metadata ?? {}, 'metadata');
  const spec = obj(o.spec ?? {}, 'spec');
  const out: APIServer = {
    metadata: { ...(typeof m.name === 'string' ? { name: m.name } : {}), ...(typeof m.resourceVersion === 'string' ? { resourceVersion: m.resourceVersion } : {}) },
    spec: {},
  };
  if (spec.tlsAdherence !== undefined && spec.tlsAdherence !== null) out.spec.tlsAdherence = str(spec.tlsAdherence, 'spec.tlsAdherence');
  if (spec.tlsSecurityProfile !== undefined && spec.tlsSecurityProfile !== null) {
    const p = obj(spec.tlsSecurityProfile, 'spec.tlsSecurityProfile');
    const profile: TLSSecurityProfile = {};
    if (p.type !== undefined && p.type !== null) profile.type = str(p.type, 'spec.tlsSecurityProfile.type');
    if (p.custom !== undefined && p.custom !== null) {
      const c = obj(p.custom, 'spec.tlsSecurityProfile.custom');
      profile.custom = {
        ...(c.ciphers != null ? { ciphers: list(c.ciphers, 'spec.tlsSecurityProfile.custom.ciphers', str) } : {}),
        ...(c.minTLSVersion != null ? { minTLSVersion: str(c.minTLSVersion, 'spec.tlsSecurityProfile.custom.minTLSVersion') } : {}),
        ...(c.groups != null ? { groups: list(c.groups, 'spec.tlsSecurityProfile.custom.groups', str) } : {}),
      };
    }
    out.spec.tlsSecurityProfile = profile;
  }
  return out;
}

/** tlsAdherence as components must read it: absent is the default (legacy), an unknown value strict, with a warning. */
export function tlsAdherence(value: string | undefined, warnings: string[]): TLSAdherence {
  if (value === undefined || value === '' || value === 'LegacyAdheringComponentsOnly') return 'LegacyAdheringComponentsOnly';
  if (value !== 'StrictAllComponents') warnings.push(`tlsAdherence ${JSON.stringify(value)} is unknown: treated as StrictAllComponents`);
  return 'StrictAllComponents';
}

/**
 * The profile an endpoint serves with: `fixed` (a flag on a cluster without APIServer/cluster) or the cluster's
 * spec. An absent or unknown type is Intermediate (OpenShift's default); a Custom profile without `custom` is
 * Intermediate, one without a known minimum takes Intermediate's, one whose ciphers are only TLS 1.3's (or
 * none) keeps TLS 1.3's suites.
 */
export function resolveTLSProfile(spec: APIServer['spec'] | undefined, fixed?: Exclude<TLSProfileType, 'Custom'>): ResolvedTLSProfile {
  const warnings: string[] = [];
  const adherence = tlsAdherence(spec?.tlsAdherence, warnings);
  const predefined = (name: Exclude<TLSProfileType, 'Custom'>): ResolvedTLSProfile => ({
    name,
    minTLSVersion: TLS_PROFILES[name].minTLSVersion,
    ciphers: [...TLS_PROFILES[name].ciphers],
    groups: [...TLS_PROFILE_GROUPS],
    adherence,
    warnings,
  });
  if (fixed) return predefined(fixed);
  const p = spec?.tlsSecurityProfile;
  const type = p?.type ?? '';
  if (type === 'Old' || type === 'Intermediate' || type === 'Modern') return predefined(type);
  if (type !== 'Custom') {
    if (type !== '') warnings.push(`tlsSecurityProfile type ${JSON.stringify(type)} is unknown: Intermediate`);
    return predefined('Intermediate');
  }
  const c = p?.custom;
  if (!c) {
    warnings.push('tlsSecurityProfile type Custom without custom: Intermediate');
    return predefined('Intermediate');
  }
  let minTLSVersion = c.minTLSVersion as TLSVersionName | undefined;
  if (!minTLSVersion || !VERSIONS.includes(minTLSVersion)) {
    warnings.push(`custom minTLSVersion ${JSON.stringify(c.minTLSVersion ?? '')} is not one of ${VERSIONS.join(', ')}: VersionTLS12`);
    minTLSVersion = 'VersionTLS12';
  }
  const given = [...new Set(c.ciphers ?? [])];
  const ciphers = [...TLS13_SUITES, ...given.filter((x) => !TLS13_SUITES.includes(x))];
  return { name: 'Custom', minTLSVersion, ciphers, ...(c.groups?.length ? { groups: [...new Set(c.groups)] } : {}), adherence, warnings };
}
