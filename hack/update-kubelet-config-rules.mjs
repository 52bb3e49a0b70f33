#!/usr/bin/env node
// Writes the kubelet's own configuration rules — which KubeletConfiguration fields need which feature gate, and
// which fields its defaulting sets only under a gate — per supported minor, into api-types/kubelet-config-rules/,
// never typed by hand (facts: ../shared/reference/kubelet-config-rules.md). From each release's sources (the Go
// module proxy, the releases of hack/update-gate-rules.mjs):
//  - k8s.io/kubernetes pkg/kubelet/apis/config/validation/validation.go, ValidateKubeletConfiguration: every check
//    whose condition (with the conditions of the blocks around it, an `else` negating its `if`) names a gate and
//    fields of the configuration; a check under an enabled gate that judges a field's value (a switch, a range) is
//    counted as a value check and not modelled (its fields are wrong with or without the gate);
//  - pkg/kubelet/apis/config/v1beta1/defaults.go, SetDefaults_KubeletConfiguration: the fields set only when a gate is
//    enabled at defaulting time, with the value;
//  - pkg/features/kube_features.go: the gate name behind each Go identifier (features.CPUCFSQuotaPeriod is
//    "CustomCPUCFSQuotaPeriod");
//  - k8s.io/kubelet config/v1beta1/types.go (the matching v0.X.Y): each Go field's JSON name.
// A check the reader does not understand (a gate beside a condition of a shape it does not know) stops the script:
// a new release's new shape is read by a person, never guessed.
// Usage: node hack/update-kubelet-config-rules.mjs [--check]   (--check: exit 1 if a generated file would change)
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RELEASES, indexModule, moduleDir, writeGenerated } from './update-gate-rules.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'api-types', 'kubelet-config-rules');

/** The text between the brace at `open` and its match (Go strings, runes and comments skipped). */
export function blockEnd(src, open) {
  let depth = 0;
  for (let i = open; i < src.length; i++) {
    const c = src[i];
    if (c === '"' || c === '`' || c === "'") { i = stringEnd(src, i); continue; }
    if (c === '/' && src[i + 1] === '/') { i = src.indexOf('\n', i); continue; }
    if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  throw new Error(`unbalanced braces from offset ${open}`);
}
function stringEnd(src, i) {
  const q = src[i];
  for (let j = i + 1; j < src.length; j++) {
    if (q !== '`' && src[j] === '\\') { j++; continue; }
    if (src[j] === q) return j;
  }
  throw new Error('unterminated string');
}

/** The body of `func NAME(` in a Go file. */
export function functionBody(src, name) {
  const at = src.search(new RegExp(`\\nfunc ${name}\\(`));
  if (at < 0) throw new Error(`no func ${name}`);
  const open = src.indexOf('{\n', at);
  return src.slice(open + 1, blockEnd(src, open));
}

/** Splits `text` at top-level occurrences of `sep` (parentheses, braces and strings respected). */
function splitTop(text, sep) {
  const parts = [];
  let depth = 0, last = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === '`') { i = stringEnd(text, i); continue; }
    if ('({['.includes(c)) depth++;
    else if (')}]'.includes(c)) depth--;
    else if (depth === 0 && text.startsWith(sep, i)) { parts.push(text.slice(last, i).trim()); last = i + sep.length; i += sep.length - 1; }
  }
  parts.push(text.slice(last).trim());
  return parts;
}
const unparen = (t) => {
  let s = t.trim();
  while (s.startsWith('(') && s.endsWith(')') && blockEndParen(s) === s.length - 1) s = s.slice(1, -1).trim();
  return s;
};
function blockEndParen(s) {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '"') { i = stringEnd(s, i); continue; }
    if (s[i] === '(') depth++;
    else if (s[i] === ')' && --depth === 0) return i;
  }
  return -1;
}

/**
 * The `if` statements of a Go block as a tree: [{cond, body, elseBody?, elseIf?}] plus the `fmt.Errorf` format
 * strings met outside any `if` (with `opaque` set when they sit in a switch or a loop: a value check).
 */
