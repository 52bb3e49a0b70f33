// The one version parser. Payload version strings are compared as literal strings everywhere and parsed
// only to learn the major version (for `release.openshift.io/major-version`); that parse is "tolerant" as
// upstream's: surrounding space and a leading "v" are ignored, and "4.21" means 4.21.0. Standalone mode's
// executable and data versions are strict Major.Minor.Patch, as MicroShift reads them.
// semver's parse alone: its index loads every range and comparator module (~20 ms at start).
import parseSemver from 'semver/functions/parse.js';

export interface ParsedVersion {
  major: number;
  minor: number;
  patch: number;
}

export function parsePayloadVersion(version: string): ParsedVersion {
  let v = version.trim().replace(/^v/, '');
  const core = v.split(/[-+]/, 1)[0] ?? '';
  const parts = core.split('.');
  if (parts.length > 0 && parts.length < 3 && parts.every((p) => /^\d+$/.test(p))) {
    v = [...parts, ...Array(3 - parts.length).fill('0')].join('.') + v.slice(core.length);
  }
  const parsed = parseSemver(v);
  if (!parsed) {
    throw new Error(`unparsable version ${JSON.stringify(version)}: expected a semantic version such as 4.21.3`);
  }
  return { major: parsed.major, minor: parsed.minor, patch: parsed.patch };
}

/** Exactly Major.Minor.Patch (surrounding space ignored), with MicroShift's error. */
export function parseStrictVersion(v: string): ParsedVersion {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(v.trim());
  if (!m) throw new Error(`invalid version string (${v}): expected Major.Minor.Patch`);
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) };
}

export function formatVersion(v: ParsedVersion): string {
  return `${v.major}.${v.minor}.${v.patch}`;
}
