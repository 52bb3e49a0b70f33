#!/usr/bin/env node
// Writes our FeatureGate, ClusterVersion and ClusterOperator CRDs (deploy/crds/; the Helm chart's crds/ link there) from
// openshift/api's own manifests — the module pinned in hack/openshift-api/go.mod, fetched from the Go module proxy —
// so their schema, validation rules and defaults are upstream's, byte for byte in meaning. On top, one documented
// layer per CRD (deploy/crds/layer/<plural>.yaml): every description in our own words (each field upstream
// describes must have one), our printer columns after upstream's, our annotations.
// Usage: node hack/update-crds.mjs [--check]   (--check: exit 1, naming what differs, when a file is not what it writes)
// OPENSHIFT_API_MODULE_DIR=<folder> reads openshift/api from that folder instead of the module proxy.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { downloadModule, writeGenerated } from './update-gate-rules.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const MODULE = 'github.com/openshift/api';

/** Our CRDs: the file we write, and openshift/api's manifest it follows (the Default feature-set variant where there are several). */
export const CRDS = [
  { plural: 'featuregates', upstream: '0000_10_config-operator_01_featuregates.crd.yaml' },
  { plural: 'clusterversions', upstream: '0000_00_cluster-version-operator_01_clusterversions-Default.crd.yaml' },
  { plural: 'clusteroperators', upstream: '0000_00_cluster-version-operator_01_clusteroperators.crd.yaml' },
];

/** The pinned openshift/api: its folder and version (OPENSHIFT_API_MODULE_DIR overrides; its version is then its folder's name). */
export function openshiftAPI() {
  const dir = process.env.OPENSHIFT_API_MODULE_DIR;
  if (dir) return { dir, version: dir.match(/@([^/]+)\/?$/)?.[1] ?? `(${dir})` };
  const { Dir, Version } = downloadModule(MODULE, join(ROOT, 'hack', 'openshift-api'));
  return { dir: Dir, version: Version };
}

/**
 * Each node of an OpenAPI schema with its path as the layer names it: `spec.featureSet`, `status.featureGates[].version`, `.` for the root.
 */
export function* schemaNodes(node, path = '') {
  if (!node || typeof node !== 'object') return;
  yield [path || '.', node];
  for (const [key, child] of Object.entries(node.properties ?? {})) yield* schemaNodes(child, path ? `${path}.${key}` : key);
  if (node.items) yield* schemaNodes(node.items, `${path}[]`);
  if (node.additionalProperties && typeof node.additionalProperties === 'object') yield* schemaNodes(node.additionalProperties, `${path}{}`);
  for (const key of ['allOf', 'anyOf', 'oneOf']) for (const [i, child] of (node[key] ?? []).entries()) yield* schemaNodes(child, `${path}<${key}${i}>`);
  if (node.not) yield* schemaNodes(node.not, `${path}<not>`);
}

const versionsOf = (crd) => crd.spec?.versions ?? [];
/** A version's printer columns as the layer names them: `columns.<name>`. */
const columnPath = (name) => `columns.${name}`;

/** Every described place of a CRD (schema nodes and printer columns): path → the description. */
export function descriptionsOf(crd) {
  const out = new Map();
  for (const v of versionsOf(crd)) {
    for (const [path, node] of schemaNodes(v.schema?.openAPIV3Schema)) if (typeof node.description === 'string') out.set(path, node.description);
    for (const c of v.additionalPrinterColumns ?? []) if (typeof c.description === 'string') out.set(columnPath(c.name), c.description);
  }
  return out;
}

/** The CRD with no description anywhere: what the API server enforces (schema, rules, defaults, columns). */
export function withoutDescriptions(crd) {
  const copy = structuredClone(crd);
  for (const v of versionsOf(copy)) {
    for (const [, node] of schemaNodes(v.schema?.openAPIV3Schema)) delete node.description;
    for (const c of v.additionalPrinterColumns ?? []) delete c.description;
  }
  return copy;
}

/** The CRD without our layer's additions (its annotations, its printer columns): what must equal openshift/api's. */
export function withoutLayer(crd, layer) {
  const copy = structuredClone(crd);
  for (const key of Object.keys(layer.annotations ?? {})) delete copy.metadata?.annotations?.[key];
  const ours = new Set((layer.additionalPrinterColumns ?? []).map((c) => c.name));
  for (const v of versionsOf(copy)) {
    if (!v.additionalPrinterColumns) continue;
    v.additionalPrinterColumns = v.additionalPrinterColumns.filter((c) => !ours.has(c.name));
    if (!v.additionalPrinterColumns.length) delete v.additionalPrinterColumns;
  }
  return copy;
}

