// The params of the ValidatingAdmissionPolicy that warns about unknown custom gate names
// (deploy/base/admission/): a ConfigMap in the operator's namespace with one key per payload version,
// `gates.<version>` = the gate names that version's payload knows, comma-joined and byte-sorted. Each
// operator writes its own version's key and drops keys of versions that left ClusterVersion history, so
// during an upgrade both the running and the desired version's names are accepted. Pure.
import { compareNames } from './feature-set.js';

export const KNOWN_GATES_CONFIGMAP = 'featuregate-known-gates';
export const KNOWN_GATES_KEY_PREFIX = 'gates.';

/** The ConfigMap data an operator of `version` wants, from the current data; undefined when nothing changes. */
export function desiredKnownGatesData(current: Readonly<Record<string, string>> | undefined, version: string, known: readonly string[],
  history: readonly string[]): Record<string, string> | undefined {
  const keep = new Set([version, ...history]);
  const next: Record<string, string> = {};
  for (const [k, v] of Object.entries(current ?? {})) {
    if (!k.startsWith(KNOWN_GATES_KEY_PREFIX) || keep.has(k.slice(KNOWN_GATES_KEY_PREFIX.length))) next[k] = v;
  }
  next[`${KNOWN_GATES_KEY_PREFIX}${version}`] = [...new Set(known)].sort(compareNames).join(',');
  const same = current !== undefined && Object.keys(next).length === Object.keys(current).length &&
    Object.entries(next).every(([k, v]) => current[k] === v);
  return same ? undefined : next;
}
