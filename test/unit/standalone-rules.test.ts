// Standalone mode's pure rules: merge patch, config decoding, validation order and messages, lock rules.
import { describe, expect, it } from '@jest/globals';
import {
  checkVersionCompatibility, configChecks, decodeLock, defaultFeatureGates, encodeLock, featureGatesFromConfig, mergePatch,
  effectiveGates, kubeletOverrides, upgradeChecks, validateFeatureGates, type StandaloneFeatureGates,
} from '../../standalone/index.js';
import { closestName, parseStrictVersion } from '../../api-types/index.js';

const fg = (featureSet: string, c: [string[], string[]] = [[], []], s: [string[], string[]] = [[], []]): StandaloneFeatureGates => ({
  featureSet,
  customNoUpgrade: { enabled: c[0], disabled: c[1] },
  specialHandlingSupportExceptionRequired: { enabled: s[0], disabled: s[1] },
});

describe('merge patch (RFC 7386)', () => {
  it('merges objects, replaces lists, deletes on null', () => {
    expect(mergePatch({ a: { b: [1, 2], c: 1 }, d: 1 }, { a: { b: [3] }, d: null, e: 'x' })).toEqual({ a: { b: [3], c: 1 }, e: 'x' });
    expect(mergePatch([1], { a: 1 })).toEqual({ a: 1 });
    expect(mergePatch({ a: 1 }, 'x')).toBe('x');
  });
});

describe('config decoding', () => {
  it('lays non-empty values over the defaults', () => {
    expect(featureGatesFromConfig({})).toEqual(defaultFeatureGates());
    expect(featureGatesFromConfig({ apiServer: { featureGates: { featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: ['A'], disabled: [] } } } }))
      .toEqual(fg('CustomNoUpgrade', [['A'], []]));
  });
  it('names the field of a wrongly typed value', () => {
    expect(() => featureGatesFromConfig({ apiServer: { featureGates: { customNoUpgrade: { enabled: 'A' } } } }))
      .toThrow('invalid configuration: apiServer.featureGates.customNoUpgrade.enabled: expected a list of gate names, got string');
    expect(() => featureGatesFromConfig({ apiServer: { featureGates: { featureSet: 1 } } })).toThrow('apiServer.featureGates.featureSet: expected a string, got number');
  });
});

describe('validation, in upstream order', () => {
  const W = 'invalid configuration: error validating feature gates: ';
  it.each([
    ['unset gates are valid', fg(''), undefined],
    ['lists with an empty featureSet', fg('', [['A'], []]), 'CustomNoUpgrade and SpecialHandlingSupportExceptionRequired enabled/disabled lists must be empty when FeatureSet is empty'],
    ['special lists with an empty featureSet', fg('', [[], []], [[], ['A']]), 'CustomNoUpgrade and SpecialHandlingSupportExceptionRequired enabled/disabled lists must be empty when FeatureSet is empty'],
    ['TechPreviewNoUpgrade without manifests', fg('TechPreviewNoUpgrade'), 'FeatureSet TechPreviewNoUpgrade is not supported. Use CustomNoUpgrade to enable/disable feature gates'],
    ['DevPreviewNoUpgrade without manifests', fg('DevPreviewNoUpgrade'), 'FeatureSet DevPreviewNoUpgrade is not supported. Use CustomNoUpgrade to enable/disable feature gates'],
    ['a lower-case set name', fg('customNoUpgrade'), 'invalid feature set: customNoUpgrade'],
    ['CustomNoUpgrade with empty lists', fg('CustomNoUpgrade'), undefined],
    ['a valid CustomNoUpgrade', fg('CustomNoUpgrade', [['A'], ['B']], [['C'], ['D']]), undefined],
    ['explicitly enabling a required gate', fg('CustomNoUpgrade', [['UserNamespacesSupport'], []]), undefined],
    ['disabling a required gate', fg('CustomNoUpgrade', [[], ['UserNamespacesSupport', 'X']]), 'required feature gates cannot be disabled: [UserNamespacesSupport]'],
    ['disabling a required gate via special', fg('CustomNoUpgrade', [[], []], [[], ['UserNamespacesPodSecurityStandards']]), 'required feature gates cannot be disabled: [UserNamespacesPodSecurityStandards]'],
    ['enabled ∩ disabled', fg('CustomNoUpgrade', [['B', 'A'], ['A', 'B']]), 'feature gates cannot be both enabled and disabled in customNoUpgrade: [A B]'],
    ['special enabled ∩ disabled', fg('CustomNoUpgrade', [[], []], [['A'], ['A']]), 'feature gates cannot be both enabled and disabled in specialHandlingSupportExceptionRequired: [A]'],
    ['custom enabled ∩ special disabled', fg('CustomNoUpgrade', [['A'], []], [[], ['A']]), 'feature gates cannot be enabled in customNoUpgrade and disabled in specialHandlingSupportExceptionRequired: [A]'],
    ['custom disabled ∩ special enabled', fg('CustomNoUpgrade', [[], ['A']], [['A'], []]), 'feature gates cannot be disabled in customNoUpgrade and enabled in specialHandlingSupportExceptionRequired: [A]'],
    ['the first failing rule wins', fg('CustomNoUpgrade', [['A'], ['A', 'UserNamespacesSupport']]), 'required feature gates cannot be disabled: [UserNamespacesSupport]'],
  ])('%s', (_t, config, message) => {
    if (message === undefined) expect(() => validateFeatureGates(config)).not.toThrow();
    else expect(() => validateFeatureGates(config)).toThrow(`${W}${message}`);
  });

  it('accepts presets when payload manifests are given, but not with lists', () => {
    expect(() => validateFeatureGates(fg('TechPreviewNoUpgrade'), { presetsAvailable: true })).not.toThrow();
    expect(() => validateFeatureGates(fg('DevPreviewNoUpgrade', [['A'], []]), { presetsAvailable: true }))
      .toThrow('lists must be empty when FeatureSet is DevPreviewNoUpgrade');
  });
});

