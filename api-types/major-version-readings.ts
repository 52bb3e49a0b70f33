// The two readings of `release.openshift.io/major-version` upstream has (docs/upstream notes, §1–2), side by
// side, so a tool can say where they disagree for one major version:
//  - cluster-config-operator (which loads FeatureGate payload manifests): `-N` entries are ignored and a file
//    is used only when its list names the major — so `"-4"` alone matches nothing (registry.ts, selectManifest);
//  - library-go's manifest filter (the cluster-version operator's): `-N` excludes N, a list with no positive
//    entry includes every other major, an entry both included and excluded is an error, a malformed one too.
export const MAJOR_VERSION_ANNOTATION = 'release.openshift.io/major-version';

export type MajorVersionReading = { applies: boolean; why: string } | { error: string };

/** The config operator's reading: a positive entry naming `major` (`-N` ignored); malformed entries never match. */
export function configOperatorReading(value: string, major: number): { applies: boolean; why: string } {
  const entries = value.split(',').map((e) => e.trim());
  const bad = entries.find((e) => !e.startsWith('-') && !/^\d+$/.test(e));
  if (bad !== undefined) return { applies: false, why: `malformed ${MAJOR_VERSION_ANNOTATION} entry ${JSON.stringify(bad)}` };
  return entries.filter((e) => !e.startsWith('-')).map(Number).includes(major)
    ? { applies: true, why: `${MAJOR_VERSION_ANNOTATION} "${value}" contains ${major}` }
    : { applies: false, why: `${MAJOR_VERSION_ANNOTATION} "${value}" does not contain ${major}` };
}

/** library-go's reading (the cluster-version operator's manifest filter). */
export function manifestFilterReading(value: string, major: number): MajorVersionReading {
  const include = new Set<number>();
  const exclude = new Set<number>();
  for (const raw of value.split(',')) {
    const e = raw.trim();
    const m = /^(-?)(\d+)$/.exec(e);
    if (!m) return { error: `malformed ${MAJOR_VERSION_ANNOTATION} entry ${JSON.stringify(e)}` };
    (m[1] ? exclude : include).add(Number(m[2]));
  }
  const overlap = [...include].filter((n) => exclude.has(n));
  if (overlap.length) return { error: `inclusion and exclusion requirements overlap: ${overlap.join(', ')}` };
  if (exclude.has(major)) return { applies: false, why: `excludes ${major}` };
  if (include.size && !include.has(major)) return { applies: false, why: `major version ${major} does not match any required versions` };
  return { applies: true, why: include.size ? `lists ${major}` : `excludes only ${[...exclude].join(', ')}` };
}

/** When the two readings differ for `major`: one sentence saying how; undefined when they agree. */
export function majorVersionDisagreement(value: string, major: number): string | undefined {
  const cco = configOperatorReading(value, major);
  const cvo = manifestFilterReading(value, major);
  const ccoApplies = cco.applies;
  if ('error' in cvo) {
    return `${MAJOR_VERSION_ANNOTATION} "${value}": the config operator ${ccoApplies ? 'uses' : 'skips'} this file for major ${major}, ` +
      `but the cluster-version operator's manifest filter (library-go) rejects it: ${cvo.error}`;
  }
  if (cvo.applies === ccoApplies) return undefined;
  return `${MAJOR_VERSION_ANNOTATION} "${value}": for major ${major} the config operator ${ccoApplies ? 'uses' : 'skips'} this file ` +
    `(${cco.why}), the cluster-version operator's manifest filter (library-go, -N excludes N) would ${cvo.applies ? 'apply' : 'skip'} it (${cvo.why})`;
}
