// Serialized size of a status, for a metric and a guard against etcd's request limit.

/** etcd's default --max-request-bytes (1.5 MiB). */
export const ETCD_REQUEST_LIMIT_BYTES = 1.5 * 1024 * 1024;

/** Compact JSON byte length, the way custom resources are stored. */
export function serializedSizeBytes(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value)).length;
}