describe('lock rules', () => {
  const lock = { featureSet: 'CustomNoUpgrade', customNoUpgrade: { enabled: ['FeatureA'], disabled: [] }, version: '4.21.0' };

  it('encodes with sorted keys and decodes back', () => {
    expect(encodeLock(lock)).toBe('customNoUpgrade:\n  disabled: []\n  enabled:\n    - FeatureA\nfeatureSet: CustomNoUpgrade\nversion: 4.21.0\n');
    expect(decodeLock(encodeLock(lock))).toEqual(lock);
    expect(decodeLock('featureSet: CustomNoUpgrade\nversion: 4.21.0\ncustomNoUpgrade:\n  enabled: null\n')).toEqual({ ...lock, customNoUpgrade: { enabled: [], disabled: [] } });
  });

  it.each([
    ['', 'the lock file is empty'],
    ['\u0000\u0001garbage: [', 'not valid YAML'],
    ['featureSet: CustomNoUpgrade\nversion: 4.2', 'version: expected a string, got number'],
    ['featureSet: CustomNoUpgrade\nversion: "4.21', 'not valid YAML'],
    ['featureSet: CustomNoUpgrade\nversion: "4.21"', 'invalid version string (4.21): expected Major.Minor.Patch'],
    ['customNoUpgrade:\n  enabled:\n    - A\nfeatureSet: Custom', 'version: expected a string, got undefined'],
    ['- featureSet\n- version', 'expected a mapping, got array'],
    ['featureSet: CustomNoUpgrade\nversion: 4.21.0\ncustomNoUpgrade: [A]', 'customNoUpgrade: expected a mapping, got array'],
  ])('refuses a corrupted lock %#', (text, message) => {
    expect(() => decodeLock(text)).toThrow(message);
  });

  it('refuses unsetting or changing the locked feature set, with the remediation text', () => {
    const unset = configChecks(lock, fg(''));
    expect(unset).toBe('detected invalid changes in feature gate configuration: cannot unset feature set. Previous config had feature set "CustomNoUpgrade", current config has no feature set configured\n\n' +
      'To restore MicroShift to a supported state, you must:\n1. Run: sudo microshift-cleanup-data --all\n2. Remove custom feature gates from /etc/microshift/config.yaml\n3. Restart MicroShift: sudo systemctl restart microshift');
    expect(configChecks(lock, fg('TechPreviewNoUpgrade'))).toContain('cannot change CustomNoUpgrade feature set. Previous feature set was "CustomNoUpgrade", current feature set is "TechPreviewNoUpgrade"');
    expect(configChecks(lock, fg('CustomNoUpgrade', [['Other'], ['More']]))).toBeUndefined();
  });

  // The upstream truth table (featuregate_lock_test.go).
  it.each([
    ['4.21.0', '4.21.0', ['FeatureA'], [], true],
    ['4.21.0', '4.21.1', ['FeatureA'], [], true],
    ['4.21.3', '4.21.0', ['FeatureA'], [], true],
    ['4.21.0', '4.22.0', ['FeatureA'], [], false],
    ['4.21.0', '5.0.0', ['FeatureA'], [], false],
    ['4.22.0', '4.21.0', ['FeatureA'], [], false],
    ['5.0.0', '4.21.0', ['FeatureA'], [], false],
    ['4.21.0', '4.22.0', ['FeatureA'], ['FeatureA'], true],
    ['4.21.0', '5.0.0', ['FeatureA'], ['FeatureA'], true],
    ['4.21.0', '4.22.0', [], ['FeatureA'], true],
    ['4.21.0', '5.0.0', [], ['FeatureA'], true],
  ])('lock %s → exec %s, locked %j, exempt %j → pass %s', (locked, exec, lockedEnabled, exempt, pass) => {
    const l = { ...lock, version: locked, customNoUpgrade: { enabled: lockedEnabled as string[], disabled: [] } };
    const out = upgradeChecks(l, fg('CustomNoUpgrade', [[], []], [exempt as string[], []]), parseStrictVersion(exec));
    expect(out === undefined).toBe(pass);
    if (!pass) expect(out).toContain(`version upgrade detected with custom feature gates: locked version ${locked}, current version ${exec}`);
  });

  it('exempts only the same polarity and reports what stays blocked', () => {
    const l = { ...lock, customNoUpgrade: { enabled: ['A', 'B'], disabled: ['C'] } };
    const out = upgradeChecks(l, fg('CustomNoUpgrade', [[], []], [['A', 'C'], []]), parseStrictVersion('4.22.0'));
    expect(out).toContain('Gates Enabled: [B]\nGates Disabled: [C]');
    expect(out).toContain('1. Roll back to version 4.21.0, OR');
  });
});