/** Where two JSON values differ, as paths (`spec.versions[0].schema…enum`), with both values. */
export function differences(ours, upstream, path = '') {
  if (Object.is(ours, upstream)) return [];
  const bothObjects = ours && upstream && typeof ours === 'object' && typeof upstream === 'object' && Array.isArray(ours) === Array.isArray(upstream);
  if (!bothObjects) return [{ path: path || '.', ours, upstream }];
  if (Array.isArray(ours) && ours.length !== upstream.length) return [{ path: path || '.', ours, upstream }];
  const keys = [...new Set([...Object.keys(ours), ...Object.keys(upstream)])].sort();
  return keys.flatMap((k) => differences(ours[k], upstream[k], Array.isArray(ours) ? `${path}[${k}]` : path ? `${path}.${k}` : k));
}

/**
 * What our CRD (as written in deploy/crds) changes of openshift/api's beyond its layer: schema, validation, defaults,
 * metadata — every difference except the descriptions' words. Empty: it behaves as upstream's.
 */
export function schemaDifferences(ours, upstream, layer) {
  return differences(withoutDescriptions(withoutLayer(ours, layer)), withoutDescriptions(upstream));
}

/** Sets a node's description, as its first key (where a reader of the YAML looks first). */
function describe(node, text) {
  const rest = { ...node };
  for (const key of Object.keys(node)) delete node[key];
  Object.assign(node, { description: text.trim() }, rest);
}

/** Our CRD: openshift/api's, every description replaced by the layer's, its annotations and printer columns added. */
export function layered(upstream, layer, source) {
  const crd = withoutDescriptions(upstream);
  const theirs = descriptionsOf(upstream);
  const ours = new Map(Object.entries(layer.descriptions ?? {}));
  const missing = [...theirs.keys()].filter((p) => !(typeof ours.get(p) === 'string' && ours.get(p).trim()));
  const stale = [...ours.keys()].filter((p) => !theirs.has(p));
  if (missing.length || stale.length) {
    throw new Error(`${source}: ${[
      ...missing.map((p) => `no description for ${p} (openshift/api describes it: "${theirs.get(p).split('\n')[0].slice(0, 80)}")`),
      ...stale.map((p) => `a description for ${p}, which openshift/api's CRD does not describe (or no longer has)`),
    ].join('; ')}`);
  }
  crd.metadata.annotations = { ...crd.metadata.annotations, ...layer.annotations };
  for (const v of versionsOf(crd)) {
    for (const [path, node] of schemaNodes(v.schema?.openAPIV3Schema)) if (ours.has(path)) describe(node, ours.get(path));
    const columns = [...(v.additionalPrinterColumns ?? []), ...(layer.additionalPrinterColumns ?? [])];
    for (const c of columns) if (ours.has(columnPath(c.name))) describe(c, ours.get(columnPath(c.name)));
    if (columns.length) v.additionalPrinterColumns = columns;
  }
  return crd;
}

/** One generated CRD file: a header that says where it comes from, then the CRD. */
export function renderCRD(crd, { plural, upstream }, version) {
  return [
    `# Generated by hack/update-crds.mjs from ${MODULE}@${version} (config/v1/zz_generated.crd-manifests/${upstream})`,
    `# and deploy/crds/layer/${plural}.yaml (our descriptions, printer columns and annotations). Do not edit: change the`,
    '# layer, or the openshift/api version in hack/openshift-api/go.mod, and run the script again.',
    stringify(crd, { lineWidth: 0 }),
  ].join('\n');
}

/** Every generated file (in deploy/crds/) and, per CRD, what its current file changes of upstream's (for --check). */
export function generate({ dir, version } = openshiftAPI()) {
  const files = new Map();
  const drift = [];
  for (const entry of CRDS) {
    const upstreamPath = join(dir, 'config', 'v1', 'zz_generated.crd-manifests', entry.upstream);
    if (!existsSync(upstreamPath)) throw new Error(`${MODULE}@${version} has no ${entry.upstream}: the CRD moved or was split; update CRDS in hack/update-crds.mjs`);
    const upstream = parse(readFileSync(upstreamPath, 'utf8'));
    const layerPath = join(ROOT, 'deploy', 'crds', 'layer', `${entry.plural}.yaml`);
    const layer = parse(readFileSync(layerPath, 'utf8')) ?? {};
    const text = renderCRD(layered(upstream, layer, `deploy/crds/layer/${entry.plural}.yaml`), entry, version);
    const file = `${entry.plural}.config.openshift.io.yaml`;
    files.set(file, text);
    const current = join(ROOT, 'deploy', 'crds', file);
    if (!existsSync(current)) continue;
    for (const d of schemaDifferences(parse(readFileSync(current, 'utf8')), upstream, layer)) drift.push({ file: `deploy/crds/${file}`, ...d });
  }
  return { files, drift };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const api = openshiftAPI();
  process.stdout.write(`openshift/api ${api.version}\n`);
  const { files, drift } = generate(api);
  const show = (v) => (v === undefined ? '(absent)' : JSON.stringify(v).slice(0, 200));
  if (process.argv.includes('--check')) {
    for (const d of drift) process.stderr.write(`${d.file}: ${d.path} is ${show(d.ours)}, openshift/api's is ${show(d.upstream)}\n`);
  }
  writeGenerated(join(ROOT, 'deploy', 'crds'), [...files], { script: 'hack/update-crds.mjs', label: 'CRDs' });
}
