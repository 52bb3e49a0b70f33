// Executable / data versions (X.Y.Z) and MicroShift's version compatibility rules: no going back below
// the data's version, at most 2 minor steps forward (4.22 → 5.0 counts as one step); patch changes are free.
// Majors: MicroShift knows the last minor of 4 only, so any change of major.minor that involves a major
// after 5 is refused with its "unknown major version" error. Deliberately different: a patch-only change
// is allowed for every major (MicroShift refuses 6.0.0 → 6.0.1 with the same error).
import { formatVersion, type ParsedVersion } from '../api-types/index.js';

export const MAX_VERSION_SKEW = 2;
const LAST_MINOR_FOR_MAJOR: Record<number, number> = { 4: 22 };

/** major.minor as one linear number, so that the last minor of a major is one step from the next major. */
function linear(v: ParsedVersion): number {
  let n = 0;
  for (let major = 4; major < v.major; major++) {
    const last = LAST_MINOR_FOR_MAJOR[major];
    if (last === undefined) throw new Error(`unknown major version ${major} in version map`);
    n += last + 1;
  }
  return n + v.minor;
}

/** Throws when the executable may not run on data of version `data`; returns the log line otherwise. */
export function checkVersionCompatibility(exec: ParsedVersion, data: ParsedVersion): string | undefined {
  if (exec.major === data.major && exec.minor === data.minor && exec.patch === data.patch) return undefined;
  if (exec.major === data.major && exec.minor === data.minor) return `Version upgrade from ${formatVersion(data)} to ${formatVersion(exec)} (distance 0), continuing`;
  const distance = linear(exec) - linear(data);
  const E = formatVersion(exec);
  const D = formatVersion(data);
  if (distance < 0) throw new Error(`executable (${E}) is older than existing data (${D}): migrating data to older version is not supported`);
  if (distance > MAX_VERSION_SKEW) {
    throw new Error(`executable (${E}) is too recent compared to existing data (${D}): version distance is ${distance}, maximum allowed is ${MAX_VERSION_SKEW}`);
  }
  return `Version upgrade from ${D} to ${E} (distance ${distance}), continuing`;
}
