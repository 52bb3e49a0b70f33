// Resolving APIServer/cluster's TLS security profile (api-types/tls-profile.ts) where the API's own validation
// does not stand in the way: what a hand-written, older or newer object may hold.
import { describe, expect, it } from '@jest/globals';
import { TLS_PROFILES, decodeAPIServer, resolveTLSProfile } from '../../api-types/index.js';
import { nodeTLSOptions } from '../../runtime/index.js';

describe('TLS security profile', () => {
  it('no profile is Intermediate and legacy adherence; each predefined profile as openshift/api defines it', () => {
    expect(resolveTLSProfile(undefined)).toMatchObject({ name: 'Intermediate', minTLSVersion: 'VersionTLS12', adherence: 'LegacyAdheringComponentsOnly', warnings: [] });
    for (const name of ['Old', 'Intermediate', 'Modern'] as const) {
      expect(resolveTLSProfile({ tlsSecurityProfile: { type: name } })).toMatchObject({ name, ciphers: [...TLS_PROFILES[name].ciphers] });
    }
    expect(TLS_PROFILES.Old.ciphers).toHaveLength(24);
    expect(TLS_PROFILES.Modern).toEqual({ minTLSVersion: 'VersionTLS13', ciphers: ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'] });
  });

  it('an unknown adherence is strict, with a warning; an unknown type or a Custom without its fields falls back, saying so', () => {
    expect(resolveTLSProfile({ tlsAdherence: 'SomethingNew' })).toMatchObject({ adherence: 'StrictAllComponents', warnings: [expect.stringContaining('"SomethingNew" is unknown')] });
    expect(resolveTLSProfile({ tlsSecurityProfile: { type: 'Paranoid' } })).toMatchObject({ name: 'Intermediate', warnings: [expect.stringContaining('"Paranoid"')] });
    expect(resolveTLSProfile({ tlsSecurityProfile: { type: 'Custom' } })).toMatchObject({ name: 'Intermediate', warnings: [expect.stringContaining('without custom')] });
    const custom = resolveTLSProfile({ tlsSecurityProfile: { type: 'Custom', custom: { minTLSVersion: 'VersionTLS9', ciphers: ['ECDHE-RSA-AES128-GCM-SHA256', 'ECDHE-RSA-AES128-GCM-SHA256'], groups: ['X25519'] } } });
    expect(custom).toMatchObject({ name: 'Custom', minTLSVersion: 'VersionTLS12', groups: ['X25519'],
      ciphers: ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256', 'ECDHE-RSA-AES128-GCM-SHA256'] });
    expect(custom.warnings).toEqual([expect.stringContaining('"VersionTLS9"')]);
  });

  it('decodes only the two fields, refusing a wrong JSON type by its path', () => {
    expect(decodeAPIServer({ kind: 'APIServer', metadata: { name: 'cluster', uid: 'x' }, spec: { audit: {}, tlsAdherence: 'StrictAllComponents' } }))
      .toEqual({ metadata: { name: 'cluster' }, spec: { tlsAdherence: 'StrictAllComponents' } });
    expect(() => decodeAPIServer({ spec: { tlsSecurityProfile: { custom: { ciphers: 'AES' } } } })).toThrow('spec.tlsSecurityProfile.custom.ciphers');
  });

  it('Node options: OpenSSL\'s names kept, unknown ones dropped and named, NIST groups renamed, TLS 1.0 allowed at security level 0', () => {
    const { options, dropped } = nodeTLSOptions({ ...resolveTLSProfile({ tlsSecurityProfile: { type: 'Old' } }) });
    expect(options.minVersion).toBe('TLSv1');
    expect(options.ciphers).toMatch(/^TLS_AES_128_GCM_SHA256:.*:ECDHE-ECDSA-AES128-SHA:.*:@SECLEVEL=0$/);
    expect(options.ecdhCurve).toBe('X25519MLKEM768:X25519:P-256:P-384');
    const custom = nodeTLSOptions(resolveTLSProfile({ tlsSecurityProfile: { type: 'Custom', custom: { minTLSVersion: 'VersionTLS12', ciphers: ['NOT-A-CIPHER'], groups: ['NoSuchGroup'] } } }));
    expect(custom.dropped).toEqual(['NOT-A-CIPHER', 'NoSuchGroup']);
    expect(custom.options).toEqual({ minVersion: 'TLSv1.2', ciphers: 'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256' });
    // Node 24's OpenSSL 3.5 has no 3DES suite: Old serves the other 23.
    expect(dropped).toEqual(['DES-CBC3-SHA']);
  });
});