describe('version compatibility', () => {
  it.each([
    ['4.21.0', '4.21.0', undefined],
    ['4.21.0', '4.21.5', 'Version upgrade from 4.21.5 to 4.21.0 (distance 0), continuing'],
    ['4.21.5', '4.21.0', 'Version upgrade from 4.21.0 to 4.21.5 (distance 0), continuing'],
    ['4.22.0', '4.21.0', 'Version upgrade from 4.21.0 to 4.22.0 (distance 1), continuing'],
    ['5.0.0', '4.22.0', 'Version upgrade from 4.22.0 to 5.0.0 (distance 1), continuing'],
    ['5.1.0', '4.21.0', 'executable (5.1.0) is too recent compared to existing data (4.21.0): version distance is 3, maximum allowed is 2'],
    ['4.20.0', '4.21.0', 'executable (4.20.0) is older than existing data (4.21.0): migrating data to older version is not supported'],
  ])('exec %s on data %s', (exec, data, expected) => {
    const run = () => checkVersionCompatibility(parseStrictVersion(exec), parseStrictVersion(data));
    if (expected?.startsWith('executable')) expect(run).toThrow(expected);
    else expect(run()).toBe(expected);
  });
});

describe('did you mean', () => {
  it.each([
    ['customNoUpgade', 'customNoUpgrade'], ['CUSTOMNOUPGRADE', 'customNoUpgrade'], ['enabeld', 'enabled'], ['featureset', 'featureSet'],
    ['somethingElse', undefined], ['x', undefined],
  ])('%s → %s', (typo, want) => {
    expect(closestName(typo, ['featureSet', 'customNoUpgrade', 'specialHandlingSupportExceptionRequired', 'enabled', 'disabled'])).toBe(want);
  });
});

describe('what kube-apiserver and the kubelet run with', () => {
  it('effective gates add the required gates on; the kubelet overrides are the gates it sets otherwise', () => {
    const gates = { enabledNames: ['A'], disabledNames: ['B'] };
    expect(effectiveGates(gates)).toEqual({ enabledNames: ['A', 'UserNamespacesPodSecurityStandards', 'UserNamespacesSupport'], disabledNames: ['B'] });
    expect(kubeletOverrides(gates, { featureGates: { A: true, B: true, UserNamespacesSupport: false, C: false } })).toEqual([
      { name: 'B', kubelet: true, apiServer: false }, { name: 'UserNamespacesSupport', kubelet: false, apiServer: true },
    ]);
    expect(kubeletOverrides(gates, undefined)).toEqual([]);
  });
});

describe('majors MicroShift does not know', () => {
  it('a minor or major change involving them is refused with its message; a patch change is allowed', () => {
    expect(() => checkVersionCompatibility(parseStrictVersion('6.0.0'), parseStrictVersion('5.3.0'))).toThrow('unknown major version 5 in version map');
    expect(checkVersionCompatibility(parseStrictVersion('6.0.2'), parseStrictVersion('6.0.1'))).toBe('Version upgrade from 6.0.1 to 6.0.2 (distance 0), continuing');
    expect(checkVersionCompatibility(parseStrictVersion('5.1.0'), parseStrictVersion('4.22.0'))).toBe('Version upgrade from 4.22.0 to 5.1.0 (distance 2), continuing');
  });
});