export function ifTree(body) {
  const nodes = [];
  const errors = [];
  let i = 0;
  while (i < body.length) {
    const rest = body.slice(i);
    const m = /^\s*(?:if|for|switch)\b/.exec(rest);
    if (m && /^\s*if\b/.test(rest)) {
      const { node, end } = readIf(body, i + m[0].length);
      nodes.push(node);
      i = end;
      continue;
    }
    if (m) { // a loop or a switch: what it refuses depends on values, not on a gate alone
      const open = body.indexOf('{', i + m[0].length);
      const end = blockEnd(body, open);
      for (const f of errorfs(body.slice(open, end))) errors.push({ format: f, opaque: true });
      i = end + 1;
      continue;
    }
    const nl = body.indexOf('\n', i);
    // a statement may span lines: take it to its end by balancing parentheses
    let end = nl < 0 ? body.length : nl;
    let depth = 0;
    for (let j = i; j < body.length; j++) {
      if (body[j] === '"' || body[j] === '`') { j = stringEnd(body, j); continue; }
      if ('({'.includes(body[j])) depth++;
      else if (')}'.includes(body[j])) depth--;
      else if (body[j] === '\n' && depth <= 0) { end = j; break; }
      end = j + 1;
    }
    for (const f of errorfs(body.slice(i, end))) errors.push({ format: f, opaque: false });
    i = end + 1;
  }
  return { nodes, errors };
}
function readIf(src, afterIf) {
  let open = afterIf;
  for (let depth = 0; open < src.length; open++) { // the block's brace: the first `{` outside parentheses and composite literals' types
    const c = src[open];
    if (c === '"') { open = stringEnd(src, open); continue; }
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '{' && depth === 0 && /\s$/.test(src.slice(open - 1, open))) break;
  }
  const cond = src.slice(afterIf, open).trim();
  const close = blockEnd(src, open);
  const node = { cond, body: ifTree(src.slice(open + 1, close)) };
  let end = close + 1;
  const tail = /^\s*else\s+/.exec(src.slice(end));
  if (tail) {
    const at = end + tail[0].length;
    if (src.startsWith('if', at)) {
      const r = readIf(src, at + 2);
      node.elseIf = r.node;
      end = r.end;
    } else {
      const o = src.indexOf('{', at);
      const c = blockEnd(src, o);
      node.elseBody = ifTree(src.slice(o + 1, c));
      end = c + 1;
    }
  }
  return { node, end };
}
function errorfs(text) {
  return [...text.matchAll(/fmt\.Errorf\(\s*"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`));
}

const GATE = /^(!?)localFeatureGate\.Enabled\(features\.(\w+)\)$/;

/**
 * A field predicate in Go (`kc.X.Duration != 0`, `len(kc.X) > 0`, `kc.X != nil`, …) as data, or undefined when the
 * shape is unknown. `consts` resolves identifiers (durations in ms, numbers, strings).
 */
export function fieldPredicate(term, consts) {
  const t = unparen(term);
  const any = splitTop(t, '||');
  if (any.length > 1) {
    const parts = any.map((p) => fieldPredicate(p, consts));
    return parts.every(Boolean) ? { any: parts } : undefined;
  }
  const path = (p) => p.replace(/^\*?kc\./, '').replace(/\.Duration$/, '');
  let m;
  if ((m = /^(kc\.[\w.]+?)(?:\.Duration)?\s*(!=|>)\s*0$/.exec(t))) return { field: path(m[1]), test: 'nonzero' };
  if ((m = /^(kc\.[\w.]+)\s*!=\s*nil$/.exec(t))) return { field: path(m[1]), test: 'set' };
  if ((m = /^(kc\.[\w.]+)\s*==\s*nil$/.exec(t))) return { field: path(m[1]), test: 'unset' };
  if ((m = /^len\((kc\.[\w.]+)\)\s*(?:!=|>)\s*0$/.exec(t))) return { field: path(m[1]), test: 'nonempty' };
  if ((m = /^(kc\.[\w.]+)\s*!=\s*\([\w.]+\{\}\)$/.exec(t))) return { field: path(m[1]), test: 'nonzero' }; // a struct's zero value
  if ((m = /^(kc\.\w+)$/.exec(t))) return { field: path(m[1]), test: 'true' };
  if ((m = /^(\*?kc\.[\w.]+)\s*(==|!=)\s*([\w.]+)$/.exec(t))) {
    const value = consts(m[3]);
    if (value === undefined) return undefined;
    return { field: path(m[1]), test: m[2] === '==' ? 'equals' : 'differs', value };
  }
  return undefined;
}

/** Gate terms and field terms of a condition; undefined when a term is neither. */
function readCondition(cond, consts) {
  const gates = [];
  const fields = [];
  let unknown;
  for (const term of splitTop(unparen(cond), '&&')) {
    const g = GATE.exec(unparen(term));
    if (g) { gates.push({ gate: g[2], enabled: g[1] === '' }); continue; }
    const f = fieldPredicate(term, consts);
    if (f) fields.push(f);
    else unknown ??= term;
  }
  return { gates, fields, ...(unknown ? { unknown } : {}) };
}

/**
 * The gated checks of ValidateKubeletConfiguration: {gate (Go identifier), enabled, when: predicates, message}, and
 * the value checks under a gate that are not modelled: {gate, enabled, message}.
 */
export function validationRules(goSource, consts) {
  const rules = [];
  const valueChecks = [];
  const walk = (tree, outer) => {
    for (const e of tree.errors) {
      const gates = outer.filter((c) => c.gate);
      if (gates.length === 0) continue;
      const unknown = outer.some((c) => c.unknown);
      if (e.opaque || unknown) {
        // under a disabled gate a check refuses what a gate change can bring about: it must be read, never dropped
        if (gates.some((g) => !g.enabled)) throw new Error(`a check under a disabled gate whose condition is not understood: ${e.format}`);
        for (const g of gates) valueChecks.push({ gate: g.gate, enabled: g.enabled, message: e.format });
        continue;
      }
      if (gates.length !== 1) throw new Error(`a check under ${gates.length} gates: ${e.format}`);
      rules.push({ gate: gates[0].gate, enabled: gates[0].enabled, when: outer.filter((c) => c.field || c.any), message: e.format });
    }
    for (const node of tree.nodes) visit(node, outer);
  };
  const visit = (node, outer) => {
    const c = readCondition(node.cond, consts);
    const here = [...outer, ...c.gates, ...c.fields, ...(c.unknown ? [{ unknown: c.unknown }] : [])];
    walk(node.body, here);
    const negated =
      c.gates.length === 1 && c.fields.length === 0 && !c.unknown
        ? [...outer, { gate: c.gates[0].gate, enabled: !c.gates[0].enabled }]
        : c.gates.length === 0
          ? [...outer, { unknown: `not (${node.cond})` }]
          : undefined;
    if (node.elseBody || node.elseIf) {
      if (!negated) throw new Error(`an else after a condition mixing a gate with fields: ${node.cond}`);
      if (node.elseBody) walk(node.elseBody, negated);
      if (node.elseIf) visit(node.elseIf, negated);
    }
  };
  walk(ifTree(functionBody(goSource, 'ValidateKubeletConfiguration')), []);
  // every gate the function names must have been understood somewhere
  const named = new Set([...goSource.matchAll(/Enabled\(features\.(\w+)\)/g)].map((m) => m[1]));
  for (const n of named) if (!rules.some((r) => r.gate === n) && !valueChecks.some((r) => r.gate === n)) throw new Error(`gate ${n} is named but no check of it was read`);
  return { rules, valueChecks };
}

/** SetDefaults_KubeletConfiguration's fields set only when a gate is enabled: {gate, field, value}. */
export function gatedDefaults(goSource, consts) {
  const body = functionBody(goSource, 'SetDefaults_KubeletConfiguration');
  const out = gatedDefaultsRaw(body).map(({ gate, field, raw }) => {
    const value = /^&metav1\.Duration\{Duration: (\w+)\}$/.test(raw) ? consts(raw.match(/Duration: (\w+)/)[1]) : consts(raw.replace(/^ptr\.To\((.*)\)$/, '$1'));
    if (value === undefined) throw new Error(`defaults: cannot read the value ${raw} of ${field}`);
    return { gate, field, value };
  });
  const named = [...body.matchAll(/Enabled\(features\.(\w+)\)/g)].length;
  if (named !== out.length) throw new Error(`defaults: ${named} gated defaults named, ${out.length} read`);
  return out;
}
function gatedDefaultsRaw(body) {
  const out = [];
  for (const m of body.matchAll(/if localFeatureGate\.Enabled\(features\.(\w+)\) \{\s*if obj\.([\w.]+) == (?:nil|""|0) \{\s*obj\.([\w.]+) = ([^\n]+)\n\s*\}\s*\}/g)) {
    if (m[2] !== m[3]) throw new Error(`defaults: ${m[0]}`);
    out.push({ gate: m[1], field: m[2], raw: m[4].trim() });
  }
  return out;
}

const UNITS = { Nanosecond: 1e-6, Microsecond: 1e-3, Millisecond: 1, Second: 1000, Minute: 60_000, Hour: 3_600_000 };
/** Fields SetDefaults_KubeletConfiguration sets whatever the gates (`if obj.X == nil|""|0|zero… { obj.X = … }` outside a gate). */
export function ungatedDefaults(goSource) {
  const body = functionBody(goSource, 'SetDefaults_KubeletConfiguration');
  const gated = new Set(gatedDefaultsRaw(body).map((d) => d.field));
  return [...body.matchAll(/^\tif obj\.([\w.]+) == [^{\n]+\{\s*obj\.([\w.]+) = /gm)].filter((m) => m[1] === m[2] && !gated.has(m[1])).map((m) => m[1]);
}

/**
 * Constants of Go sources: `X = 300 * time.Second`, `X = 0.9`, `X T = "Name"`, `var x = metav1.Duration{Duration: 100 * time.Millisecond}`.
 */
export function goConstants(...sources) {
  const table = new Map();
  for (const src of sources) {
    for (const m of src.matchAll(/^\s*(?:const\s+|var\s+)?(\w+)\s+(?:[\w.]+\s+)?=\s*(?:metav1\.Duration\{Duration:\s*)?(?:(\d+)\s*\*\s*time\.(\w+)|"([^"]*)"|(\d+\.\d+|\d+))\}?\s*$/gm)) {
      if (m[2]) table.set(m[1], { duration: Number(m[2]) * UNITS[m[3]] });
      else if (m[4] !== undefined) table.set(m[1], m[4]);
      else table.set(m[1], Number(m[5]));
    }
  }
  return (ident) => table.get(ident.split('.').at(-1));
}

/** Go identifier → gate name (pkg/features/kube_features.go). */
export function gateNamesOf(kubeFeatures) {
  return new Map([...kubeFeatures.matchAll(/^\s*(\w+) featuregate\.Feature = "(\w+)"/gm)].map((m) => [m[1], m[2]]));
}

/** Go field path of KubeletConfiguration → JSON path, from the v1beta1 types' json tags. */
export function jsonPaths(typesSource) {
  const structs = new Map();
  for (const m of typesSource.matchAll(/^type (\w+) struct \{\n([\s\S]*?)^\}/gm)) {
    const fields = new Map();
    for (const f of m[2].matchAll(/^\t(\w+)\s+([*[\]\w.]+(?:\[[\w.]+\][\w.*]+)?)\s+`json:"([\w]+)/gm)) fields.set(f[1], { json: f[3], type: f[2].replace(/^[*[\]]+/, '') });
    structs.set(m[1], fields);
  }
  return (goPath) => {
    let type = 'KubeletConfiguration';
    const out = [];
    for (const part of goPath.split('.')) {
      const f = structs.get(type)?.get(part);
      if (!f) throw new Error(`KubeletConfiguration field ${goPath}: no JSON name for ${part} in ${type}`);
      out.push(f.json);
      type = f.type;
    }
    return out.join('.');
  };
}

/** A value as TypeScript source: single-quoted strings, bare keys. */
function literal(v) {
  if (Array.isArray(v)) return `[${v.map(literal).join(', ')}]`;
  if (v && typeof v === 'object') return `{ ${Object.entries(v).map(([k, x]) => `${k}: ${literal(x)}`).join(', ')} }`;
  return typeof v === 'string' ? `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : String(v);
}
const sortedKeys = (o) => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
function rewrite(pred, toJson) {
  if (pred.any) return { any: pred.any.map((p) => rewrite(p, toJson)) };
  return sortedKeys({ ...pred, field: toJson(pred.field) });
}

export function renderKubeletRules(version, { validation, defaults, kubeFeatures, types, consts }) {
  const names = gateNamesOf(kubeFeatures);
  const gate = (id) => { const n = names.get(id); if (!n) throw new Error(`${version}: features.${id} is not in kube_features.go`); return n; };
  const toJson = jsonPaths(types);
  const { rules, valueChecks } = validationRules(validation, consts);
  const data = {
    kubernetesVersion: version.slice(1),
    requires: rules.map((r) => ({
      gate: gate(r.gate),
      enabled: r.enabled,
      when: r.when.map((p) => rewrite(p, toJson)),
      message: r.message,
    })),
    defaults: gatedDefaults(defaults, consts).map((d) => ({ gate: gate(d.gate), field: toJson(d.field), value: d.value })),
    // the fields the rules test that defaulting sets whatever the gates: absent from a file is never unset after defaulting
    defaulted: ungatedDefaults(defaults)
      .map(toJson)
      .filter((f) => JSON.stringify(rules.map((r) => r.when.map((p) => rewrite(p, toJson)))).includes(`"${f}"`))
      .sort(),
    valueChecks: [...new Set(valueChecks.map((v) => `${gate(v.gate)}\u0000${v.enabled}`))].sort().map((k) => {
      const [g, e] = k.split('\u0000');
      return { gate: g, enabled: e === 'true' };
    }),
  };
  const minor = version.replace(/^v(\d+)\.(\d+)\..*$/, '$1.$2');
  const ident = `KUBELET_${minor.replace('.', '_')}`;
  const text = [
    `// Generated by hack/update-kubelet-config-rules.mjs from k8s.io/kubernetes@${version} — do not edit.`,
    '// pkg/kubelet/apis/config/validation/validation.go (requires), v1beta1/defaults.go (defaults), JSON names from',
    `// k8s.io/kubelet@${version.replace(/^v1\./, 'v0.')} config/v1beta1/types.go.`,
    "import type { KubeletConfigRules } from './types.js';",
    '',
    `export const ${ident} = (): KubeletConfigRules => ({`,
    `  kubernetesVersion: '${data.kubernetesVersion}',`,
    `  defaulted: ${literal(data.defaulted)},`,
    ...['requires', 'defaults', 'valueChecks'].flatMap((key) => [`  ${key}: [`, ...data[key].map((x) => `    ${literal(x)},`), '  ],']),
    '});',
    '',
  ].join('\n');
  return { file: `kube-${minor}.ts`, ident, minor, text };
}

function generate() {
  const files = [];
  for (const version of RELEASES) {
    const dir = moduleDir(version);
    const config = join(dir, 'pkg', 'kubelet', 'apis', 'config');
    const read = (...p) => readFileSync(join(...p), 'utf8');
    const kubelet = moduleDir(version.replace(/^v1\./, 'v0.'), 'k8s.io/kubelet');
    const types = read(kubelet, 'config', 'v1beta1', 'types.go');
    const validation = read(config, 'validation', 'validation.go');
    const defaults = read(config, 'v1beta1', 'defaults.go');
    const consts = goConstants(validation, defaults, types, read(config, 'types.go'));
    files.push(renderKubeletRules(version, { validation, defaults, kubeFeatures: read(dir, 'pkg', 'features', 'kube_features.go'), types, consts }));
  }
  return [...files.map((f) => [f.file, f.text]), ['index.ts', indexModule(files, {
    script: 'hack/update-kubelet-config-rules.mjs', what: 'The kubelet\'s configuration rules', type: 'KubeletConfigRules', from: './types.js',
    doc: 'The kubelet\'s configuration rules of each supported Kubernetes minor ("1.36"), built when called.', name: 'KUBELET_CONFIG_RULES',
  })]];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeGenerated(OUT, generate(), { script: 'hack/update-kubelet-config-rules.mjs', label: 'kubelet configuration rules' });
}
