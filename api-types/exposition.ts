// One sample line of the Prometheus text exposition format (`name{l="v",…} value [timestamp]`), as every
// component's and our own /metrics serve it. Comment, HELP and TYPE lines, and lines that do not parse, are
// undefined: a reader keeps the samples it understands.
export interface ExposedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?\s*$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"/g;

function unescapeLabel(v: string): string {
  return v.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

function sampleValue(v: string): number {
  if (v === '+Inf' || v === 'Inf') return Infinity;
  if (v === '-Inf') return -Infinity;
  if (v === 'NaN') return NaN;
  return Number(v);
}

export function exposedSample(line: string): ExposedSample | undefined {
  if (line.startsWith('#')) return undefined;
  const m = SAMPLE.exec(line);
  if (!m) return undefined;
  const value = sampleValue(m[3]!);
  if (Number.isNaN(value) && m[3] !== 'NaN') return undefined;
  const labels: Record<string, string> = {};
  for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]!] = unescapeLabel(l[2]!);
  return { name: m[1]!, labels, value };
}

/** Every sample of a whole /metrics text. */
export function exposedSamples(text: string): ExposedSample[] {
  return text.split('\n').map(exposedSample).filter((s): s is ExposedSample => s !== undefined);
}
