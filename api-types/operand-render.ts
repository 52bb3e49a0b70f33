// Operand rendering: gates → kube-apiserver `--feature-gates=Name=bool` arguments and the kubelet
// `featureGates` map, filtered per operand (known / allow / deny); and a parser for the
// `--feature-gates` syntax with Kubernetes component-base's rules.
import { compareNames } from './feature-set.js';

/** Any value with enabled and disabled names (FeatureGates from the SDK is one). */
export interface GateLists {
  readonly enabledNames: readonly string[];
  readonly disabledNames: readonly string[];
}

export interface OperandFilter {
  /** Gates the operand knows; others are dropped with one warning each. Omit to pass every gate. */
  known?: Iterable<string>;
  /** Only these gates (empty or omitted: all). */
  allow?: Iterable<string>;
  /** Never these gates. */
  deny?: Iterable<string>;
  /** Receives `Ignoring unknown FeatureGate "<name>"` once per dropped unknown gate. */
  warn?: (message: string) => void;
}

/** Name → enabled, filtered, in byte order of names. */
export function operandGates(gates: GateLists, filter: OperandFilter = {}): [string, boolean][] {
  const known = filter.known ? new Set(filter.known) : undefined;
  const allow = filter.allow ? new Set(filter.allow) : undefined;
  const deny = new Set(filter.deny ?? []);
  const state = new Map<string, boolean>();
  for (const n of gates.disabledNames) state.set(n, false);
  for (const n of gates.enabledNames) state.set(n, true); // enabled wins, as upstream
  const out: [string, boolean][] = [];
  for (const name of [...state.keys()].sort(compareNames)) {
    if (deny.has(name)) continue;
    if (allow && allow.size > 0 && !allow.has(name)) continue;
    if (known && !known.has(name)) {
      filter.warn?.(`Ignoring unknown FeatureGate ${JSON.stringify(name)}`);
      continue;
    }
    out.push([name, state.get(name) as boolean]);
  }
  return out;
}

/** Repeated `--feature-gates=Name=true|false` arguments, byte-sorted by name. */
export function renderKubeAPIServerArgs(gates: GateLists, filter: OperandFilter = {}): string[] {
  return operandGates(gates, filter).map(([name, on]) => `--feature-gates=${name}=${on}`);
}

/** The kubelet configuration's `featureGates` map, keys byte-sorted. */
export function renderKubeletFeatureGates(gates: GateLists, filter: OperandFilter = {}): Record<string, boolean> {
  return Object.fromEntries(operandGates(gates, filter));
}

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/**
 * Parses `--feature-gates` values (component-base rules): comma-separated `Name=bool` items, empty items
 * skipped, spaces trimmed, Go ParseBool values; repeated values merge, later ones win.
 * Accepts raw values ("A=true,B=false") or whole arguments ("--feature-gates=A=true").
 */
export function parseFeatureGates(values: readonly string[]): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const raw of values) {
    const value = raw.startsWith('--feature-gates=') ? raw.slice('--feature-gates='.length) : raw;
    for (const item of value.split(',')) {
      if (item.trim() === '') continue;
      const i = item.indexOf('=');
      if (i < 0) throw new Error(`missing bool value for ${item.trim()}`);
      const key = item.slice(0, i).trim();
      const v = item.slice(i + 1).trim();
      if (TRUE.has(v)) out.set(key, true);
      else if (FALSE.has(v)) out.set(key, false);
      else throw new Error(`invalid value of ${key}=${v}, err: strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
    }
  }
  return out;
}
