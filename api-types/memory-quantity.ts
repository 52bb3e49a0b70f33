// A memory size as Kubernetes writes one (`768Mi`, `1Gi`, `500M`, plain bytes): a Deployment's limit, a flag's value.

/** Bytes of `q`; throws naming what was expected. */
export function parseMemoryQuantity(q: string): number {
  const m = /^(\d+)(Ki|Mi|Gi|K|M|G)?$/.exec(q.trim());
  if (!m) throw new Error(`${JSON.stringify(q)}: expected bytes or a quantity with Ki, Mi, Gi, K, M or G (768Mi)`);
  const unit = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, K: 1e3, M: 1e6, G: 1e9 }[m[2] ?? ''] ?? 1;
  return Number(m[1]) * unit;
}
