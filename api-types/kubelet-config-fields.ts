// The fields of a KubeletConfiguration as JSON (untrusted: a file, a node's /configz), read and changed by path
// ("crashLoopBackOff.maxContainerRestartPeriod"), with Go's meaning of zero and empty and Go's durations. Pure.
export type KubeletFieldValue = string | number | { duration: number };
/**
 * A test of one configuration field (JSON path) after defaulting: `nonzero` is Go's "not its zero value" (a duration
 * other than 0, a struct with a field set), `nonempty` Go's `len() > 0` (a string, a list, a map with entries).
 */
export interface KubeletFieldTest {
  field: string;
  test: 'set' | 'unset' | 'nonzero' | 'nonempty' | 'true' | 'equals' | 'differs';
  value?: KubeletFieldValue;
}
export type KubeletCondition = KubeletFieldTest | { any: readonly KubeletFieldTest[] };

type Fields = Readonly<Record<string, unknown>>;
const asObject = (v: unknown): Record<string, unknown> | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : undefined);

/** A Go duration ("1m30s", "100ms", "0s") in milliseconds, or undefined when it is not one. */
export function goDurationMs(text: string): number | undefined {
  const units: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const t = text.trim();
  if (t === '0') return 0;
  const sign = t.startsWith('-') ? -1 : 1;
  const body = t.replace(/^[-+]/, '');
  if (!/^(\d+(\.\d*)?(ns|us|µs|ms|s|m|h))+$/.test(body)) return undefined;
  let ms = 0;
  for (const m of body.matchAll(/(\d+(?:\.\d*)?)(ns|us|µs|ms|s|m|h)/g)) ms += Number(m[1]) * units[m[2]!]!;
  return sign * ms;
}

/** The value at a path; undefined when a step is missing or not an object. */
export const fieldAt = (fields: Fields, path: string): unknown => path.split('.').reduce<unknown>((o, k) => asObject(o)?.[k], fields);

/** Go's zero value: absent, false, "", 0, a zero duration, an empty list, an object whose every field is zero. */
export function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === '' || v === 0) return true;
  if (typeof v === 'string') return goDurationMs(v) === 0;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.values(v).every(isZero);
  return false;
}

/** The value a rule compares with (a duration compared as one). */
export function sameValue(v: unknown, want: KubeletFieldValue): boolean {
  if (typeof want === 'object') return typeof v === 'string' && goDurationMs(v) === want.duration;
  return v === want;
}

/** `fields` with `v` at `path` (objects on the way made). */
export function withValue(fields: Record<string, unknown>, path: string, v: unknown): Record<string, unknown> {
  const [head, ...rest] = path.split('.') as [string, ...string[]];
  if (rest.length === 0) return { ...fields, [head]: v };
  return { ...fields, [head]: withValue(asObject(fields[head]) ?? {}, rest.join('.'), v) };
}

/** `fields` without the value at `path`. */
export function without(fields: Record<string, unknown>, path: string): Record<string, unknown> {
  const [head, ...rest] = path.split('.') as [string, ...string[]];
  if (rest.length === 0) { const { [head]: _gone, ...kept } = fields; return kept; }
  const inner = asObject(fields[head]);
  return inner ? { ...fields, [head]: without(inner, rest.join('.')) } : fields;
}

/** The fields a condition reads. */
export const fieldsOf = (c: KubeletCondition): string[] => ('any' in c ? c.any.map((t) => t.field) : [c.field]);
