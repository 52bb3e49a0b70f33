// One line per hosted control plane for `featuregates hosted status`, pure: what the coordinator
// records about each HCP it owns (kept on the management cluster, one ConfigMap per shard, data key
// `<namespace>_<name>` → this record as JSON), and how the CLI prints it.
import { createHash } from 'node:crypto';
import { DecodeError, obj, str } from './decode.js';
import { boundedText } from './untrusted-text.js';

export interface HostedGuestRecord {
  /** `namespace/name` of the HostedControlPlane. */
  hcp: string;
  shard: number;
  /** The replica (identity) that owns the shard and wrote this record. */
  owner: string;
  /** The guest's desired version (its ClusterVersion), when known. */
  desiredVersion?: string;
  /** Default, TechPreviewNoUpgrade, ... as the HCP asks for it. */
  featureSet: string;
  /** Entries in the guest's FeatureGate status (versions, current first). */
  versions: string[];
  /** The guest ClusterOperator's Upgradeable: "True", or "False: <reason>". */
  upgradeable?: string;
  /**
   * The guest kube-apiserver's running gates against its FeatureGate status (the running-gates check): "match",
   * "mismatch (N): A, B, …", or "unreadable: <why>"; absent until checked.
   */
  runningGates?: string;
  /** RFC 3339: the last sync that ended without error. */
  lastSync?: string;
  /** What is wrong, naming what is missing (empty when the last sync succeeded). */
  lastError?: string;
}

/** The longest ConfigMap data key (a DNS subdomain's length). */
export const MAX_CONFIGMAP_KEY_CHARS = 253;
const CONFIGMAP_KEY = /^[-._a-zA-Z0-9]+$/;
/** What a long key keeps of its HCP's name, to be read by a person (the hash makes it unique). */
const LONG_KEY_NAME_CHARS = 100;

/** Whether `key` is a valid ConfigMap data key. */
export function isConfigMapKey(key: string): boolean {
  return key.length <= MAX_CONFIGMAP_KEY_CHARS && CONFIGMAP_KEY.test(key) && key !== '.' && key !== '..';
}

/**
 * The record's data key for the HCP `namespace/name`: `namespace_name` when that is a valid ConfigMap key, and
 * for any other key (an HCP name may be 253 characters, the namespace 63 more) `namespace_<name's head>_<sha-256
 * of namespace/name>` — two "_" never appear in a plain key (namespaces and names never contain one), and two
 * long keys are the same only if their HCPs are. Every key fits a ConfigMap, so no HCP's name can fail its
 * shard's record write.
 */
export function recordKey(hcp: string): string {
  const plain = hcp.replace('/', '_');
  if (isConfigMapKey(plain) && !plain.slice(plain.indexOf('_') + 1).includes('_')) return plain;
  const slash = hcp.indexOf('/');
  const clean = (s: string) => s.replace(/[^-.a-zA-Z0-9]/g, '-');
  const namespace = clean(hcp.slice(0, Math.max(0, slash))).slice(0, 63);
  const name = clean(hcp.slice(slash + 1)).slice(0, LONG_KEY_NAME_CHARS);
  return `${namespace}_${name}_${createHash('sha256').update(hcp).digest('hex')}`;
}

const SHARD_NAME_PREFIX = 'featuregates-hosted-shard-';

/** The name of a shard's Lease and of its status record ConfigMap (the same name: one shard, two objects). */
export function shardName(shard: number): string {
  return `${SHARD_NAME_PREFIX}${String(shard).padStart(2, '0')}`;
}

/** Whether `name` is a shard's Lease or record (shardName's). */
export function isShardName(name: string): boolean {
  return name.startsWith(SHARD_NAME_PREFIX) && /^\d+$/.test(name.slice(SHARD_NAME_PREFIX.length));
}

export function decodeHostedGuestRecord(v: unknown, path: string): HostedGuestRecord {
  const o = obj(v, path);
  const opt = (k: string) => (o[k] === undefined ? undefined : str(o[k], `${path}.${k}`));
  if (typeof o.shard !== 'number') throw new DecodeError(`${path}.shard`, 'expected number');
  const versions = Array.isArray(o.versions) ? o.versions.map((x, i) => str(x, `${path}.versions[${i}]`)) : [];
  const r: HostedGuestRecord = {
    hcp: str(o.hcp, `${path}.hcp`), shard: o.shard, owner: str(o.owner ?? '', `${path}.owner`),
    featureSet: str(o.featureSet ?? 'Default', `${path}.featureSet`), versions,
  };
  for (const k of ['desiredVersion', 'upgradeable', 'runningGates', 'lastSync', 'lastError'] as const) {
    const x = opt(k);
    if (x !== undefined) r[k] = x;
  }
  return r;
}

/** The most status versions a record lists (a guest's status beyond that is its own error). */
export const MAX_RECORD_VERSIONS = 100;
/** The most characters of a version string, the Upgradeable text and the error a record keeps. */
const MAX_RECORD_VERSION_CHARS = 64;
const MAX_RECORD_UPGRADEABLE_CHARS = 256;
/** What one shard's records may take in all: the ConfigMap's limit is 1 MiB, with room for its metadata. */
export const SHARD_RECORD_BUDGET_BYTES = 900 * 1024;

