// One line per hosted control plane for `featuregates hosted status`, pure: what the coordinator
// records about each HCP it owns (kept on the management cluster, one ConfigMap per shard, data key
// `<namespace>_<name>` → this record as JSON), and how the CLI prints it.
import { DecodeError, obj, str } from './decode.js';

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
  /** RFC 3339: the last sync that ended without error. */
  lastSync?: string;
  /** What is wrong, naming what is missing (empty when the last sync succeeded). */
  lastError?: string;
}

/** ConfigMap data keys allow [-._a-zA-Z0-9]; namespaces and names never contain "_". */
export function recordKey(hcp: string): string {
  return hcp.replace('/', '_');
}

export function shardRecordName(shard: number): string {
  return `featuregates-hosted-shard-${String(shard).padStart(2, '0')}`;
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
  for (const k of ['desiredVersion', 'upgradeable', 'lastSync', 'lastError'] as const) {
    const x = opt(k);
    if (x !== undefined) r[k] = x;
  }
  return r;
}

/** The records in one shard's ConfigMap data; a malformed entry becomes a record that says so. */
export function decodeShardRecords(data: Record<string, string> | undefined, source: string): HostedGuestRecord[] {
  return Object.entries(data ?? {}).map(([key, text]) => {
    try {
      return decodeHostedGuestRecord(JSON.parse(text), `${source}.data.${key}`);
    } catch (e) {
      return { hcp: key.replace('_', '/'), shard: -1, owner: '', featureSet: '', versions: [], lastError: `unreadable record: ${(e as Error).message}` };
    }
  });
}

const COLUMNS = ['HOSTED CONTROL PLANE', 'DESIRED', 'FEATURE SET', 'ENTRIES', 'UPGRADEABLE', 'OWNER', 'LAST SYNC', 'LAST ERROR'] as const;

/** The table: one line per HCP, sorted by namespace/name; `wide` adds the shard and the status versions. */
export function hostedStatusTable(records: readonly HostedGuestRecord[], wide = false): string {
  const rows = [...records].sort((a, b) => (a.hcp < b.hcp ? -1 : a.hcp > b.hcp ? 1 : 0)).map((r) => [
    r.hcp, r.desiredVersion ?? '-', r.featureSet || 'Default', String(r.versions.length), r.upgradeable ?? '-', r.owner || '-',
    r.lastSync ?? 'never', r.lastError || '-',
    ...(wide ? [String(r.shard), r.versions.join(',') || '-'] : []),
  ]);
  const header = [...COLUMNS, ...(wide ? ['SHARD', 'VERSIONS'] : [])];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  return [line([...header]), ...rows.map(line)].join('\n') + '\n';
}