/**
 * A record cut to its bounds: guest-written text (versions, the Upgradeable reason, error messages) never makes
 * one HCP's record more than a few KiB, whatever its guest answers.
 */
export function boundedRecord(r: HostedGuestRecord): HostedGuestRecord {
  const version = (v: string) => boundedText(v, MAX_RECORD_VERSION_CHARS);
  const versions = r.versions.slice(0, MAX_RECORD_VERSIONS).map(version);
  if (r.versions.length > MAX_RECORD_VERSIONS) versions.push(`… ${r.versions.length - MAX_RECORD_VERSIONS} more`);
  return {
    ...r, versions,
    ...(r.desiredVersion !== undefined ? { desiredVersion: version(r.desiredVersion) } : {}),
    ...(r.upgradeable !== undefined ? { upgradeable: boundedText(r.upgradeable, MAX_RECORD_UPGRADEABLE_CHARS) } : {}),
    ...(r.runningGates !== undefined ? { runningGates: boundedText(r.runningGates, MAX_RECORD_UPGRADEABLE_CHARS) } : {}),
    ...(r.lastError !== undefined ? { lastError: boundedText(r.lastError) } : {}),
  };
}

/**
 * One shard's ConfigMap data: key → record JSON, bounded records, and within `budget` bytes in all — when the
 * records of many HCPs do not fit, the largest are cut to a line that says so, so every HCP keeps its line and
 * no HCP's record can stop the others' from being written.
 */
export function shardRecordData(
  records: Iterable<[string, HostedGuestRecord]>,
  budget = SHARD_RECORD_BUDGET_BYTES,
): Record<string, string> {
  const entries = [...records]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, r]) => [k, JSON.stringify(boundedRecord(r))] as [string, string]);
  let total = entries.reduce((n, [k, v]) => n + k.length + Buffer.byteLength(v) + 8, 0);
  if (total > budget) {
    const bySize = entries.map((e, i) => [i, Buffer.byteLength(e[1])] as const).sort((a, b) => b[1] - a[1]);
    for (const [i, size] of bySize) {
      if (total <= budget) break;
      const r = JSON.parse(entries[i]![1]) as HostedGuestRecord;
      const cut = JSON.stringify({
        hcp: r.hcp,
        shard: r.shard,
        owner: r.owner,
        featureSet: r.featureSet,
        versions: [],
        lastError: "record cut: the shard record is full (see the coordinator log and this HCP's Events)",
      });
      entries[i]![1] = cut;
      total -= size - Buffer.byteLength(cut);
    }
  }
  return Object.fromEntries(entries);
}

/** The records in one shard's ConfigMap data; a malformed entry becomes a record that says so. */
export function decodeShardRecords(data: Record<string, string> | undefined, source: string): HostedGuestRecord[] {
  return Object.entries(data ?? {}).map(([key, text]) => {
    try {
      return decodeHostedGuestRecord(JSON.parse(text), `${source}.data.${key}`);
    } catch (e) {
      return { hcp: boundedText(key.split('_').slice(0, 2).join('/'), 320), shard: -1, owner: '', featureSet: '', versions: [], lastError: `unreadable record: ${(e as Error).message}` };
    }
  });
}

const COLUMNS = ['HOSTED CONTROL PLANE', 'DESIRED', 'FEATURE SET', 'ENTRIES', 'UPGRADEABLE', 'RUNNING GATES', 'OWNER', 'LAST SYNC', 'LAST ERROR'] as const;

/** RUNNING GATES in the table: the verdict and how many gates differ (-o wide/json name them). */
function runningGatesCell(v: string | undefined): string {
  if (!v) return '-';
  return v.startsWith('mismatch (') || v.startsWith('unreadable') ? v.slice(0, v.indexOf(':')) : v;
}

/** The table: one line per HCP, sorted by namespace/name; `wide` adds the shard, the status versions and the running-gate detail. */
export function hostedStatusTable(records: readonly HostedGuestRecord[], wide = false): string {
  const rows = [...records].sort((a, b) => (a.hcp < b.hcp ? -1 : a.hcp > b.hcp ? 1 : 0)).map((r) => [
    r.hcp, r.desiredVersion ?? '-', r.featureSet || 'Default', String(r.versions.length), r.upgradeable ?? '-', runningGatesCell(r.runningGates),
    r.owner || '-', r.lastSync ?? 'never', r.lastError || '-',
    ...(wide ? [String(r.shard), r.versions.join(',') || '-', r.runningGates ?? '-'] : []),
  ].map((cell) => boundedText(cell)));
  const header = [...COLUMNS, ...(wide ? ['SHARD', 'VERSIONS', 'RUNNING GATES (DETAIL)'] : [])];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  return [line([...header]), ...rows.map(line)].join('\n') + '\n';
}
